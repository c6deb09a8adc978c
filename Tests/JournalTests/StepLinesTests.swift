import FlowVocabulary
import Foundation
import Testing

@testable import Journal

@Suite("Step lines")
struct StepLinesTests {
    /// Every control character, quotes and backslashes at the edges and in runs, DEL, and non-ASCII text of two,
    /// three and four bytes, in strings short enough to be stored inline and long enough not to be.
    static let trickyTexts: [String] = [
        "", "a", "\"", "\\", "\"\"", "\\\\\"", "open:home",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }),
        "\u{7F}", "é", "名前", "😀", "tap:\"name\"\\\n\t\r\u{0}\u{1F}",
        "\"starts and ends with a quote\"", "\\starts and ends with a backslash\\",
        "expected total 12,50 € but found 12.50 € — «quoted» 😀 \u{8}\u{C}",
        String(repeating: "long text without anything to escape ", count: 40),
        String(repeating: "\"\\\n\u{1}é", count: 100),
    ]

    static let durations: [Double] = [
        0, 0.000_001, 0.05, 1.5, -2.25, 1e12, -1e12, .nan, .infinity, -.infinity, 0.000_000_4,
    ]

    /// The six step outcomes the journal records (`passed`, `failed`, `skipped`, `errored`, `timedOut`, `cancelled`).
    static let journaledOutcomes = StepOutcome.allCases.filter { $0.journaled == $0 }

    static func steps(_ seed: Int) -> [StepResult] {
        let texts = trickyTexts
        let outcomes = journaledOutcomes
        return (0..<(1 + seed % 4)).map { n in
            let k = seed + n
            return StepResult(
                index: [0, 1, 7, -3, 1_000_000, Int.max, Int.min][k % 7],
                key: texts[k % texts.count], outcome: outcomes[k % outcomes.count],
                duration: durations[k % durations.count],
                message: k % 3 == 0 ? nil : texts[(k * 7 + 3) % texts.count],
                interruptions: k % 2 == 0 ? nil : texts[(k * 5 + 1) % texts.count])
        }
    }

    @Test("the encoder's bytes are those of the previous encoder, for tricky strings and numbers", arguments: 0..<60)
    func byteIdentical(seed: Int) {
        let steps = Self.steps(seed)
        #expect(StepLines.encode(steps) == PreviousStepLinesEncoder.encode(steps))
    }

    @Test("encoding into a reused buffer gives the same bytes whatever the buffer held before")
    func reusedBuffer() {
        var buffer: [UInt8] = []
        for seed in [59, 0, 17, 3, 58, 1] {
            let steps = Self.steps(seed)
            let count = StepLines.encode(steps, into: &buffer)
            #expect(Array(buffer[..<count]) == PreviousStepLinesEncoder.encode(steps))
        }
        #expect(StepLines.encode([], into: &buffer) == 0)
    }

    @Test("step lines: escapes round-trip, the last record of an index wins, seconds from older journals read")
    func stepLines() throws {
        let steps = [
            StepResult(index: 1, key: "type:\"name\"\\\n\t", outcome: .failed, duration: 1.5, message: "é \u{7}",
                       interruptions: "alert, sheet"),
            StepResult(index: 0, key: "open:home", outcome: .passed, duration: 0.000_001),
        ]
        let text = String(decoding: StepLines.encode(steps), as: UTF8.self)
        #expect(!text.contains("\n\t"))
        #expect(try StepLines.decode(text, "t") == steps.sorted { $0.index < $1.index })
        let again = text + "\n" + String(decoding: StepLines.encode([StepResult(index: 1, key: "k", outcome: .passed, duration: 2)]), as: UTF8.self)
        #expect(try StepLines.decode(again, "t").map(\.key) == ["open:home", "k"])
        #expect(try StepLines.decode(#"{"i":0,"k":"a","o":"passed","d":0.5,"m":null,"x":null}"#, "t").first?.duration == 0.5)
        #expect(throws: JournalError.self) { try StepLines.decode(#"{"i":0,"k":"a","o":"sideways","u":1}"#, "t") }
        #expect(throws: JournalError.self) { try StepLines.decode("not json", "t") }
        // Other writers' JSON: \uXXXX escapes with a surrogate pair, "\/", spaces, a member this build ignores.
        let foreign = try StepLines.decode(
            #"{ "i": 2, "k": "tap:\u00e9\/\ud83d\ude00", "o": "passed", "u": 3, "future": [1] }"#.replacingOccurrences(of: "[1]", with: "1"), "t")
        #expect(foreign.first?.key == "tap:é/😀")
        #expect(foreign.first?.duration == 0.000_003)
        #expect(throws: JournalError.self) { try StepLines.decode(#"{"i":0,"o":"passed"}"#, "t") }
        #expect(throws: JournalError.self) { try StepLines.decode(#"{"i":0,"k":"a","o":"passed""#, "t") }
    }

    @Test("a step's outcome is read from its bytes: an escaped name still reads; a prefix, a longer name or null do not")
    func outcomeBytes() throws {
        #expect(try StepLines.decode(#"{"i":0,"k":"a","o":"pass\u0065d","u":1}"#, "t").map(\.outcome) == [.passed])
        #expect(try StepLines.decode(#"{"i":0,"k":"a","o" : "timedOut" ,"u":1}"#, "t").map(\.outcome) == [.timedOut])
        for bad in ["\"pass\"", "\"passedX\"", "\"failed ", "null", "\"\""] {
            #expect(throws: JournalError.self) { try StepLines.decode(#"{"i":0,"k":"a","o":\#(bad),"u":1}"#, "t") }
        }
    }

    @Test("a worker's lost step is journaled as failed and a line saying lost is not the journal's; errored is kept")
    func workerOutcomesJournaled() throws {
        #expect(Self.journaledOutcomes == [.passed, .failed, .skipped, .errored, .timedOut, .cancelled])
        let lost = StepResult(index: 0, key: "test:a", outcome: .lost, duration: 1)
        let text = String(decoding: StepLines.encode([lost]), as: UTF8.self)
        #expect(text == #"{"i":0,"k":"test:a","o":"failed","u":1000000}"#)
        #expect(try StepLines.decode(text, "t").map(\.outcome) == [.failed])
        #expect(throws: JournalError.self) { try StepLines.decode(#"{"i":0,"k":"a","o":"lost","u":1}"#, "t") }
        // A command's test that errored (a fixture that raised) stays errored: junit.xml's <error>, not <failure>.
        let errored = StepResult(index: 0, key: "test:a", outcome: .errored, duration: 1, message: "setup failed")
        let line = String(decoding: StepLines.encode([errored]), as: UTF8.self)
        #expect(line == #"{"i":0,"k":"test:a","o":"errored","u":1000000,"m":"setup failed"}"#)
        #expect(try StepLines.decode(line, "t") == [errored])
        #expect(StepLines.showsFailure(errored))
        #expect(!StepLines.showsFailure(StepResult(index: 0, key: "a", outcome: .errored, duration: 0,
                                                   message: StepLines.infrastructurePrefix + " the browser died")))
    }

    @Test("tricky strings survive encoding and decoding")
    func roundTrip() throws {
        let steps = Self.trickyTexts.enumerated().map { i, text in
            StepResult(index: i, key: text, outcome: .passed, duration: 0.25, message: text, interruptions: text)
        }
        let text = String(decoding: StepLines.encode(steps), as: UTF8.self)
        #expect(try StepLines.decode(text, "t") == steps)
    }
}

/// The encoder as it was before it wrote through a pointer: the reference the faster one must match byte for byte
/// (journals written by either must read the same, and `attempts.steps` must not change).
private enum PreviousStepLinesEncoder {
    static func encode(_ steps: [StepResult]) -> [UInt8] {
        var out: [UInt8] = []
        for (n, step) in steps.enumerated() {
            if n > 0 { out.append(0x0A) }
            out += #"{"i":"#.utf8
            appendInteger(Int64(step.index), to: &out)
            out += #","k":"#.utf8
            appendString(step.key, to: &out)
            out += #","o":""#.utf8
            appendString(step.outcome.rawValue, quoted: false, to: &out)
            out += #"","u":"#.utf8
            let us = (step.duration * 1e6).rounded()
            appendInteger(us.isFinite ? Int64(max(-9e15, min(9e15, us))) : 0, to: &out)
            if let text = step.message {
                out += #","m":"#.utf8
                appendString(text, to: &out)
            }
            if let text = step.interruptions {
                out += #","x":"#.utf8
                appendString(text, to: &out)
            }
            out.append(0x7D)
        }
        return out
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(0x2D) }
        out += String(value.magnitude).utf8
    }

    static func appendString(_ s: String, quoted: Bool = true, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        if quoted { out.append(0x22) }
        for byte in s.utf8 {
            switch byte {
            case 0x22: out += #"\""#.utf8
            case 0x5C: out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0..<0x20:
                out += #"\u00"#.utf8
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        if quoted { out.append(0x22) }
    }
}
