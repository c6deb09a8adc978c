import FlowVocabulary
import Foundation

/// The status of a run.
public enum RunStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Started and not finished (or the coordinator died: see ``JournalReader/resumeState(run:)``).
    case running
    /// Every job reached a final outcome.
    case completed
    /// Stopped early by the user (Ctrl-C); resumable.
    case interrupted
    /// Stopped by a fatal error; resumable.
    case aborted
}

/// Where a job is in its run.
public enum JobState: String, Sendable, Hashable, CaseIterable, Codable {
    case queued, running, done
}

/// A run as the coordinator starts it.
public struct RunInfo: Sendable, Hashable {
    /// A sortable id such as `20261130-0102-ab12` (see ``RunID``).
    public var runID: String
    public var matrixName: String
    public var matrixPath: String
    public var seed: UInt64
    public var startedAt: Date
    /// The run's settings as JSON text (workers, retries, timeouts…), stored verbatim.
    public var settingsJSON: String

    public init(
        runID: String, matrixName: String, matrixPath: String, seed: UInt64, startedAt: Date,
        settingsJSON: String = "{}"
    ) {
        self.runID = runID
        self.matrixName = matrixName
        self.matrixPath = matrixPath
        self.seed = seed
        self.startedAt = startedAt
        self.settingsJSON = settingsJSON
    }
}

/// A job as the planner produced it.
public struct PlannedJob: Sendable, Hashable {
    /// The stable hex id from the planner (same scenario + configuration + registry → same id every run).
    public var jobID: String
    public var scenarioID: String
    public var scenarioTitle: String
    /// Canonical configuration text `k=v,k=v`.
    public var configuration: String
    /// The same configuration as JSON.
    public var configurationJSON: String
    public var registry: String

    public init(
        jobID: String, scenarioID: String, scenarioTitle: String, configuration: String, configurationJSON: String,
        registry: String
    ) {
        self.jobID = jobID
        self.scenarioID = scenarioID
        self.scenarioTitle = scenarioTitle
        self.configuration = configuration
        self.configurationJSON = configurationJSON
        self.registry = registry
    }
}

/// The result of one attempt.
public struct AttemptResult: Sendable, Hashable {
    public var outcome: JobOutcome
    public var finishedAt: Date
    /// Seconds.
    public var duration: Double
    public var failureStep: Int?
    public var message: String?
    /// A late or duplicate result that no longer decides the job (its lease expired and the job moved on).
    public var superseded: Bool

    public init(
        outcome: JobOutcome, finishedAt: Date, duration: Double, failureStep: Int? = nil, message: String? = nil,
        superseded: Bool = false
    ) {
        self.outcome = outcome
        self.finishedAt = finishedAt
        self.duration = duration
        self.failureStep = failureStep
        self.message = message
        self.superseded = superseded
    }
}

/// One step of an attempt.
public struct StepResult: Sendable, Hashable {
    public var index: Int
    /// The step's key (its verb and target, as the scenario names it).
    public var key: String
    public var outcome: StepOutcome
    /// Seconds.
    public var duration: Double
    public var message: String?
    /// Interruptions handled during the step (alerts dismissed…), as text.
    public var interruptions: String?

    public init(
        index: Int, key: String, outcome: StepOutcome, duration: Double, message: String? = nil,
        interruptions: String? = nil
    ) {
        self.index = index
        self.key = key
        self.outcome = outcome
        self.duration = duration
        self.message = message
        self.interruptions = interruptions
    }
}

/// A job's final result in its run.
public struct JobResult: Sendable, Hashable {
    public var outcome: JobOutcome
    public var attempts: Int
    /// Seconds (of the deciding attempt).
    public var duration: Double?
    public var failureStep: Int?
    public var failureMessage: String?
    public var finishedAt: Date

    public init(
        outcome: JobOutcome, attempts: Int, duration: Double?, failureStep: Int? = nil, failureMessage: String? = nil,
        finishedAt: Date
    ) {
        self.outcome = outcome
        self.attempts = attempts
        self.duration = duration
        self.failureStep = failureStep
        self.failureMessage = failureMessage
        self.finishedAt = finishedAt
    }
}

/// A reference from an attempt's step to a blob in the content-addressed store.
public struct ArtifactReference: Sendable, Hashable {
    public var stepIndex: Int
    public var name: String
    public var mediaType: String
    /// Hex SHA-256 of the compressed (gzip) blob.
    public var sha256: String
    public var compressedSize: Int
    public var rawSize: Int

    public init(stepIndex: Int, name: String, mediaType: String, sha256: String, compressedSize: Int, rawSize: Int) {
        self.stepIndex = stepIndex
        self.name = name
        self.mediaType = mediaType
        self.sha256 = sha256
        self.compressedSize = compressedSize
        self.rawSize = rawSize
    }
}

/// An attempt from its start to its result, in one record.
public struct CompletedAttempt: Sendable, Hashable {
    public var runID: String
    public var jobID: String
    public var attempt: Int
    public var worker: String
    public var startedAt: Date
    /// The steps in the order they finished.
    public var steps: [StepResult]
    public var result: AttemptResult
    /// The job's final result, when this attempt decided it.
    public var job: JobResult?

    public init(
        runID: String, jobID: String, attempt: Int, worker: String, startedAt: Date, steps: [StepResult],
        result: AttemptResult, job: JobResult? = nil
    ) {
        self.runID = runID
        self.jobID = jobID
        self.attempt = attempt
        self.worker = worker
        self.startedAt = startedAt
        self.steps = steps
        self.result = result
        self.job = job
    }
}

/// A visual change that fails a job after its run (docs/VISUAL.md, "A visual change is a verdict"): the step pictures
/// of the job's deciding attempt differ from their baselines under `policy.visual.onChange: fail`.
public struct VisualVerdict: Sendable, Hashable {
    public var runID: String
    public var jobID: String
    /// The attempt whose pictures were compared (the job's deciding, passing attempt).
    public var attempt: Int
    /// The first changed step, 0-based as ``AttemptResult/failureStep``.
    public var failureStep: Int
    /// Names the changed steps and the rule code (`MX053 …`).
    public var message: String

    public init(runID: String, jobID: String, attempt: Int, failureStep: Int, message: String) {
        self.runID = runID
        self.jobID = jobID
        self.attempt = attempt
        self.failureStep = failureStep
        self.message = message
    }
}

/// One fact for the journal. The writer applies records in submission order.
public enum JournalRecord: Sendable, Hashable {
    /// A new run (status `running`).
    case runStarted(RunInfo)
    /// The run continues after the coordinator stopped: status back to `running`; jobs that were `running`
    /// go back to `queued` and their unfinished attempts are closed as superseded `cancelled`.
    case runResumed(runID: String, at: Date)
    /// A batch of planned jobs (state `queued`). Jobs already in the run are left as they are (resume re-plans).
    case jobsPlanned(runID: String, jobs: [PlannedJob])
    /// An attempt was assigned to a worker; the job becomes `running`.
    case attemptStarted(runID: String, jobID: String, attempt: Int, worker: String, at: Date)
    case stepRecorded(runID: String, jobID: String, attempt: Int, step: StepResult)
    /// An attempt's result. The first result of an attempt wins; a duplicate changes nothing.
    case attemptFinished(runID: String, jobID: String, attempt: Int, result: AttemptResult)
    /// The job's final outcome; also appended to the cross-run history.
    case jobFinished(runID: String, jobID: String, result: JobResult)
    case artifactStored(runID: String, jobID: String, attempt: Int, artifact: ArtifactReference)
    /// An attempt's start, steps and result at once (and the job's final result when the attempt decided it):
    /// the same rows as `attemptStarted` + `stepRecorded`… + `attemptFinished` (+ `jobFinished`), written as one
    /// attempt row. The first result of an attempt wins: a duplicate leaves the attempt as it was.
    indirect case attemptCompleted(CompletedAttempt)
    case runFinished(runID: String, status: RunStatus, at: Date)
    /// A passed attempt and its passed or flaky job become `failed` with the verdict's step and message (written when
    /// the run's pictures are compared, after it ended). A job or attempt that is not passing is left as it is.
    case visualVerdict(VisualVerdict)

    /// The record's kind, for diagnostics (`attemptFinished`).
    public var kind: String {
        switch self {
        case .runStarted: "runStarted"
        case .runResumed: "runResumed"
        case .jobsPlanned: "jobsPlanned"
        case .attemptStarted: "attemptStarted"
        case .stepRecorded: "stepRecorded"
        case .attemptFinished: "attemptFinished"
        case .jobFinished: "jobFinished"
        case .artifactStored: "artifactStored"
        case .attemptCompleted: "attemptCompleted"
        case .runFinished: "runFinished"
        case .visualVerdict: "visualVerdict"
        }
    }
}

/// Sortable run ids: `yyyyMMdd-HHmm-xxxx` (UTC wall time, then 4 hex digits that separate runs started in
/// the same minute). Sorting the text sorts by start time.
public enum RunID {
    /// The run id for a run started at `date`, with `suffix` as the last four hex digits.
    public static func make(at date: Date, suffix: UInt16) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let hex = String(suffix, radix: 16)
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "-"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + "-" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// A fresh run id for `date` with a random suffix.
    public static func generate(at date: Date) -> String {
        make(at: date, suffix: UInt16.random(in: 0...UInt16.max))
    }
}
