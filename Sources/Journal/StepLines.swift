import CSQLite
import FlowVocabulary
import Foundation

/// The text of `attempts.steps`: an attempt's steps as JSON Lines, one object per step in the order they were
/// recorded: `{"i":0,"k":"open:home","o":"passed","u":12034,"m":"…","x":"…"}` — index, key, outcome (one of the six
/// ``StepOutcome/journaled`` ones; `errored` only from schema 4 on), duration in
/// microseconds, and the message and interruptions only when present. Steps reported again for the same index are
/// appended; the last one wins. (Journals migrated from schema 2 hold `"d"`, seconds, instead of `"u"`.)
///
/// One column per attempt instead of one row per step: an attempt is one row write whatever its step count
/// (the journal writer's cost is per row, and a no-op job used to cost six). The encoder writes bytes directly:
/// it runs once per attempt on the writer thread.
enum StepLines {
    /// The lines of `steps` as UTF-8, without a trailing newline.
    static func encode(_ steps: [StepResult]) -> [UInt8] {
        var out: [UInt8] = []
        let count = encode(steps, into: &out)
        out.removeLast(out.count - count)
        return out
    }

    /// Writes the lines of `steps` at the start of `buffer`, growing it when needed, and returns their length in
    /// bytes (what follows is left over from earlier use): the writer encodes every attempt into one reused buffer.
    ///
    /// The text is written through a pointer into room for the longest text the steps can take (every string byte
    /// escaped as `\u00XX`), and string bytes that need no escaping are copied a run at a time.
    static func encode(_ steps: [StepResult], into buffer: inout [UInt8]) -> Int {
        var bound = 0
        for n in steps.indices { bound += maxLength(steps[n]) }
        if buffer.count < bound { buffer.append(contentsOf: repeatElement(0, count: max(bound, 4096) - buffer.count)) }
        return buffer.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return 0 }
            var cursor = Cursor(start)
            for n in steps.indices {
                if n > 0 { cursor.put(0x0A) }
                cursor.put(steps[n])
            }
            return cursor.position - start
        }
    }

    /// The most bytes `step`'s line can take, its newline included: the fixed text, two integers of at most 20
    /// characters, the outcome, and every byte of the strings escaped to six.
    private static func maxLength(_ step: StepResult) -> Int {
        let strings = step.key.utf8.count + (step.message?.utf8.count ?? 0) + (step.interruptions?.utf8.count ?? 0)
        return 128 + step.outcome.rawValue.utf8.count + 6 * strings
    }

    /// Writes into memory known to be large enough (see ``maxLength(_:)``).
    private struct Cursor {
        private(set) var position: UnsafeMutablePointer<UInt8>
        private static let hex: StaticString = "0123456789abcdef"

        init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

        mutating func put(_ byte: UInt8) {
            position.pointee = byte
            position += 1
        }

        mutating func put(_ text: StaticString) {
            position.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
            position += text.utf8CodeUnitCount
        }

        mutating func put(_ step: StepResult) {
            put(#"{"i":"#)
            putInteger(Int64(step.index))
            put(#","k":"#)
            putString(step.key)
            put(#","o":""#)
            // The journal's six step outcomes: a worker's `lost` step is a failed one.
            putString(step.outcome.journaled.rawValue, quoted: false)
            put(#"","u":"#)
            let us = (step.duration * 1e6).rounded()
            putInteger(us.isFinite ? Int64(max(-9e15, min(9e15, us))) : 0)
            if let text = step.message {
                put(#","m":"#)
                putString(text)
            }
            if let text = step.interruptions {
                put(#","x":"#)
                putString(text)
            }
            put(0x7D)  // }
        }

        mutating func putInteger(_ value: Int64) {
            if value < 0 { put(0x2D) }
            var magnitude = value.magnitude
            var digits = 1
            var rest = magnitude / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            position += digits
            var p = position
            repeat {
                p -= 1
                p.pointee = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
            } while magnitude > 0
        }

        /// A JSON string literal (or its inside, `quoted: false`): `"`, `\` and control characters escaped, every
        /// other byte as is.
        mutating func putString(_ s: String, quoted: Bool = true) {
            if quoted { put(0x22) }
            if s.utf8.withContiguousStorageIfAvailable({ putEscaped($0) }) == nil {
                Array(s.utf8).withUnsafeBufferPointer { putEscaped($0) }
            }
            if quoted { put(0x22) }
        }

        private mutating func putEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
            var start = 0
            for i in bytes.indices {
                let byte = bytes[i]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                putBytes(bytes, start..<i)
                start = i + 1
                put(0x5C)
                switch byte {
                case 0x22, 0x5C: put(byte)
                case 0x0A: put(0x6E)  // n
                case 0x09: put(0x74)  // t
                case 0x0D: put(0x72)  // r
                default:
                    put(#"u00"#)
                    put(Self.hex.utf8Start[Int(byte >> 4)])
                    put(Self.hex.utf8Start[Int(byte & 0xF)])
                }
            }
            putBytes(bytes, start..<bytes.count)
        }

        private mutating func putBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            guard let base = bytes.baseAddress, !range.isEmpty else { return }
            position.update(from: base + range.lowerBound, count: range.count)
            position += range.count
        }
    }

    /// An SQL condition that holds when the steps text in `column` shows that its attempt failed: a step that
    /// `failed`, `errored` or `timedOut`, other than a fault of the machinery under the registry (a step failed by
    /// `StepError.infrastructure` is journaled as `failed` with the message `infrastructure fault: …`, and its attempt
    /// is lost, not failed). A failed step ends its scenario, so such an attempt was going to end failed (or timed
    /// out) even if its result never reached the journal: resume counts it as a failed attempt.
    ///
    /// The patterns cannot match inside a string: the encoder escapes every `"` in keys and messages.
    static func failureEvidence(_ column: String) -> String {
        """
        (\(column) LIKE '%"o":"failed"%' OR \(column) LIKE '%"o":"errored"%' OR \(column) LIKE '%"o":"timedOut"%') \
        AND \(column) NOT LIKE '%"m":"\(infrastructurePrefix)%'
        """
    }

    /// How a step's message starts when the registry's machinery failed (the attempt is lost, not failed).
    static let infrastructurePrefix = "infrastructure fault:"

    /// ``failureEvidence(_:)`` for one decoded step: it failed or timed out, not by a fault of the machinery.
    static func showsFailure(_ step: StepResult) -> Bool {
        [.failed, .errored, .timedOut].contains(step.outcome) && !(step.message ?? "").hasPrefix(infrastructurePrefix)
    }

    /// The steps in index order, the last line of each index winning.
    /// - Throws: a ``JournalError`` (`SQLITE_CORRUPT`) naming `what` when a line is not a step.
    static func decode(_ text: String, _ what: @autoclosure () -> String) throws -> [StepResult] {
        var text = text
        return try text.withUTF8 { try decode(bytes: $0, what()) }
    }

    /// As ``decode(_:_:)``, from the UTF-8 bytes of the text (a column's bytes as SQLite holds them).
    static func decode(bytes: UnsafeBufferPointer<UInt8>, _ what: @autoclosure () -> String) throws -> [StepResult] {
        guard !bytes.isEmpty else { return [] }
        var parser = StepLineParser(bytes)
        let lines: [StepLineParser.Line]
        do {
            lines = try parser.lines()
        } catch {
            throw JournalError(code: SQLITE_CORRUPT, message: "unreadable steps of \(what()): \(error)", operation: "read")
        }
        var steps: [StepResult] = []
        steps.reserveCapacity(lines.count)
        for line in lines {
            guard let index = line.i, index >= 0, let key = line.k, let outcome = line.outcome, outcome.journaled == outcome
            else {
                throw JournalError(
                    code: SQLITE_CORRUPT,
                    message: "a step of \(what()) lacks an index, key or known outcome (\(line.o ?? line.outcome?.rawValue ?? "none"))",
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
