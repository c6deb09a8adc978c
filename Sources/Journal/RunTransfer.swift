import CSQLite
import Foundation

/// Everything the journal holds about one run: the rows a merge copies into another journal.
public struct RunContent: Sendable, Hashable {
    public var summary: RunSummary
    /// In plan order.
    public var jobs: [JobRow]
    /// By job id, each job's in attempt order, with steps.
    public var attempts: [String: [AttemptWithSteps]]
    /// Ordered by job, attempt, step, name.
    public var artifacts: [ArtifactRow]
}

extension JournalReader {
    /// The run's jobs, attempts with their steps, and artifact references.
    /// - Throws: ``JournalError`` (`SQLITE_NOTFOUND`) when the journal has no such run.
    public func content(run runID: String) throws -> RunContent {
        guard let summary = try run(runID) else {
            throw JournalError(code: SQLITE_NOTFOUND, message: "no run \(runID) in the journal", operation: "read run")
        }
        var attempts: [String: [AttemptWithSteps]] = [:]
        try forEachJob(run: runID) { detail in
            if !detail.attempts.isEmpty { attempts[detail.row.job.jobID] = detail.attempts }
        }
        return RunContent(summary: summary, jobs: try jobs(run: runID), attempts: attempts, artifacts: try artifacts(run: runID))
    }
}

/// Copies runs between journals as records, so the copy goes through the writer like any run does and
/// reads back exactly as the original (outcomes, attempts, steps, messages, times, artifact references).
public enum RunTransfer {
    /// The records that write `parts` (runs of other journals) as **one** run described by `info`.
    ///
    /// Jobs are written in `order` (job id → position; jobs without a position go last, in part order), each
    /// job with its attempts (start, worker, steps and result as recorded), its final result and its
    /// artifacts; the run ends with `status` at `finishedAt`.
    public static func records(
        merging parts: [RunContent], as info: RunInfo, order: [String: Int], status: RunStatus, finishedAt: Date
    ) -> [JournalRecord] {
        var rows: [(position: Int, part: Int, row: JobRow)] = []
        for (p, part) in parts.enumerated() {
            for row in part.jobs { rows.append((order[row.job.jobID] ?? Int.max, p, row)) }
        }
        rows.sort { a, b in
            a.position != b.position ? a.position < b.position
                : a.part != b.part ? a.part < b.part : a.row.ordinal < b.row.ordinal
        }
        let runID = info.runID
        var records: [JournalRecord] = [.runStarted(info), .jobsPlanned(runID: runID, jobs: rows.map(\.row.job))]
        for (_, p, row) in rows {
            let jobID = row.job.jobID
            for a in parts[p].attempts[jobID] ?? [] {
                let attempt = a.attempt
                if let result = attempt.result {
                    records.append(.attemptCompleted(CompletedAttempt(
                        runID: runID, jobID: jobID, attempt: attempt.attempt, worker: attempt.worker,
                        startedAt: attempt.startedAt ?? result.finishedAt, steps: a.steps, result: result)))
                } else {
                    records.append(.attemptStarted(
                        runID: runID, jobID: jobID, attempt: attempt.attempt, worker: attempt.worker,
                        at: attempt.startedAt ?? info.startedAt))
                    for step in a.steps {
                        records.append(.stepRecorded(runID: runID, jobID: jobID, attempt: attempt.attempt, step: step))
                    }
                }
            }
            if let result = row.result { records.append(.jobFinished(runID: runID, jobID: jobID, result: result)) }
        }
        for part in parts {
            for a in part.artifacts {
                records.append(.artifactStored(runID: runID, jobID: a.jobID, attempt: a.attempt, artifact: a.artifact))
            }
        }
        records.append(.runFinished(runID: runID, status: status, at: finishedAt))
        return records
    }
}
