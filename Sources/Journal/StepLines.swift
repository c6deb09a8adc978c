import CSQLite
import Foundation

/// The text of `attempts.steps`: an attempt's steps as JSON Lines, one object per step in the order they were
/// recorded: `{"i":0,"k":"open:home","o":"passed","u":12034,"m":"…","x":"…"}` — index, key, outcome, duration in
/// microseconds, and the message and interruptions only when present. Steps reported again for the same index are
/// appended; the last one wins. (Journals migrated from schema 2 hold `"d"`, seconds, instead of `"u"`.)
///
/// One column per attempt instead of one row per step: an attempt is one row write whatever its step count
/// (the journal writer's cost is per row, and a no-op job used to cost six). The encoder writes bytes directly:
/// it runs once per attempt on the writer thread.
enum StepLines {
    private static let openIndex = Array(#"{"i":"#.utf8)
    private static let key = Array(#","k":"#.utf8)
    private static let outcome = Array(#","o":""#.utf8)
    private static let micros = Array(#"","u":"#.utf8)
    private static let message = Array(#","m":"#.utf8)
    private static let interruptions = Array(#","x":"#.utf8)
    private static let hex = Array("0123456789abcdef".utf8)

    /// The lines of `steps` as UTF-8, without a trailing newline.
    static func encode(_ steps: [StepResult]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(steps.count * 72)
        for (n, step) in steps.enumerated() {
            if n > 0 { out.append(0x0A) }
            out += openIndex
            appendInteger(Int64(step.index), to: &out)
            out += key
            appendString(step.key, to: &out)
            out += outcome
            appendString(step.outcome.rawValue, quoted: false, to: &out)
            out += micros
            let us = (step.duration * 1e6).rounded()
            appendInteger(us.isFinite ? Int64(max(-9e15, min(9e15, us))) : 0, to: &out)
            if let text = step.message {
                out += message
                appendString(text, to: &out)
            }
            if let text = step.interruptions {
                out += interruptions
                appendString(text, to: &out)
            }
            out.append(0x7D)  // }
        }
        return out
    }

    private static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(0x2D) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[i]) }
        }
    }

    /// A JSON string literal (or its inside, `quoted: false`): `"`, `\` and control characters escaped, every
    /// other byte as is.
    private static func appendString(_ s: String, quoted: Bool = true, to out: inout [UInt8]) {
        if quoted { out.append(0x22) }
        var s = s
        s.withUTF8 { bytes in
            for byte in bytes {
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
        }
        if quoted { out.append(0x22) }
    }

    /// The steps in index order, the last line of each index winning.
    /// - Throws: a ``JournalError`` (`SQLITE_CORRUPT`) naming `what` when a line is not a step.
    static func decode(_ text: String, _ what: @autoclosure () -> String) throws -> [StepResult] {
        guard !text.isEmpty else { return [] }
        var parser = StepLineParser(text)
        let lines: [StepLineParser.Line]
        do {
            lines = try parser.lines()
        } catch {
            throw JournalError(code: SQLITE_CORRUPT, message: "unreadable steps of \(what()): \(error)", operation: "read")
        }
        var steps: [StepResult] = []
        steps.reserveCapacity(lines.count)
        for line in lines {
            guard let index = line.i, index >= 0, let key = line.k, let text = line.o,
                let outcome = StepOutcome(rawValue: text)
            else {
                throw JournalError(
                    code: SQLITE_CORRUPT,
                    message: "a step of \(what()) lacks an index, key or known outcome (\(line.o ?? "none"))",
                    operation: "read")
            }
            let step = StepResult(
                index: index, key: key, outcome: outcome, duration: line.u.map { Double($0) / 1e6 } ?? line.d ?? 0,
                message: line.m, interruptions: line.x)
            // Lines are in recording order: usually ascending and unique, so appending is the common case.
            if let last = steps.last, last.index >= index {
                if let same = steps.firstIndex(where: { $0.index == index }) {
                    steps[same] = step
                } else {
                    steps.append(step)
                    steps.sort { $0.index < $1.index }
                }
            } else {
                steps.append(step)
            }
        }
        return steps
    }
}
