import CSQLite
import Foundation

/// Applies journal records to the writer's connection: one transaction per batch.
///
/// A batch is applied in order, except that the records of one job between two records that stand alone
/// (`runStarted`, `runResumed`, `jobsPlanned`, `runFinished`, `attemptCompleted`) are applied together (see
/// ``JobRecordFolder``):
/// an attempt that starts, records its steps and finishes within one batch becomes **one** row write, and
/// the job's state one more. Records of different jobs touch different rows, so the order between jobs does not
/// change the result.
///
/// A bad record is rolled back alone: either the statement that refuses it is its first change (SQLite undoes
/// a failed statement), or, for records that change many rows (`jobsPlanned`, `runResumed`), the record runs in
/// a savepoint; a folded write that fails is undone and its records are applied one by one, so each bad one
/// is rejected as if it had come alone. Rejections are reported in submission order. Writer-thread confined.
final class RecordApplier {
    struct BatchOutcome {
        var applied = 0
        var duplicates = 0
        var rejections: [JournalWriter.Rejection] = []
        /// Set when the transaction as a whole failed (nothing of the batch was committed).
        var failure: JournalError?
    }

    /// What applying records of a batch has produced so far.
    struct Tally {
        var applied = 0
        var duplicates = 0
        /// With the record's position in the batch, to report them in submission order.
        var rejections: [(index: Int, rejection: JournalWriter.Rejection)] = []

        mutating func reject(_ record: JournalRecord, at index: Int, _ error: JournalError) {
            rejections.append((index, JournalWriter.Rejection(kind: record.kind, error: error)))
        }
    }

    let connection: SQLiteConnection
    let sql: JournalStatements

    init(connection: SQLiteConnection) throws {
        self.connection = connection
        self.sql = try JournalStatements(connection)
    }

    /// Applies `batch` in one transaction.
    func apply(_ batch: [JournalRecord]) -> BatchOutcome {
        var outcome = BatchOutcome()
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            outcome.failure = asJournalError(error, "begin transaction")
            return outcome
        }
        var tally = Tally()
        do {
            var start = 0
            while start < batch.count {
                guard batch[start].job != nil else {
                    try applyOne(batch[start], at: start, &tally)
                    start += 1
                    continue
                }
                var end = start + 1
                while end < batch.count, batch[end].job != nil { end += 1 }
                let folder = JobRecordFolder(applier: self, batch: batch)
                try folder.apply(start..<end, &tally)
                start = end
            }
            try connection.run("COMMIT")
            outcome.applied = tally.applied
            outcome.duplicates = tally.duplicates
            outcome.rejections = tally.rejections.sorted { $0.index < $1.index }.map(\.rejection)
        } catch {
            outcome.failure = asJournalError(error, "commit")
            forgetKeys()
            do {
                try connection.run("ROLLBACK")
            } catch {
                // The transaction is already gone (SQLite rolls back on some I/O errors); the failure above
                // is what callers need to see, and it is reported through `outcome.failure`.
                outcome.failure = outcome.failure ?? asJournalError(error, "rollback")
            }
        }
        return outcome
    }

    /// A record that could not be applied; the batch goes on.
    struct RecordError: Error {
        var error: JournalError
    }

    func asJournalError(_ error: any Error, _ operation: String) -> JournalError {
        error as? JournalError ?? JournalError(code: SQLITE_ERROR, message: "\(error)", operation: operation)
    }

    /// Runs `body` inside a savepoint: on failure everything it did is undone and a RecordError is thrown.
    /// An error while undoing is a transaction-level failure (rethrown as is).
    private func atomically(_ kind: String, _ body: () throws -> Void) throws {
        try connection.run("SAVEPOINT record")
        do {
            try body()
        } catch {
            forgetKeys()
            try connection.run("ROLLBACK TO record")
            try connection.run("RELEASE record")
            throw RecordError(error: asJournalError(error, "apply \(kind)"))
        }
        try connection.run("RELEASE record")
    }

    /// Runs a single statement; SQLite undoes a failing statement by itself.
    private func single(_ kind: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw RecordError(error: asJournalError(error, "apply \(kind)"))
        }
    }

    // MARK: - Key lookups (cached; the writer is the only writer of its runs)

    private var keys = KeyCache()

    /// Forgets cached keys: after a rollback they may name rows that no longer exist.
    func forgetKeys() {
        keys.removeAll()
    }

    func runKey(_ runID: String) throws -> Int64 {
        if let key = keys.run(runID) { return key }
        guard let key = try connection.scalarInt64("SELECT run_key FROM runs WHERE run_id = ?", [.text(runID)]) else {
            throw JournalError(
                code: SQLITE_NOTFOUND, message: "no run \(runID) in the journal", operation: "look up run")
        }
        keys.setRun(key, for: runID)
        return key
    }

    func jobKey(_ runID: String, _ jobID: String) throws -> Int64 {
        if let key = keys.job(runID, jobID) { return key }
        let run = try runKey(runID)
        guard
            let key = try connection.scalarInt64(
                "SELECT job_key FROM jobs WHERE run_key = ? AND job_id = ?", [.int(run), .text(jobID)]
            )
        else {
            throw JournalError(
                code: SQLITE_NOTFOUND, message: "no job \(jobID) in run \(runID)", operation: "look up job")
        }
        keys.setJob(key, for: runID, jobID)
        return key
    }

    // MARK: - One record at a time

    /// Applies one record, counting it in `tally` (applied, duplicate, or rejected).
    /// - Throws: only a failure of the transaction as a whole.
    func applyOne(_ record: JournalRecord, at index: Int, _ tally: inout Tally) throws {
        do {
            if try applyOne(record) { tally.applied += 1 } else { tally.duplicates += 1 }
        } catch let error as RecordError {
            tally.reject(record, at: index, error.error)
        }
    }

    /// Applies one record; false when it was a duplicate that changed nothing.
    private func applyOne(_ record: JournalRecord) throws -> Bool {
        let kind = record.kind
        switch record {
        case .runStarted(let run):
            try single(kind) {
                try connection.run(sql.insertRun) { b in
                    try b.text(run.runID)
                    try b.text(run.matrixName)
                    try b.text(run.matrixPath)
                    try b.int(Int64(bitPattern: run.seed))
                    try b.time(run.startedAt)
                    try b.text(run.settingsJSON)
                }
            }

        case .runResumed(let runID, let at):
            try atomically(kind) {
                let run = try runKey(runID)
                try connection.run(sql.reopenRun) { b in try b.int(run) }
                try connection.run(sql.cancelOpenAttempts) { b in
                    try b.time(at)
                    try b.int(run)
                }
                try connection.run(sql.requeueRunningJobs) { b in try b.int(run) }
            }

        case .jobsPlanned(let runID, let jobs):
            try atomically(kind) {
                let run = try runKey(runID)
                for job in jobs {
                    try connection.run(sql.insertJob) { b in
                        try b.int(run)
                        try b.text(job.jobID)
                        try b.text(job.scenarioID)
                        try b.text(job.scenarioTitle)
                        try b.text(job.configuration)
                        try b.text(job.configurationJSON)
                        try b.text(job.registry)
                    }
                    // The new row's key, so results never have to look it up.
                    if connection.changes > 0 { keys.setJob(connection.lastInsertRowID, for: runID, job.jobID) }
                }
            }

        case .attemptStarted(let runID, let jobID, let attempt, let worker, let at):
            // The insert is the statement that can refuse the record (unknown job, duplicate attempt); the update
            // after it can only fail with the database itself, which fails the whole transaction.
            var job: Int64 = 0
            try single(kind) {
                job = try jobKey(runID, jobID)
                try insertAttempt(job: job, attempt: attempt, start: (worker, at), steps: [], result: nil)
            }
            try markJobRunning(key: job, attempt: attempt)

        case .stepRecorded(let runID, let jobID, let attempt, let step):
            try single(kind) { try appendSteps([step], runID: runID, jobID: jobID, attempt: attempt) }

        case .attemptFinished(let runID, let jobID, let attempt, let result):
            try single(kind) {
                let job = try jobKey(runID, jobID)
                try connection.run(sql.finishAttempt) { b in
                    try b.int(job)
                    try b.int(attempt)
                    try b.attemptResult(result)
                }
            }
            return connection.changes > 0

        case .jobFinished(let runID, let jobID, let result):
            try single(kind) { try finishJob(runID: runID, jobID: jobID, result, attemptsAtLeast: 0) }

        case .artifactStored(let runID, let jobID, let attempt, let artifact):
            try single(kind) {
                let job = try jobKey(runID, jobID)
                try connection.run(sql.insertArtifact) { b in
                    try b.int(job)
                    try b.int(attempt)
                    try b.int(artifact.stepIndex)
                    try b.text(artifact.name)
                    try b.text(artifact.mediaType)
                    try b.text(artifact.sha256.lowercased())
                    try b.int(artifact.compressedSize)
                    try b.int(artifact.rawSize)
                }
            }

        case .attemptCompleted(let c):
            var job: Int64 = 0
            try single(kind) {
                job = try jobKey(c.runID, c.jobID)
                try insertAttempt(
                    sql.completeAttempt, job: job, attempt: c.attempt, start: (c.worker, c.startedAt), steps: c.steps,
                    result: c.result)
            }
            let first = connection.changes > 0
            // As for attemptStarted: after the first statement only the database itself can fail.
            if let result = c.job {
                try finishJob(key: job, result, attemptsAtLeast: c.attempt)
            } else {
                try markJobRunning(key: job, attempt: c.attempt)
            }
            return first

        case .visualVerdict(let v):
            var changed = false
            try atomically(kind) {
                let job = try jobKey(v.runID, v.jobID)
                try connection.run(sql.failAttemptVisually) { b in
                    try b.int(v.failureStep)
                    try b.text(v.message)
                    try b.int(job)
                    try b.int(v.attempt)
                }
                changed = connection.changes > 0
                try connection.run(sql.failJobVisually) { b in
                    try b.int(v.failureStep)
                    try b.text(v.message)
                    try b.int(job)
                }
                changed = changed || connection.changes > 0
            }
            return changed

        case .runFinished(let runID, let status, let at):
            try single(kind) {
                let run = try runKey(runID)
                try connection.run(sql.finishRun) { b in
                    try b.text(status.rawValue)
                    try b.time(at)
                    try b.int(run)
                }
            }
        }
        return true
    }

    // MARK: - Statements shared by the one-at-a-time and the folded paths

    /// The steps of the attempt being written as JSON Lines, reused so that encoding them allocates nothing.
    private var stepText: [UInt8] = []

    /// Binds the first `count` bytes of ``stepText``.
    private func bindStepText(_ count: Int, _ binder: inout SQLBinder) throws {
        try stepText.withUnsafeBytes { try binder.utf8(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Inserts an attempt row with whatever is known of it (`statement`: `insertAttempt` or `completeAttempt`).
    func insertAttempt(
        _ statement: PreparedStatement? = nil, job: Int64, attempt: Int, start: (worker: String, at: Date)?,
        steps: [StepResult], result: AttemptResult?
    ) throws {
        let stepBytes = steps.isEmpty ? 0 : StepLines.encode(steps, into: &stepText)
        try connection.run(statement ?? sql.insertAttempt) { b in
            try b.int(job)
            try b.int(attempt)
            try b.text(start?.worker ?? "")
            if let start { try b.time(start.at) } else { try b.null() }
            if let result {
                try b.attemptResult(result)
            } else {
                for _ in 0..<5 { try b.null() }  // finished_at, outcome, failure_step, message, duration_s
                try b.int(0)  // superseded
            }
            if steps.isEmpty { try b.null() } else { try bindStepText(stepBytes, &b) }
        }
    }

    /// Appends steps to an existing attempt.
    func appendSteps(_ steps: [StepResult], runID: String, jobID: String, attempt: Int) throws {
        try appendSteps(steps, key: try jobKey(runID, jobID), runID: runID, jobID: jobID, attempt: attempt)
    }

    func appendSteps(_ steps: [StepResult], key: Int64, runID: String, jobID: String, attempt: Int) throws {
        let stepBytes = StepLines.encode(steps, into: &stepText)
        try connection.run(sql.appendSteps) { b in
            try bindStepText(stepBytes, &b)
            try b.int(key)
            try b.int(attempt)
        }
        guard connection.changes > 0 else {
            throw JournalError(
                code: SQLITE_CONSTRAINT | (3 << 8),  // SQLITE_CONSTRAINT_FOREIGNKEY, as the step table reported it
                message: "no attempt \(attempt) of job \(jobID) in run \(runID) to record steps for",
                operation: "append steps")
        }
    }

    /// Marks the job `running` with at least `attempt` attempts.
    func markJobRunning(key: Int64, attempt: Int) throws {
        try connection.run(sql.markJobRunning) { b in
            try b.int(attempt)
            try b.int(key)
        }
    }

    /// Marks the job done with its final outcome; `attempts` becomes at least `attemptsAtLeast`.
    func finishJob(runID: String, jobID: String, _ result: JobResult, attemptsAtLeast: Int) throws {
        try finishJob(key: try jobKey(runID, jobID), result, attemptsAtLeast: attemptsAtLeast)
    }

    func finishJob(key: Int64, _ result: JobResult, attemptsAtLeast: Int) throws {
        try connection.run(sql.finishJob) { b in
            try b.int(key)
            try b.text(result.outcome.rawValue)
            try b.int(max(result.attempts, attemptsAtLeast))
            try b.optionalDouble(result.duration)
            try b.optionalInt(result.failureStep)
            try b.optionalText(result.failureMessage)
            try b.time(result.finishedAt)
        }
    }
}

extension JournalRecord {
    /// The run and job of a record that ``JobRecordFolder`` gathers; nil for run-level records and for
    /// `attemptCompleted` (already one write: it is applied where it stands).
    var job: (runID: String, jobID: String)? {
        switch self {
        case .attemptStarted(let runID, let jobID, _, _, _), .stepRecorded(let runID, let jobID, _, _),
            .attemptFinished(let runID, let jobID, _, _), .jobFinished(let runID, let jobID, _),
            .artifactStored(let runID, let jobID, _, _):
            (runID, jobID)
        case .runStarted, .runResumed, .jobsPlanned, .runFinished, .attemptCompleted, .visualVerdict:
            nil
        }
    }
}

extension SQLBinder {
    /// An attempt's result columns, in the order the attempt statements list them: finished_at, outcome,
    /// failure_step, message, duration_s, superseded.
    fileprivate mutating func attemptResult(_ result: AttemptResult) throws {
        try time(result.finishedAt)
        try text(result.outcome.rawValue)
        try optionalInt(result.failureStep)
        try optionalText(result.message)
        try double(result.duration)
        try int(result.superseded ? 1 : 0)
    }
}
