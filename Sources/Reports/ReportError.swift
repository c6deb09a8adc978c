import Foundation

/// A report failure with a stable code and a sentence a user can act on.
public struct ReportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The journal has no run with that id.
        case unknownRun
        /// `--baseline last` found no run before the reported one.
        case noBaseline
        /// An output file or folder could not be written.
        case output
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    static func unknownRun(_ runID: String) -> ReportError {
        ReportError(code: .unknownRun, message: "no run '\(runID)' in the journal")
    }

    public var description: String { "report: \(message)" }
}
