import Foundation
import Journal

/// What the coordinator journals about attempts, and when.
///
/// An attempt's start is held back for `startDelay`: an attempt whose result arrives before then (nearly every
/// attempt of a large run) is journaled as **one** `attemptCompleted` record — start, steps and result, and the
/// job's final result when this attempt decided it — which the writer stores as one row. An attempt still
/// running after `startDelay` (checked on each tick), or one whose artifacts are being stored, gets its
/// `attemptStarted` and the steps so far at once; its later steps and result follow as separate records.
///
/// Nothing that resume needs is lost by the delay: an attempt in flight when the coordinator dies runs again
/// either way (a start never journaled only means the job resumes as `queued` instead of `running`, with the
/// same attempt number, which no stored row uses).
struct AttemptJournal {
    private struct InFlight {
        var attempt: Int
        var jobID: String
        var worker: String
        var startedAt: Date
        /// When the attempt was assigned, on the engine's clock.
        var assignedAt: Duration
        var steps: [StepResult] = []
    }

    let runID: String
    let startDelay: Duration
    /// Attempts whose start is not journaled yet, by job index.
    private var held: [Int: InFlight] = [:]

    init(runID: String, startDelay: Duration) {
        self.runID = runID
        self.startDelay = startDelay
    }

    /// An attempt was assigned. A held attempt of the same job (the job moved on without its result) is journaled
    /// first, so its late result finds its row.
    mutating func started(
        job: Int, jobID: String, attempt: Int, worker: String, at date: Date, now: Duration, steps: Int,
        into records: inout [JournalRecord]
    ) {
        journalStart(job: job, into: &records)
        var inFlight = InFlight(attempt: attempt, jobID: jobID, worker: worker, startedAt: date, assignedAt: now)
        inFlight.steps.reserveCapacity(steps)  // one allocation for the attempt's steps
        held[job] = inFlight
    }

    /// Steps of an attempt finished.
    mutating func steps(job: Int, jobID: String, attempt: Int, _ steps: some Collection<StepResult>,
                        into records: inout [JournalRecord]) {
        if let i = held.index(forKey: job), held.values[i].attempt == attempt {
            held.values[i].steps.append(contentsOf: steps)  // in place: one hash lookup for them all
        } else {
            for step in steps { records.append(.stepRecorded(runID: runID, jobID: jobID, attempt: attempt, step: step)) }
        }
    }

    /// An attempt has its result; `job` is the job's final result when this attempt decided it and the caller
    /// knows so already (it then goes into the one record; see ``finished(jobID:_:completed:into:)``).
    /// - Returns: the position in `records` of the `attemptCompleted` record written for it (to attach the job's
    ///   result to), or nil when its start had been journaled already.
    mutating func ended(
        job: Int, jobID: String, attempt: Int, _ result: AttemptResult, job final: JobResult? = nil,
        into records: inout [JournalRecord]
    ) -> Int? {
        if !result.superseded, let attemptInFlight = held.removeValue(forKey: job) {
            if attemptInFlight.attempt == attempt {
                records.append(
                    .attemptCompleted(
                        CompletedAttempt(
                            runID: runID, jobID: jobID, attempt: attempt, worker: attemptInFlight.worker,
                            startedAt: attemptInFlight.startedAt, steps: attemptInFlight.steps, result: result,
                            job: final)))
                return records.count - 1
            }
            held[job] = attemptInFlight
        }
        if held[job]?.attempt == attempt { journalStart(job: job, into: &records) }
        records.append(.attemptFinished(runID: runID, jobID: jobID, attempt: attempt, result: result))
        return nil
    }

    /// The job reached its final result; `completed` is what ``ended(job:jobID:attempt:_:into:)`` returned for
    /// the deciding attempt in the same batch of records, if anything.
    func finished(jobID: String, _ result: JobResult, completed: Int?, into records: inout [JournalRecord]) {
        if let completed, case .attemptCompleted(var attempt) = records[completed], attempt.jobID == jobID {
            attempt.job = result
            records[completed] = .attemptCompleted(attempt)
        } else {
            records.append(.jobFinished(runID: runID, jobID: jobID, result: result))
        }
    }

    /// Journals the start (and the steps so far) of `job`'s held attempt, if it has one; `attempt` narrows it.
    mutating func journalStart(job: Int, attempt: Int? = nil, into records: inout [JournalRecord]) {
        guard let inFlight = held[job], attempt == nil || inFlight.attempt == attempt else { return }
        held[job] = nil
        records.append(
            .attemptStarted(
                runID: runID, jobID: inFlight.jobID, attempt: inFlight.attempt, worker: inFlight.worker,
                at: inFlight.startedAt))
        for step in inFlight.steps {
            records.append(.stepRecorded(runID: runID, jobID: inFlight.jobID, attempt: inFlight.attempt, step: step))
        }
    }

    /// Journals the starts of attempts held for `startDelay` or longer.
    mutating func journalLongRunning(now: Duration, into records: inout [JournalRecord]) {
        let due = held.filter { now - $0.value.assignedAt >= startDelay }.keys.sorted()
        for job in due { journalStart(job: job, into: &records) }
    }
}
