/// Why a DevTools operation failed: a stable code and a sentence a user can act on.
public struct DevToolsError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The browser could not be started (missing executable, spawn failure, no answer).
        case launchFailed = "launch-failed"
        /// A message from the browser is not JSON, or not a DevTools response or event.
        case malformedMessage = "malformed-message"
        /// A response names a command id nobody is waiting for.
        case unexpectedMessage = "unexpected-message"
        /// The browser answered a command with an error.
        case commandFailed = "command-failed"
        /// The browser did not answer a command in time.
        case timedOut = "timed-out"
        /// The browser process exited or its pipe closed.
        case browserClosed = "browser-closed"
        /// The page's renderer crashed, or its target went away.
        case targetCrashed = "target-crashed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// True for faults of the browser itself rather than of the page under test.
    public var isInfrastructure: Bool { code == .browserClosed || code == .launchFailed }

    public var description: String { "\(message) [devtools \(code.rawValue)]" }
}
