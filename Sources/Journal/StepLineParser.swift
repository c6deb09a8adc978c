import CSQLite
import FlowVocabulary

/// Reads the JSON Lines of `attempts.steps` (see ``StepLines``) without Foundation's JSON decoder: a report of a
/// large run reads every attempt's steps, and a general decoder per attempt cost more than the query.
///
/// Each line is a flat JSON object whose values are strings, numbers or null; unknown members are skipped, so a
/// later build may add members. Anything else is an error.
struct StepLineParser {
    /// One line's members.
    struct Line {
        var i: Int?
        var k: String?
        /// The outcome's text, when it is not one of ``StepOutcome``'s names (else ``outcome``).
        var o: String?
        /// The outcome, read from the bytes (no `String` made for the one member every step has).
        var outcome: StepOutcome?
        var u: Int64?
        var d: Double?
        var m: String?
        var x: String?
    }

    private enum Value {
        case string(String)
        /// The number's bytes.
        case number(Range<Int>)
        case null
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    /// A parser of `bytes`, which must stay valid while it is used (the report reads them straight from SQLite's
    /// column, without a `String` in between).
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Every line of the text (blank lines skipped).
    mutating func lines() throws(Failure) -> [Line] {
        var out: [Line] = []
        skipWhitespace()
        while at < bytes.count {
            out.append(try line())
            skipWhitespace()
        }
        return out
    }

    private mutating func line() throws(Failure) -> Line {
        try expect(0x7B)  // {
        var line = Line()
        skipSpaces()
        if peek == 0x7D {
            at += 1
            return line
        }
        while true {
            skipSpaces()
            let key = try memberName()
            skipSpaces()
            try expect(0x3A)  // :
            skipSpaces()
            if key == "o", let known = knownOutcome() {
                (line.o, line.outcome) = (nil, known)
            } else {
                try member(key, into: &line)
            }
            skipSpaces()
            if peek == 0x2C {
                at += 1
                continue
            }
            try expect(0x7D)  // }
            return line
        }
    }

    /// Reads member `key`'s value into `line`.
    private mutating func member(_ key: Unicode.Scalar, into line: inout Line) throws(Failure) {
        let value = try value()
        switch (key, value) {
        case ("i", .number(let n)): line.i = try integer(n, "i")
        case ("u", .number(let n)): line.u = Int64(try integer(n, "u"))
        case ("d", .number(let n)):
            let text = String(decoding: bytes[n], as: UTF8.self)
            guard let v = Double(text) else { throw Failure(description: "bad number \(text) for d") }
            line.d = v
        case ("k", .string(let s)): line.k = s
        case ("o", .string(let s)): (line.o, line.outcome) = (s, StepOutcome(rawValue: s))
        case ("m", .string(let s)): line.m = s
        case ("x", .string(let s)): line.x = s
        case ("m", .null), ("x", .null), ("d", .null), ("u", .null): break
        case ("i", _), ("u", _), ("d", _), ("k", _), ("o", _), ("m", _), ("x", _):
            throw Failure(description: "member \(key) has the wrong type")
        default: break  // a member this build does not know
        }
    }

    /// A member's name: its only byte for a one-byte name without escapes (every name the journal writes, and no
    /// `String` made), else the name read as a string (then `"?"` when it is not one of ours, so it is skipped).
    private mutating func memberName() throws(Failure) -> Unicode.Scalar {
        if at + 2 < bytes.count, bytes[at] == 0x22, bytes[at + 2] == 0x22, bytes[at + 1] != 0x5C, bytes[at + 1] != 0x22,
           bytes[at + 1] < 0x80 {
            at += 3
            return Unicode.Scalar(bytes[at - 2])
        }
        let name = try string()
        guard name.unicodeScalars.count == 1, let only = name.unicodeScalars.first, only.isASCII else { return "?" }
        return only
    }

    /// The outcome names as bytes, by ``StepOutcome`` case.
    private static let outcomeNames = StepOutcome.allCases.map { ($0, Array($0.rawValue.utf8)) }

    /// At a string that is exactly an outcome's name (quotes included, no escape): reads it and returns the outcome.
    /// Anything else is left for ``value()``.
    private mutating func knownOutcome() -> StepOutcome? {
        guard peek == 0x22 else { return nil }
        for (outcome, name) in Self.outcomeNames {
            let end = at + 1 + name.count
            guard end < bytes.count, bytes[end] == 0x22, bytes[(at + 1)..<end].elementsEqual(name) else { continue }
            at = end + 1
            return outcome
        }
        return nil
    }

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpaces() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0D { at += 1 }
    }

    private mutating func skipWhitespace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A { at += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek == byte else {
            throw Failure(description: "expected '\(Character(Unicode.Scalar(byte)))' at byte \(at)")
        }
        at += 1
    }

    private func integer(_ range: Range<Int>, _ key: String) throws(Failure) -> Int {
        // Fast path: an optional minus and at most 18 digits (every index and duration the journal writes).
        var i = range.lowerBound
        let negative = i < range.upperBound && bytes[i] == 0x2D
        if negative { i += 1 }
        if i < range.upperBound && range.upperBound - i <= 18 {
            var value = 0
            while i < range.upperBound, (0x30...0x39).contains(bytes[i]) {
                value = value * 10 + Int(bytes[i] - 0x30)
                i += 1
            }
            if i == range.upperBound { return negative ? -value : value }
        }
        let text = String(decoding: bytes[range], as: UTF8.self)
        if let v = Int(text) { return v }
        // json_object writes whole numbers of REAL columns as 3.0
        if let d = Double(text), d.rounded() == d, abs(d) < 9e15 { return Int(d) }
        throw Failure(description: "bad number \(text) for \(key)")
    }

    private mutating func value() throws(Failure) -> Value {
        switch peek {
        case 0x22: return .string(try string())
        case 0x6E:  // null
            guard at + 4 <= bytes.count, bytes[at..<at + 4].elementsEqual("null".utf8) else {
                throw Failure(description: "bad literal at byte \(at)")
            }
            at += 4
            return .null
        case let b? where b == 0x2D || (0x30...0x39).contains(b):
            let start = at
            while let c = peek, c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 || (0x30...0x39).contains(c) {
                at += 1
            }
            return .number(start..<at)
        default:
            throw Failure(description: "unexpected value at byte \(at)")
        }
    }

    private mutating func string() throws(Failure) -> String {
        try expect(0x22)
        let start = at
        // Fast path: no escapes.
        while let b = peek, b != 0x22, b != 0x5C { at += 1 }
        if peek == 0x22 {
            at += 1
            return String(decoding: bytes[start..<at - 1], as: UTF8.self)
        }
        var out = Array(bytes[start..<at])
        while true {
            guard let b = peek else { throw Failure(description: "unterminated string") }
            at += 1
            switch b {
            case 0x22: return String(decoding: out, as: UTF8.self)
            case 0x5C:
                guard let e = peek else { throw Failure(description: "unterminated escape") }
                at += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), peek == 0x5C, at + 1 < bytes.count, bytes[at + 1] == 0x75 {
                        at += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw Failure(description: "bad surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw Failure(description: "bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw Failure(description: "bad escape")
                }
            default: out.append(b)
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard at + 4 <= bytes.count else { throw Failure(description: "short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[at]
            at += 1
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            default: throw Failure(description: "bad hex digit in \\u escape")
            }
            v = v << 4 | digit
        }
        return v
    }
}
