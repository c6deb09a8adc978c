/// A command-line usage error (an unknown option, a missing or bad value, a missing argument): printed as
/// `Error: <message>` then the command's usage line, and the process exits 64 (sysexits EX_USAGE).
public struct UsageError: Error, Sendable, Equatable {
    /// A plain-language sentence naming what was wrong, e.g. `unknown option '--wrokers'`.
    public var message: String
    public init(_ message: String) { self.message = message }
}
