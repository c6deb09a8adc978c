import FlowVocabulary
import Foundation

/// A run as the journal holds it.
public struct RunSummary: Sendable, Hashable {
    public var info: RunInfo
    public var status: RunStatus
    public var finishedAt: Date?
    /// Jobs planned in the run.
    public var jobCount: Int
    /// Jobs with a final outcome, by outcome.
    public var outcomes: [JobOutcome: Int]
}

/// A job of a run with its state and final outcome.
public struct JobRow: Sendable, Hashable {
    public var job: PlannedJob
    /// Position in the plan (0-based, in `jobsPlanned` order).
    public var ordinal: Int
    public var state: JobState
    /// Set once the job is `done`.
    public var result: JobResult?
}

/// One attempt of a job.
public struct AttemptRow: Sendable, Hashable {
    public var attempt: Int
    public var worker: String
    public var startedAt: Date?
    /// Nil while the attempt runs.
    public var result: AttemptResult?
}

/// An attempt with its steps in step order.
public struct AttemptWithSteps: Sendable, Hashable {
    public var attempt: AttemptRow
    public var steps: [StepResult]
}

/// A job with its attempts (each with its steps) and artifact references, as
/// ``JournalReader/forEachJob(run:_:)`` streams it.
public struct JobDetail: Sendable, Hashable {
    public var row: JobRow
    /// In attempt order (superseded ones included, flagged).
    public var attempts: [AttemptWithSteps]
    /// By attempt number, each in step then name order.
    public var artifacts: [Int: [ArtifactReference]]
}

/// A stored artifact reference with where it belongs.
public struct ArtifactRow: Sendable, Hashable {
    public var runID: String
    public var jobID: String
    public var attempt: Int
    public var artifact: ArtifactReference
}

/// What a resumed run still has to do.
public struct ResumeState: Sendable, Hashable {
    /// Jobs that reached a final outcome: they stay as they are (never `notRun` or `cancelled`:
    /// ``FlowVocabulary/JobOutcome/staysFinalOnResume``).
    public var done: [String: JobOutcome]
    /// Jobs that must run (again), in plan order: never started, in flight when the coordinator stopped, or ended
    /// `notRun` or `cancelled` when the run was interrupted.
    public var pending: [String]
    /// The next attempt number of each pending job (attempt numbers continue after a resume).
    public var nextAttempt: [String: Int]
    /// Failed attempts each pending job already made — a `failed` or `timedOut` result, or a failing step journaled
    /// without its result (see ``JournalReader/resumeState(run:)``): they count against its retry budget, make a
    /// later pass `flaky`, and set the seed of its next attempt.
    public var failures: [String: Int] = [:]

    public init(done: [String: JobOutcome], pending: [String], nextAttempt: [String: Int], failures: [String: Int] = [:]) {
        self.done = done
        self.pending = pending
        self.nextAttempt = nextAttempt
        self.failures = failures
    }

    /// Moves the pending jobs whose failed attempts already used up `retries` (the last of them failed, its result
    /// or only its failing step journaled, when the coordinator stopped) to `done` as `failed`: an uninterrupted run
    /// would have ended them there, so a resume must not make another attempt.
    /// - Returns: their ids, in plan order; their final results are still to be journaled
    ///   (``JournalReader/lastFailure(run:job:)`` says how they ended).
    public mutating func settleExhausted(retries: Int) -> [String] {
        let exhausted = pending.filter { (failures[$0] ?? 0) > retries }
        guard !exhausted.isEmpty else { return [] }
        let settled = Set(exhausted)
        pending.removeAll { settled.contains($0) }
        for id in exhausted {
            done[id] = .failed
            nextAttempt[id] = nil
            failures[id] = nil
        }
        return exhausted
    }
}

/// A job's last failed attempt, read when a resume finds the job's retries used up: what its final result says.
public struct PriorFailure: Sendable, Hashable {
    public var attempt: Int
    /// `failed`, or `timedOut` when the attempt's result said so.
    public var outcome: JobOutcome
    /// Seconds, when the attempt's result reached the journal.
    public var duration: Double?
    /// The failing step's index (0-based, as journaled), when known.
    public var failureStep: Int?
    public var message: String?

    public init(attempt: Int, outcome: JobOutcome, duration: Double?, failureStep: Int?, message: String?) {
        self.attempt = attempt
        self.outcome = outcome
        self.duration = duration
        self.failureStep = failureStep
        self.message = message
    }
}

/// Median durations from the cross-run history.
public struct DurationEstimates: Sendable, Hashable {
    /// Median duration (seconds) per job id, over the job's recent runs.
    public var perJob: [String: Double]
    /// The median of the per-job medians: the estimate for a job without history. Nil without any history.
    public var overall: Double?

    /// The expected duration of `jobID`: its own median, else the overall median, else `fallback`.
    public func expected(_ jobID: String, fallback: Double = 1) -> Double {
        perJob[jobID] ?? overall ?? fallback
    }
}

/// A job's outcomes across runs.
public struct FlakinessStats: Sendable, Hashable {
    public var runs: Int
    public var passed: Int
    public var failed: Int
    public var flaky: Int

    public init(runs: Int, passed: Int, failed: Int, flaky: Int) {
        self.runs = runs
        self.passed = passed
        self.failed = failed
        self.flaky = flaky
    }

    /// Share of runs that were flaky or mixed pass/fail over the window (0…1).
    public var flakeRate: Double { runs == 0 ? 0 : Double(flaky) / Double(runs) }
}

/// One result of a job in the cross-run history.
public struct HistoryEntry: Sendable, Hashable {
    public var runID: String
    public var outcome: JobOutcome
    /// Seconds.
    public var duration: Double?
}
