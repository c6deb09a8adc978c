import Coordinator
import FlowSpec
import FlowVocabulary
import Foundation
import Journal

/// How a run ended (its summary), for the caller to print and turn into an exit code. Named apart from the
/// journal's `RunSummary`, which is a stored run's row.
public struct RunResult: Sendable {
    public var runID: String
    public var status: RunStatus
    /// The coordinator's last progress: outcomes per job, attempts, artifacts.
    public var progress: RunProgress
    /// From the first assignment the coordinator could make to the last result.
    public var elapsed: Duration
    /// Jobs already final before this session (resume).
    public var alreadyFinal: Int
    /// The journal's first failed commit: the run stopped, no reports were written.
    public var journalFailure: JournalError?
    /// What writing the reports said (nil when the request has no report step or the journal failed).
    public var report: RunReportNote?

    /// Failed, timed-out and quarantined jobs.
    public var failures: Int { progress.count(.failed) + progress.count(.timedOut) + progress.count(.quarantined) }
    /// Jobs that never ran (fail-fast or an interrupt stopped dispatching).
    public var notRun: Int { progress.count(.notRun) + progress.count(.cancelled) }
    /// Jobs that ran in this session (not those final before a resume, not those that never ran).
    public var ran: Int { max(0, progress.done - alreadyFinal - notRun) }
}

extension RunProgress {
    /// Moves the jobs a visual change failed after the run (``RunReportNote/visualVerdicts``, by the outcome each
    /// had) to `failed`, so the summary and the exit code say what the journal says (docs/VISUAL.md).
    public mutating func applyVisualVerdicts(_ moved: [JobOutcome: Int]) {
        for (outcome, count) in moved where count > 0 && outcome != .failed {
            outcomes[outcome] = max(0, (outcomes[outcome] ?? 0) - count)
            outcomes[.failed, default: 0] += count
        }
    }
}

/// Why a run did not start or could not go on. Every code has a documented exit code in the CLI.
public struct RunError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The request is incomplete (no matrix).
        case usage
        /// The matrix, its corpus or the request has findings; nothing runs (`findings` lists them).
        case invalidInput
        /// The store, the journal, the port or the live view cannot be used.
        case io
    }

    public var code: Code
    public var message: String
    /// The matrix's or corpus's findings, in display order (``Code/invalidInput``).
    public var findings: [ValidationFinding]

    public init(_ code: Code, _ message: String, findings: [ValidationFinding] = []) {
        self.code = code
        self.message = message
        self.findings = findings
    }

    public var description: String { message }
}
