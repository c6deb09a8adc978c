import CSQLite
import Foundation

/// Applies journal records to the writer's connection: one transaction per batch. A bad record is rolled
/// back alone: either the statement that refuses it is its first change (SQLite undoes a failed statement),
/// or, for records that change many rows (`jobsPlanned`, `runResumed`), the record runs in a savepoint.
/// Writer-thread confined.
final class RecordApplier {
    struct BatchOutcome {
        var applied = 0
        var duplicates = 0
        var rejections: [JournalWriter.Rejection] = []
        /// Set when the transaction as a whole failed (nothing of the batch was committed).
        var failure: JournalError?
    }

    private let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
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
        do {
            for record in batch {
                do {
                    if try apply(record) { outcome.applied += 1 } else { outcome.duplicates += 1 }
                } catch let error as RecordError {
                    outcome.rejections.append(JournalWriter.Rejection(kind: record.kind, error: error.error))
                }
            }
            try connection.run("COMMIT")
        } catch {
            outcome.failure = asJournalError(error, "commit")
            forgetKeys()
            outcome.applied = 0
            outcome.duplicates = 0
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
    private struct RecordError: Error {
        var error: JournalError
    }

    private func asJournalError(_ error: any Error, _ operation: String) -> JournalError {
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

    private static func time(_ date: Date) -> SQLValue { .double(date.timeIntervalSince1970) }

    // MARK: - Key lookups (cached; the writer is the only writer of its runs)

    private struct JobRef: Hashable {
        var runKey: Int64
        var jobID: String
    }

    private var runKeys: [String: Int64] = [:]
    private var jobKeys: [JobRef: Int64] = [:]

    /// Forgets cached keys: after a rollback they may name rows that no longer exist.
    private func forgetKeys() {
        runKeys.removeAll()
        jobKeys.removeAll()
    }

    private func runKey(_ runID: String) throws -> Int64 {
        if let key = runKeys[runID] { return key }
        guard let key = try connection.scalarInt64("SELECT run_key FROM runs WHERE run_id = ?", [.text(runID)]) else {
            throw JournalError(
                code: SQLITE_NOTFOUND, message: "no run \(runID) in the journal", operation: "look up run")
        }
        runKeys[runID] = key
        return key
    }

    private func jobKey(_ runID: String, _ jobID: String) throws -> Int64 {
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
        if jobKeys.count >= 1_000_000 { jobKeys.removeAll() }
        jobKeys[ref] = key
        return key
    }

    /// Applies one record; false when it was a duplicate that changed nothing.
    private func apply(_ record: JournalRecord) throws -> Bool {
        let kind = record.kind
        switch record {
        case .runStarted(let run):
            try single(kind) {
                try connection.run(
                    """
                    INSERT INTO runs (run_id, matrix_name, matrix_path, seed, started_at, status, settings_json)
                    VALUES (?, ?, ?, ?, ?, 'running', ?)
                    """,
                    [
                        .text(run.runID), .text(run.matrixName), .text(run.matrixPath),
                        .int(Int64(bitPattern: run.seed)),
                        Self.time(run.startedAt), .text(run.settingsJSON),
                    ]
                )
            }

        case .runResumed(let runID, let at):
            try atomically(kind) {
                let run = try runKey(runID)
                try connection.run(
                    "UPDATE runs SET status = 'running', finished_at = NULL WHERE run_key = ?", [.int(run)])
                try connection.run(
                    """
                    UPDATE attempts SET outcome = 'cancelled', superseded = 1, finished_at = ?,
                        message = 'the coordinator stopped before the result arrived'
                    WHERE outcome IS NULL AND job_key IN (SELECT job_key FROM jobs WHERE run_key = ?)
                    """,
                    [Self.time(at), .int(run)]
                )
                try connection.run(
                    "UPDATE jobs SET state = 'queued' WHERE run_key = ? AND state = 'running'", [.int(run)])
            }

        case .jobsPlanned(let runID, let jobs):
            try atomically(kind) {
                let run = try runKey(runID)
                for job in jobs {
                    try connection.run(
                        """
                        INSERT INTO jobs (run_key, job_id, scenario_id, scenario_title, configuration, configuration_json,
                            registry)
                        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_key, job_id) DO NOTHING
                        """,
                        [
                            .int(run), .text(job.jobID), .text(job.scenarioID), .text(job.scenarioTitle),
                            .text(job.configuration), .text(job.configurationJSON), .text(job.registry),
                        ]
                    )
                }
            }

        case .attemptStarted(let runID, let jobID, let attempt, let worker, let at):
            // The insert is the statement that can refuse the record (unknown job, duplicate attempt); the update
            // after it can only fail with the database itself, which fails the whole transaction.
            var job: Int64 = 0
            try single(kind) {
                job = try jobKey(runID, jobID)
                try connection.run(
                    "INSERT INTO attempts (job_key, attempt, worker, started_at) VALUES (?, ?, ?, ?)",
                    [.int(job), .int(attempt), .text(worker), Self.time(at)]
                )
            }
            try connection.run(
                """
                UPDATE jobs SET attempts = MAX(attempts, ?1),
                    state = CASE state WHEN 'done' THEN 'done' ELSE 'running' END
                WHERE job_key = ?2
                """,
                [.int(attempt), .int(job)]
            )

        case .stepRecorded(let runID, let jobID, let attempt, let step):
            try single(kind) {
                try connection.run(
                    """
                    INSERT INTO steps (job_key, attempt, step_index, key, outcome, duration_s, message, interruptions)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (job_key, attempt, step_index) DO UPDATE SET
                        key = excluded.key, outcome = excluded.outcome, duration_s = excluded.duration_s,
                        message = excluded.message, interruptions = excluded.interruptions
                    """,
                    [
                        .int(try jobKey(runID, jobID)), .int(attempt), .int(step.index), .text(step.key),
                        .text(step.outcome.rawValue), .double(step.duration), .optionalText(step.message),
                        .optionalText(step.interruptions),
                    ]
                )
            }

        case .attemptFinished(let runID, let jobID, let attempt, let result):
            try single(kind) {
                try connection.run(
                    """
                    INSERT INTO attempts (job_key, attempt, worker, finished_at, outcome, failure_step, message,
                        duration_s, superseded)
                    VALUES (?, ?, '', ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (job_key, attempt) DO UPDATE SET
                        finished_at = excluded.finished_at, outcome = excluded.outcome,
                        failure_step = excluded.failure_step, message = excluded.message,
                        duration_s = excluded.duration_s, superseded = excluded.superseded
                    WHERE attempts.outcome IS NULL
                    """,
                    [
                        .int(try jobKey(runID, jobID)), .int(attempt), Self.time(result.finishedAt),
                        .text(result.outcome.rawValue), .optionalInt(result.failureStep), .optionalText(result.message),
                        .double(result.duration), .int(result.superseded ? 1 : 0),
                    ]
                )
            }
            return connection.changes > 0

        case .jobFinished(let runID, let jobID, let result):
            // As for attemptStarted: only the first statement can refuse the record.
            var run: Int64 = 0
            try single(kind) {
                let job = try jobKey(runID, jobID)
                run = try runKey(runID)
                try connection.run(
                    """
                    UPDATE jobs SET state = 'done', outcome = ?, attempts = MAX(attempts, ?), duration_s = ?,
                        failure_step = ?, failure_message = ?, finished_at = ?
                    WHERE job_key = ?
                    """,
                    [
                        .text(result.outcome.rawValue), .int(result.attempts), .optionalDouble(result.duration),
                        .optionalInt(result.failureStep), .optionalText(result.failureMessage),
                        Self.time(result.finishedAt),
                        .int(job),
                    ]
                )
            }
            try connection.run(
                """
                INSERT INTO history (job_id, run_key, outcome, duration_s, finished_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (job_id, run_key) DO UPDATE SET
                    outcome = excluded.outcome, duration_s = excluded.duration_s, finished_at = excluded.finished_at
                """,
                [
                    .text(jobID), .int(run), .text(result.outcome.rawValue), .optionalDouble(result.duration),
                    Self.time(result.finishedAt),
                ]
            )

        case .artifactStored(let runID, let jobID, let attempt, let artifact):
            try single(kind) {
                try connection.run(
                    """
                    INSERT INTO artifacts (job_key, attempt, step_index, name, media_type, sha256, compressed_size,
                        raw_size)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (job_key, attempt, step_index, name) DO UPDATE SET
                        media_type = excluded.media_type, sha256 = excluded.sha256,
                        compressed_size = excluded.compressed_size, raw_size = excluded.raw_size
                    """,
                    [
                        .int(try jobKey(runID, jobID)), .int(attempt), .int(artifact.stepIndex), .text(artifact.name),
                        .text(artifact.mediaType), .text(artifact.sha256.lowercased()), .int(artifact.compressedSize),
                        .int(artifact.rawSize),
                    ]
                )
            }

        case .runFinished(let runID, let status, let at):
            try single(kind) {
                try connection.run(
                    "UPDATE runs SET status = ?, finished_at = ? WHERE run_key = ?",
                    [.text(status.rawValue), Self.time(at), .int(try runKey(runID))]
                )
            }
        }
        return true
    }
}
