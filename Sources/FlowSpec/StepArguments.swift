/// How step arguments are read. FlowSpec files write `arg` as a plain string (a timeout is `"5"`).
///
/// - `wait`: `arg` is the timeout in seconds (`"5"`, `"0.5"`); absent means the runner's default. A timeout is a
///   plain decimal number (no exponent, no hex, no `inf`) above 0 and at most `maximumTimeoutSeconds`.
/// - `assert`: `arg` is a `;`-separated list of clauses. A clause that is a number, or `timeout=N`, is the
///   timeout in seconds; every other clause (`text=Hello`, `absent`, `no-truncation`) is an expectation that
///   the registry interprets. Absent means "the target exists", with the default timeout.
/// - `swipe`: `up`, `down`, `left` or `right`. `rotate`: `portrait` or `landscape`. `type`: the text.
public enum StepArguments {
    /// The longest timeout a step may give: one day, like a matrix's per-job timeout.
    public static let maximumTimeoutSeconds: Double = 86_400

    /// A timeout that could not be read.
    public enum TimeoutProblem: Error, Sendable, Hashable {
        /// Not a plain decimal number (`"soon"`, `"0x10"`, `"1e3"`, `"inf"`).
        case notNumeric(String)
        /// Zero or negative.
        case notPositive(String)
        /// Above `maximumTimeoutSeconds` (`"99999999999"`).
        case outOfRange(String)
    }

    /// Parses a timeout written in seconds: `[+-]digits[.digits]` or `[+-].digits`, above 0 and at most
    /// `maximumTimeoutSeconds`. Never traps, whatever the text.
    public static func parseSeconds(_ text: String) -> Result<Duration, TimeoutProblem> {
        let trimmed = text.trimmingSpaces
        guard isPlainDecimal(trimmed) else { return .failure(.notNumeric(text)) }
        // A decimal too long for a Double reads as ±infinity: out of range (or not positive), never a trap.
        let seconds = Double(trimmed) ?? (trimmed.hasPrefix("-") ? -.infinity : .infinity)
        guard seconds > 0 else { return .failure(.notPositive(text)) }
        guard seconds <= maximumTimeoutSeconds else { return .failure(.outOfRange(text)) }
        return .success(.nanoseconds(Int64((seconds * 1e9).rounded())))
    }

    /// True for an optional sign, then digits with at most one `.` and at least one digit (no exponent, no hex,
    /// no `inf`/`nan`, which `Double.init` would accept).
    static func isPlainDecimal(_ text: String) -> Bool {
        var utf8 = Substring(text).utf8[...]
        if let first = utf8.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { utf8 = utf8.dropFirst() }
        var digits = 0
        var dots = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): dots += 1
            default: return false
            }
        }
        return digits > 0 && dots <= 1
    }

    /// The timeout of a `wait` step: nil when the step gives none.
    public static func waitTimeout(_ step: Step) -> Result<Duration?, TimeoutProblem> {
        guard let arg = step.arg else { return .success(nil) }
        return parseSeconds(arg).map { Optional($0) }
    }

    /// The parsed argument of an `assert` step.
    public struct Assertion: Sendable, Hashable {
        /// The timeout, when the step names one.
        public var timeout: Duration?
        /// The expectation clauses in order, e.g. `["text=Hello", "no-truncation"]`.
        public var expectations: [String]

        /// The value of a `key=value` expectation, e.g. `value(of: "text")`.
        public func value(of key: String) -> String? {
            for clause in expectations {
                if let eq = clause.firstIndex(of: "="), clause[..<eq] == key {
                    return String(clause[clause.index(after: eq)...])
                }
            }
            return nil
        }

        /// True when a bare expectation (`absent`, `no-truncation`) is present.
        public func has(_ word: String) -> Bool { expectations.contains(word) }
    }

    /// Parses an `assert` step's argument.
    public static func assertion(_ step: Step) -> Result<Assertion, TimeoutProblem> {
        var result = Assertion(timeout: nil, expectations: [])
        guard let arg = step.arg else { return .success(result) }
        for raw in arg.split(separator: ";", omittingEmptySubsequences: true) {
            let clause = String(raw).trimmingSpaces
            if clause.isEmpty { continue }
            if clause.hasPrefix("timeout=") {
                switch parseSeconds(String(clause.dropFirst("timeout=".count))) {
                case .success(let d): result.timeout = d
                case .failure(let problem): return .failure(problem)
                }
            } else if let first = clause.first, first.isNumber || first == "-" || first == "+" || first == "." {
                switch parseSeconds(clause) {
                case .success(let d): result.timeout = d
                case .failure(let problem): return .failure(problem)
                }
            } else {
                result.expectations.append(clause)
            }
        }
        return .success(result)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (Foundation-free).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
