import Foundation

/// Applies the job-level records of one stretch of a batch (no run-level record among them), job by job, folding
/// what can be folded:
///
/// - an attempt started in the stretch becomes one `INSERT` with its steps and its result when they are in the
///   stretch too (a passing no-op job: start + 3 steps + result = one row write instead of five);
/// - steps of an attempt started earlier are appended to its row in one `UPDATE`;
/// - a job that finishes in the stretch is not marked `running` first: `jobFinished` sets `done` and the
///   attempt count in the same write.
///
/// A folded write that SQLite refuses is undone by SQLite and its records are applied one by one, so a bad
/// record is rejected exactly as it would have been alone.
struct JobRecordFolder {
    let applier: RecordApplier
    let batch: [JournalRecord]

    private struct JobName: Hashable {
        var runID: String
        var jobID: String
    }

    /// An attempt whose records are being gathered.
    private struct Pending {
        var attempt: Int
        /// Set when the stretch starts the attempt (a new row); nil when the row should exist already.
        var start: (worker: String, at: Date)?
        var steps: [StepResult] = []
        var result: AttemptResult?
        /// The batch positions of the records folded in, in order.
        var indices: [Int]
        /// Whether the job must be marked `running` (it does not finish later in the stretch).
        var markRunning = false
    }

    /// Applies `batch[range]`; every record in it must be a job-level one.
    /// - Throws: only a failure of the transaction as a whole.
    func apply(_ range: Range<Int>, _ tally: inout RecordApplier.Tally) throws {
        let groups = groupsByJobID(range) ?? groupsByRunAndJob(range)
        for group in groups { try applyJob(group, &tally) }
    }

    /// The batch positions of each job's records, jobs in order of first appearance, found by job id alone (one
    /// string hashed per record); nil when one job id appears in two runs, which needs both ids.
    private func groupsByJobID(_ range: Range<Int>) -> [[Int]]? {
        var groupOf: [String: Int] = [:]
        groupOf.reserveCapacity(range.count / 2)
        var groups: [[Int]] = []
        groups.reserveCapacity(range.count / 2)
        var runOf: [String] = []
        runOf.reserveCapacity(range.count / 2)
        for i in range {
            guard let job = batch[i].job else { continue }
            if let g = groupOf[job.jobID] {
                guard runOf[g] == job.runID else { return nil }
                groups[g].append(i)
            } else {
                groupOf[job.jobID] = groups.count
                groups.append([i])
                runOf.append(job.runID)
            }
        }
        return groups
    }

    /// As ``groupsByJobID(_:)``, keyed by run id and job id together.
    private func groupsByRunAndJob(_ range: Range<Int>) -> [[Int]] {
        var groupOf: [JobName: Int] = [:]
        var groups: [[Int]] = []
        for i in range {
            guard let job = batch[i].job else { continue }
            let name = JobName(runID: job.runID, jobID: job.jobID)
            if let g = groupOf[name] {
                groups[g].append(i)
            } else {
                groupOf[name] = groups.count
                groups.append([i])
            }
        }
        return groups
    }

    private func applyJob(_ indices: [Int], _ tally: inout RecordApplier.Tally) throws {
        guard let first = indices.first, let job = batch[first].job else { return }
        let key: Int64
        do {
            key = try applier.jobKey(job.runID, job.jobID)
        } catch {
            // An unknown job: each record is refused as it would be alone.
            for i in indices { try applier.applyOne(batch[i], at: i, &tally) }
            return
        }
        let finishedAt = indices.first { if case .jobFinished = batch[$0] { true } else { false } }
        var pending: [Pending] = []
        var startedBeforeFinish = 0

        func flushAll() throws {
            for p in pending { try flush(p, job, key, &tally) }
            pending.removeAll(keepingCapacity: true)
        }
        /// The pending attempt `attempt`, created (for a row that should exist) if needed.
        func slot(_ attempt: Int) -> Int {
            if let p = pending.firstIndex(where: { $0.attempt == attempt }) { return p }
            pending.append(Pending(attempt: attempt, indices: []))
            return pending.count - 1
        }

        for i in indices {
            switch batch[i] {
            case .attemptStarted(_, _, let attempt, let worker, let at):
                if let p = pending.firstIndex(where: { $0.attempt == attempt }) {
                    try flush(pending.remove(at: p), job, key, &tally)
                }
                let finishesLater = finishedAt.map { i < $0 } ?? false
                if finishesLater { startedBeforeFinish = max(startedBeforeFinish, attempt) }
                pending.append(
                    Pending(attempt: attempt, start: (worker, at), indices: [i], markRunning: !finishesLater))
            case .stepRecorded(_, _, let attempt, let step):
                let p = slot(attempt)
                pending[p].steps.append(step)
                pending[p].indices.append(i)
            case .attemptFinished(_, _, let attempt, let result):
                if let p = pending.firstIndex(where: { $0.attempt == attempt }), pending[p].result != nil {
                    // A second result of the attempt: the first one is written first, this one is a duplicate.
                    try flush(pending.remove(at: p), job, key, &tally)
                }
                let p = slot(attempt)
                pending[p].result = result
                pending[p].indices.append(i)
            case .jobFinished(_, _, let result):
                try flushAll()
                do {
                    try applier.finishJob(key: key, result, attemptsAtLeast: startedBeforeFinish)
                    tally.applied += 1
                } catch {
                    tally.reject(batch[i], at: i, applier.asJournalError(error, "apply jobFinished"))
                }
            case .artifactStored, .runStarted, .runResumed, .jobsPlanned, .runFinished, .attemptCompleted, .visualVerdict:
                // An artifact needs its attempt row; the others never reach here (they end a stretch).
                try flushAll()
                try applier.applyOne(batch[i], at: i, &tally)
            }
        }
        try flushAll()
    }

    /// Writes one gathered attempt of job `key`.
    private func flush(
        _ p: Pending, _ job: (runID: String, jobID: String), _ key: Int64, _ tally: inout RecordApplier.Tally
    ) throws {
        guard let start = p.start else {
            // The row exists (or the records are bad): append the steps, then record the result.
            let stepIndices = p.indices.filter { if case .stepRecorded = batch[$0] { true } else { false } }
            if !p.steps.isEmpty {
                do {
                    try applier.appendSteps(p.steps, key: key, runID: job.runID, jobID: job.jobID, attempt: p.attempt)
                    tally.applied += stepIndices.count
                } catch {
                    let error = applier.asJournalError(error, "apply stepRecorded")
                    for i in stepIndices { tally.reject(batch[i], at: i, error) }
                }
            }
            for i in p.indices where !stepIndices.contains(i) {
                try applier.applyOne(batch[i], at: i, &tally)
            }
            return
        }
        do {
            try applier.insertAttempt(job: key, attempt: p.attempt, start: start, steps: p.steps, result: p.result)
        } catch {
            // Refused (and undone by SQLite): one by one, so each bad record is rejected as if alone.
            for i in p.indices { try applier.applyOne(batch[i], at: i, &tally) }
            return
        }
        tally.applied += p.indices.count
        if p.markRunning {
            try applier.markJobRunning(key: key, attempt: p.attempt)
        }
    }
}
