/// The writer's statements, prepared once when the writer opens (the tables exist by then), so the hot path
/// never looks a statement up by its SQL text.
struct JournalStatements {
    let insertRun: PreparedStatement
    let reopenRun: PreparedStatement
    let cancelOpenAttempts: PreparedStatement
    let requeueRunningJobs: PreparedStatement
    let insertJob: PreparedStatement
    /// A new attempt row with whatever of it the batch holds: start, steps, result.
    let insertAttempt: PreparedStatement
    /// `insertAttempt` that completes a row already there (started earlier) instead of failing.
    let completeAttempt: PreparedStatement
    let markJobRunning: PreparedStatement
    let appendSteps: PreparedStatement
    let finishAttempt: PreparedStatement
    /// The job's final result (a `results` row; a later final result replaces it).
    let finishJob: PreparedStatement
    let insertArtifact: PreparedStatement
    let finishRun: PreparedStatement
    /// A visual verdict: the passed attempt fails, then its passed or flaky job.
    let failAttemptVisually: PreparedStatement
    let failJobVisually: PreparedStatement

    /// The message of an attempt closed as cancelled when its run resumed (it was open when the coordinator stopped).
    static let coordinatorStopped = "the coordinator stopped before the result arrived"

    /// `runResumed`'s close of the attempts left open when the coordinator stopped: one whose steps show a failure
    /// failed (resume counts it against the retry budget); any other is cancelled and superseded: it never counts.
    private static let closeOpenAttempts: String = {
        let failed = StepLines.failureEvidence("steps")
        return """
            UPDATE attempts SET finished_at = ?,
                outcome = CASE WHEN \(failed) THEN 'failed' ELSE 'cancelled' END,
                superseded = CASE WHEN \(failed) THEN 0 ELSE 1 END,
                message = CASE WHEN \(failed) THEN 'a step failed; \(coordinatorStopped)'
                    ELSE '\(coordinatorStopped)' END
            WHERE outcome IS NULL AND job_key IN (SELECT job_key FROM jobs WHERE run_key = ?)
            """
    }()

    /// A visual verdict's statements (`visualVerdict`): only a passed attempt, and a passed or flaky job, change.
    private static let failAttemptVisually = """
        UPDATE attempts SET outcome = 'failed', failure_step = ?1, message = ?2
        WHERE job_key = ?3 AND attempt = ?4 AND outcome = 'passed'
        """
    private static let failJobVisually = """
        UPDATE results SET outcome = 'failed', failure_step = ?1, failure_message = ?2
        WHERE job_key = ?3 AND outcome IN ('passed', 'flaky')
        """

    init(_ c: SQLiteConnection) throws {
        insertRun = try c.statement(
            """
            INSERT INTO runs (run_id, matrix_name, matrix_path, seed, started_at, status, settings_json)
            VALUES (?, ?, ?, ?, ?, 'running', ?)
            """)
        reopenRun = try c.statement("UPDATE runs SET status = 'running', finished_at = NULL WHERE run_key = ?")
        cancelOpenAttempts = try c.statement(Self.closeOpenAttempts)
        requeueRunningJobs = try c.statement("UPDATE jobs SET state = 'queued' WHERE run_key = ? AND state = 'running'")
        insertJob = try c.statement(
            """
            INSERT INTO jobs (run_key, job_id, scenario_id, scenario_title, configuration, configuration_json, registry)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_key, job_id) DO NOTHING
            """)
        insertAttempt = try c.statement(
            """
            INSERT INTO attempts (job_key, attempt, worker, started_at, finished_at, outcome, failure_step, message,
                duration_s, superseded, steps)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        completeAttempt = try c.statement(
            """
            INSERT INTO attempts (job_key, attempt, worker, started_at, finished_at, outcome, failure_step, message,
                duration_s, superseded, steps)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (job_key, attempt) DO UPDATE SET
                worker = CASE attempts.worker WHEN '' THEN excluded.worker ELSE attempts.worker END,
                started_at = COALESCE(attempts.started_at, excluded.started_at),
                finished_at = excluded.finished_at, outcome = excluded.outcome, failure_step = excluded.failure_step,
                message = excluded.message, duration_s = excluded.duration_s, superseded = excluded.superseded,
                steps = CASE
                    WHEN excluded.steps IS NULL THEN attempts.steps
                    WHEN attempts.steps IS NULL OR attempts.steps = '' THEN excluded.steps
                    ELSE attempts.steps || char(10) || excluded.steps END
            WHERE attempts.outcome IS NULL
            """)
        markJobRunning = try c.statement(
            "UPDATE jobs SET attempts = MAX(attempts, ?1), state = 'running' WHERE job_key = ?2")
        appendSteps = try c.statement(
            """
            UPDATE attempts SET steps = CASE WHEN steps IS NULL OR steps = '' THEN ?1 ELSE steps || char(10) || ?1 END
            WHERE job_key = ?2 AND attempt = ?3
            """)
        finishAttempt = try c.statement(
            """
            INSERT INTO attempts (job_key, attempt, worker, finished_at, outcome, failure_step, message, duration_s,
                superseded)
            VALUES (?, ?, '', ?, ?, ?, ?, ?, ?)
            ON CONFLICT (job_key, attempt) DO UPDATE SET
                finished_at = excluded.finished_at, outcome = excluded.outcome, failure_step = excluded.failure_step,
                message = excluded.message, duration_s = excluded.duration_s, superseded = excluded.superseded
            WHERE attempts.outcome IS NULL
            """)
        finishJob = try c.statement(
            """
            INSERT INTO results (job_key, outcome, attempts, duration_s, failure_step, failure_message, finished_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (job_key) DO UPDATE SET
                outcome = excluded.outcome, attempts = MAX(results.attempts, excluded.attempts),
                duration_s = excluded.duration_s, failure_step = excluded.failure_step,
                failure_message = excluded.failure_message, finished_at = excluded.finished_at
            """)
        insertArtifact = try c.statement(
            """
            INSERT INTO artifacts (job_key, attempt, step_index, name, media_type, sha256, compressed_size, raw_size)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (job_key, attempt, step_index, name) DO UPDATE SET
                media_type = excluded.media_type, sha256 = excluded.sha256,
                compressed_size = excluded.compressed_size, raw_size = excluded.raw_size
            """)
        finishRun = try c.statement("UPDATE runs SET status = ?, finished_at = ? WHERE run_key = ?")
        failAttemptVisually = try c.statement(Self.failAttemptVisually)
        failJobVisually = try c.statement(Self.failJobVisually)
    }
}
