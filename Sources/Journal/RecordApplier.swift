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

    static func time(_ date: Date) -> SQLValue { .double(date.timeIntervalSince1970) }

    // MARK: - Key lookups (cached; the writer is the only writer of its runs)

    private struct JobRef: Hashable {
        var runKey: Int64
        var jobID: String
    }

    private var runKeys: [String: Int64] = [:]
    private var jobKeys: [JobRef: Int64] = [:]

    /// Forgets cached keys: after a rollback they may name rows that no longer exist.
    func forgetKeys() {
        runKeys.removeAll()
        jobKeys.removeAll()
    }

    func runKey(_ runID: String) throws -> Int64 {
        if let key = runKeys[runID] { return key }
        guard let key = try connection.scalarInt64("SELECT run_key FROM runs WHERE run_id = ?", [.text(runID)]) else {
            throw JournalError(
                code: SQLITE_NOTFOUND, message: "no run \(runID) in the journal", operation: "look up run")
        }
        runKeys[runID] = key
        return key
    }

    func jobKey(_ runID: String, _ jobID: String) throws -> Int64 {
        let ref = JobRef(runKey: try runKey(runID), jobID: jobID)
        if let key = jobKeys[ref] { return key }
        guard
            let key = try connection.scalarInt64(
                "SELECT job_key FROM jobs WHERE run_key = ? AND job_id = ?", [.int(ref.runKey), .text(jobID)]
            )
        else {
            throw JournalError(
                code: SQLITE_NOTFOUND, message: "no job \(jobID) in run \(runID)", operation: "look up job")
        }
        cacheJobKey(key, ref.runKey, jobID)
        return key
    }

    private func cacheJobKey(_ key: Int64, _ runKey: Int64, _ jobID: String) {
        if jobKeys.count >= Self.jobKeyCacheLimit { jobKeys.removeAll(keepingCapacity: true) }
        if jobKeys.capacity == 0 { jobKeys.reserveCapacity(1 << 16) }
        jobKeys[JobRef(runKey: runKey, jobID: jobID)] = key
    }

    /// About 100 MB of keys at most; past it the cache starts again (lookups still work, through SQL).
    private static let jobKeyCacheLimit = 1_000_000

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
                try connection.run(
                    sql.insertRun,
                    [
                        .text(run.runID), .text(run.matrixName), .text(run.matrixPath),
                        .int(Int64(bitPattern: run.seed)), Self.time(run.startedAt), .text(run.settingsJSON),
                    ])
            }

        case .runResumed(let runID, let at):
            try atomically(kind) {
                let run = try runKey(runID)
                try connection.run(sql.reopenRun, [.int(run)])
                try connection.run(sql.cancelOpenAttempts, [Self.time(at), .int(run)])
                try connection.run(sql.requeueRunningJobs, [.int(run)])
            }

        case .jobsPlanned(let runID, let jobs):
            try atomically(kind) {
                let run = try runKey(runID)
                for job in jobs {
                    try connection.run(
                        sql.insertJob,
                        [
                            .int(run), .text(job.jobID), .text(job.scenarioID), .text(job.scenarioTitle),
                            .text(job.configuration), .text(job.configurationJSON), .text(job.registry),
                        ])
                    // The new row's key, so results never have to look it up.
                    if connection.changes > 0 { cacheJobKey(connection.lastInsertRowID, run, job.jobID) }
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
            try connection.run(sql.markJobRunning, [.int(attempt), .int(job)])

        case .stepRecorded(let runID, let jobID, let attempt, let step):
            try single(kind) { try appendSteps([step], runID: runID, jobID: jobID, attempt: attempt) }

        case .attemptFinished(let runID, let jobID, let attempt, let result):
            try single(kind) {
                try connection.run(
                    sql.finishAttempt,
                    [
                        .int(try jobKey(runID, jobID)), .int(attempt), Self.time(result.finishedAt),
                        .text(result.outcome.rawValue), .optionalInt(result.failureStep), .optionalText(result.message),
                        .double(result.duration), .int(result.superseded ? 1 : 0),
                    ])
            }
            return connection.changes > 0

        case .jobFinished(let runID, let jobID, let result):
            try single(kind) { try finishJob(runID: runID, jobID: jobID, result, attemptsAtLeast: 0) }

        case .artifactStored(let runID, let jobID, let attempt, let artifact):
            try single(kind) {
                try connection.run(
                    sql.insertArtifact,
                    [
                        .int(try jobKey(runID, jobID)), .int(attempt), .int(artifact.stepIndex), .text(artifact.name),
                        .text(artifact.mediaType), .text(artifact.sha256.lowercased()), .int(artifact.compressedSize),
                        .int(artifact.rawSize),
                    ])
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
                try connection.run(sql.markJobRunning, [.int(c.attempt), .int(job)])
            }
            return first

        case .runFinished(let runID, let status, let at):
            try single(kind) {
                try connection.run(sql.finishRun, [.text(status.rawValue), Self.time(at), .int(try runKey(runID))])
            }
        }
        return true
    }

    // MARK: - Statements shared by the one-at-a-time and the folded paths

    /// Inserts an attempt row with whatever is known of it (`statement`: `insertAttempt` or `completeAttempt`).
    func insertAttempt(
        _ statement: PreparedStatement? = nil, job: Int64, attempt: Int, start: (worker: String, at: Date)?,
        steps: [StepResult], result: AttemptResult?
    ) throws {
        try connection.run(
            statement ?? sql.insertAttempt,
            [
                .int(job), .int(attempt), .text(start?.worker ?? ""), start.map { Self.time($0.at) } ?? .null,
                result.map { Self.time($0.finishedAt) } ?? .null, .optionalText(result?.outcome.rawValue),
                .optionalInt(result?.failureStep), .optionalText(result?.message),
                .optionalDouble(result?.duration), .int(result?.superseded == true ? 1 : 0),
                steps.isEmpty ? .null : .utf8(StepLines.encode(steps)),
            ])
    }

    /// Appends steps to an existing attempt.
    func appendSteps(_ steps: [StepResult], runID: String, jobID: String, attempt: Int) throws {
        try appendSteps(steps, key: try jobKey(runID, jobID), runID: runID, jobID: jobID, attempt: attempt)
    }

    func appendSteps(_ steps: [StepResult], key: Int64, runID: String, jobID: String, attempt: Int) throws {
        try connection.run(sql.appendSteps, [.utf8(StepLines.encode(steps)), .int(key), .int(attempt)])
        guard connection.changes > 0 else {
            throw JournalError(
                code: SQLITE_CONSTRAINT | (3 << 8),  // SQLITE_CONSTRAINT_FOREIGNKEY, as the step table reported it
                message: "no attempt \(attempt) of job \(jobID) in run \(runID) to record steps for",
                operation: "append steps")
        }
    }

    /// Marks the job done with its final outcome; `attempts` becomes at least `attemptsAtLeast`.
    func finishJob(runID: String, jobID: String, _ result: JobResult, attemptsAtLeast: Int) throws {
        try finishJob(key: try jobKey(runID, jobID), result, attemptsAtLeast: attemptsAtLeast)
    }

    func finishJob(key: Int64, _ result: JobResult, attemptsAtLeast: Int) throws {
        try connection.run(
            sql.finishJob,
            [
                .int(key), .text(result.outcome.rawValue), .int(max(result.attempts, attemptsAtLeast)),
                .optionalDouble(result.duration), .optionalInt(result.failureStep),
                .optionalText(result.failureMessage), Self.time(result.finishedAt),
            ])
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
        case .runStarted, .runResumed, .jobsPlanned, .runFinished, .attemptCompleted:
            nil
        }
    }
}
