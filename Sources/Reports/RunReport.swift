import FlowVocabulary
import Foundation
import Journal

/// What a heat-map cell shows for a job.
public enum CellStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case passed, failed, flaky, timedOut, quarantined, notRun

    /// The status of a job: its final outcome, or `notRun` while it has none (cancelled jobs count as not run).
    public init(_ row: JobRow) {
        switch row.result?.outcome {
        case .passed: self = .passed
        case .failed: self = .failed
        case .flaky: self = .flaky
        case .timedOut: self = .timedOut
        case .quarantined: self = .quarantined
        case .cancelled, .notRun, nil: self = .notRun
        }
    }

    /// Human words (`timed out`).
    public var label: String {
        switch self {
        case .passed: "passed"
        case .failed: "failed"
        case .flaky: "flaky"
        case .timedOut: "timed out"
        case .quarantined: "quarantined"
        case .notRun: "not run"
        }
    }

    /// Failed or timed out: what the pivot counts as a failure.
    public var isFailure: Bool { self == .failed || self == .timedOut }

    /// A job that ran to a verdict (passed, failed, flaky, timed out): what the pivot counts.
    public var isVerdict: Bool { self != .quarantined && self != .notRun }
}

/// One attempt of a job with its steps and stored artifacts.
public struct AttemptReport: Sendable, Hashable {
    public var row: AttemptRow
    /// In step order.
    public var steps: [StepResult]
    /// In step, then name order.
    public var artifacts: [ArtifactReference]

    public var attempt: Int { row.attempt }
    public var outcome: JobOutcome? { row.result?.outcome }
    public var superseded: Bool { row.result?.superseded ?? false }
}

/// A job of the run with everything the report shows about it.
///
/// A class of constants, not a struct: a report hands each of a run's jobs through four threads and a dozen writers,
/// and copying a struct of some twenty strings and arrays retained every one of them at each step (a tenth of a large
/// report's CPU); a reference is one retain. Equality and hashing are by value.
public final class JobReport: Sendable, Hashable {
    public let row: JobRow
    /// The configuration's axes, sorted by axis name.
    public let axes: [AxisValue]
    public let status: CellStatus
    /// In attempt order.
    public let attempts: [AttemptReport]

    public init(row: JobRow, axes: [AxisValue], status: CellStatus, attempts: [AttemptReport]) {
        self.row = row
        self.axes = axes
        self.status = status
        self.attempts = attempts
    }

    public static func == (a: JobReport, b: JobReport) -> Bool {
        a === b || (a.row == b.row && a.axes == b.axes && a.status == b.status && a.attempts == b.attempts)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(row)
        hasher.combine(axes)
        hasher.combine(status)
        hasher.combine(attempts)
    }

    public var id: String { row.job.jobID }
    public var job: PlannedJob { row.job }

    /// The attempt that decided the outcome: the last one not superseded (or the last one).
    public var decidingAttempt: AttemptReport? {
        attempts.last { !$0.superseded && $0.outcome != nil } ?? attempts.last
    }
}

/// A run read from the journal: the single input of every report format.
public struct RunReport: Sendable, Hashable {
    public var run: RunSummary
    /// In plan order.
    public var jobs: [JobReport]
    /// Every axis name of the run's configurations, sorted.
    public var axisNames: [String]
    /// Registries of the run, sorted.
    public var registries: [String]
    /// Workers that ran at least one attempt, sorted.
    public var workers: [String]
    /// Attempts started (superseded ones included).
    public var attemptCount: Int
    /// Wall time of the run in seconds: start to finish, or to the last finished job while it runs. Nil before any job finished.
    public var duration: Double?

    public var runID: String { run.info.runID }

    /// Jobs by cell status (every status present, zero when none).
    public var counts: [CellStatus: Int] {
        var counts = Dictionary(uniqueKeysWithValues: CellStatus.allCases.map { ($0, 0) })
        for job in jobs { counts[job.status, default: 0] += 1 }
        return counts
    }

    /// Jobs with a final outcome per second of run time.
    public var jobsPerSecond: Double? {
        guard let duration, duration > 0 else { return nil }
        return Double(jobs.reduce(0) { $0 + ($1.row.result?.outcome != nil ? 1 : 0) }) / duration
    }

    /// Reads run `runID` with its jobs, attempts, steps and artifact references, all in memory (the report writer
    /// streams instead; this is for callers that want the whole run as values).
    /// - Throws: ``ReportError`` `.unknownRun`, or the journal's error.
    public static func load(runID: String, reader: JournalReader) throws -> RunReport {
        guard let run = try reader.run(runID) else { throw ReportError.unknownRun(runID) }
        var jobs: [JobReport] = []
        try reader.forEachJob(run: runID) { jobs.append(JobReport($0)) }
        let workers = Set(jobs.flatMap { $0.attempts.map(\.row.worker) }).subtracting([""])
        let lastFinish = jobs.compactMap(\.row.result?.finishedAt).max()
        let end = run.finishedAt ?? lastFinish
        return RunReport(
            run: run, jobs: jobs,
            axisNames: Set(jobs.flatMap { $0.axes.map(\.axis) }).sorted(),
            registries: Set(jobs.map(\.job.registry)).sorted(),
            workers: workers.sorted(), attemptCount: jobs.reduce(0) { $0 + $1.attempts.count },
            duration: end.map { max(0, $0.timeIntervalSince(run.info.startedAt)) }
        )
    }
}

extension JobReport {
    /// A job as the journal streams it.
    convenience init(_ detail: JobDetail, axes: [AxisValue]? = nil) {
        let row = detail.row
        self.init(
            row: row, axes: axes ?? AxisValue.parse(configuration: row.job.configuration, json: row.job.configurationJSON),
            status: CellStatus(row),
            attempts: detail.attempts.map { a in
                AttemptReport(row: a.attempt, steps: a.steps, artifacts: detail.artifacts[a.attempt.attempt] ?? [])
            })
    }
}
