import CSQLite
import FlowVocabulary
import Foundation
import Synchronization

/// Reads the journal through its own connection (WAL lets it read while the writer writes).
///
/// Every method is a consistent snapshot of committed data. Thread-safe: calls are serialised on the
/// reader's connection.
public final class JournalReader: Sendable {
    let connection: Mutex<SQLiteConnection>

    /// Opens the journal at `path` read-only.
    /// - Throws: ``JournalError`` when the file is missing, not a database, has no journal schema, or a newer one.
    public init(path: String) throws {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        let version: Int?
        do {
            version = try connection.scalarInt(
                "SELECT version FROM schema_version WHERE (SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_version') = 1"
            )
        } catch let error as JournalError where error.code & 0xff == SQLITE_ERROR {
            throw JournalError(
                code: error.code, message: "not a FlowMatrix journal (no schema_version table)",
                operation: "open \(path)")
        }
        guard let version, version > 0 else {
            throw JournalError(
                code: SQLITE_ERROR, message: "not a FlowMatrix journal (no schema yet)", operation: "open \(path)")
        }
        try JournalSchema.checkSupported(version, path: path)
        if version < JournalSchema.currentVersion {
            // A journal written by an older build: bring it up to date (the only write a reader makes).
            try connection.execute("PRAGMA query_only = OFF")
            try JournalSchema.migrate(connection)
            try connection.execute("PRAGMA query_only = ON")
        }
        self.connection = Mutex(connection)
    }

    /// Another reader of the same journal, with its own connection: two streams can then be read at once (each
    /// call is still its own snapshot).
    public func sibling() throws -> JournalReader {
        try JournalReader(path: connection.withLock { $0.path })
    }

    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            try connection.execute("BEGIN")
            defer {
                do { try connection.execute("COMMIT") } catch {
                    // A read transaction has nothing to commit; failing to end it only matters to the next read,
                    // which reports its own error.
                    _ = error
                }
            }
            return try body(connection)
        }
    }

    static func date(_ row: SQLRow, _ i: Int32) -> Date? {
        row.optionalDouble(i).map { Date(timeIntervalSince1970: $0) }
    }

    static func outcome(_ text: String?, _ what: String) throws -> JobOutcome? {
        guard let text else { return nil }
        guard let value = JobOutcome(rawValue: text) else {
            throw JournalError(code: SQLITE_CORRUPT, message: "unknown outcome '\(text)' in \(what)", operation: "read")
        }
        return value
    }

    // MARK: - Runs

    static let runColumns = """
        r.run_id, r.matrix_name, r.matrix_path, r.seed, r.started_at, r.settings_json, r.status, r.finished_at,
        (SELECT COUNT(*) FROM jobs j WHERE j.run_key = r.run_key)
        """

    func runSummaries(_ connection: SQLiteConnection, _ sql: String, _ values: [SQLValue], outcomes: Bool = true) throws
        -> [RunSummary]
    {
        var runs = try connection.query(sql, values) { row in
            RunSummary(
                info: RunInfo(
                    runID: row.text(0), matrixName: row.text(1), matrixPath: row.text(2),
                    seed: UInt64(bitPattern: Int64(row.int(3))), startedAt: Date(timeIntervalSince1970: row.double(4)),
                    settingsJSON: row.text(5)
                ),
                status: RunStatus(rawValue: row.text(6)) ?? .aborted,
                finishedAt: Self.date(row, 7),
                jobCount: row.int(8),
                outcomes: [:]
            )
        }
        for i in runs.indices where outcomes {
            let counts = try connection.query(
                """
                SELECT r.outcome, COUNT(*) FROM jobs j JOIN results r ON r.job_key = j.job_key
                WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) GROUP BY r.outcome
                """,
                [.text(runs[i].info.runID)]
            ) { row in (row.text(0), row.int(1)) }
            for (text, count) in counts {
                if let outcome = try Self.outcome(text, "run \(runs[i].info.runID)") {
                    runs[i].outcomes[outcome] = count
                }
            }
        }
        return runs
    }

    /// Runs, newest first.
    public func runs(limit: Int = 100) throws -> [RunSummary] {
        try read { c in
            try runSummaries(
                c, "SELECT \(Self.runColumns) FROM runs r ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?",
                [.int(limit)])
        }
    }

    /// One run, or nil when the journal has no such run.
    /// - Parameter countingOutcomes: false leaves ``RunSummary/outcomes`` empty and skips the query that counts them
    ///   (a report counts the outcomes itself as it reads the jobs).
    public func run(_ runID: String, countingOutcomes: Bool = true) throws -> RunSummary? {
        try read { c in
            try runSummaries(c, "SELECT \(Self.runColumns) FROM runs r WHERE r.run_id = ?", [.text(runID)],
                             outcomes: countingOutcomes).first
        }
    }

    /// The run a command-line argument names: `last` is the most recently started run, any other text a run id.
    /// The one place `last` is resolved (`show`, `runs delete`, `report`, `diff`, `artifacts`).
    /// - Returns: nil when there is no such run (for `last`: the journal has no run).
    public func resolveRunID(_ text: String) throws -> String? {
        if text == "last" { return try latestRunID() }
        return try run(text) != nil ? text : nil
    }

    /// The most recently started run (for `--baseline last`), or nil for an empty journal.
    public func latestRunID(excluding: String? = nil) throws -> String? {
        try read { c in
            try c.query(
                "SELECT run_id FROM runs WHERE run_id IS NOT ?1 ORDER BY started_at DESC, run_id DESC LIMIT 1",
                [.optionalText(excluding)]
            ) { $0.text(0) }.first
        }
    }

    // MARK: - Jobs, attempts, steps

    /// The jobs of a run in plan order.
    public func jobs(run runID: String) throws -> [JobRow] {
        var rows: [JobRow] = []
        try forEachJobRow(run: runID) { rows.append($0) }
        return rows
    }

    /// Streams the jobs of a run in plan order, one row at a time (nothing is collected: memory does not grow with
    /// the number of jobs). `body` runs inside the reader's read transaction and must not call this reader.
    public func forEachJobRow(run runID: String, _ body: (JobRow) throws -> Void) throws {
        try read { c in
            var ordinal = 0
            try c.forEachRow(
                """
                SELECT \(Self.jobColumns)
                FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key
                WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key
                """,
                [.text(runID)]
            ) { row in
                try body(try Self.jobRow(row, ordinal: ordinal))
                ordinal += 1
            }
        }
    }

    static let jobColumns = """
        j.job_id, j.scenario_id, j.scenario_title, j.configuration, j.configuration_json, j.registry, j.state,
        r.outcome, MAX(j.attempts, COALESCE(r.attempts, 0)), r.duration_s, r.failure_step, r.failure_message,
        r.finished_at
        """

    /// A row of ``jobColumns`` (columns 0…12).
    static func jobRow(_ row: SQLRow, ordinal: Int) throws -> JobRow {
        let job = PlannedJob(
            jobID: row.text(0), scenarioID: row.text(1), scenarioTitle: row.text(2), configuration: row.text(3),
            configurationJSON: row.text(4), registry: row.text(5)
        )
        var result: JobResult?
        if let outcome = try Self.outcome(row.optionalText(7), "job \(job.jobID)") {
            result = JobResult(
                outcome: outcome, attempts: row.int(8), duration: row.optionalDouble(9),
                failureStep: row.optionalInt(10), failureMessage: row.optionalText(11),
                finishedAt: Self.date(row, 12) ?? Date(timeIntervalSince1970: 0)
            )
        }
        // A job is done when it has a result; `jobs.state` says queued or running until then.
        return JobRow(
            job: job, ordinal: ordinal, state: result != nil ? .done : JobState(rawValue: row.text(6)) ?? .queued,
            result: result)
    }

    /// Streams the jobs of a run in plan order with their attempts, steps and artifact references, one job at a time
    /// (nothing is collected, so memory does not grow with the number of jobs). `body` runs inside the reader's read
    /// transaction and must not call this reader.
    ///
    /// Two ordered queries stepped together in one read transaction: the jobs with their results and attempts, and
    /// the run's artifact references in the same (job, attempt) order, merged as they go. An attempt's steps are
    /// decoded straight from the column's bytes.
    public func forEachJob(run runID: String, _ body: (JobDetail) throws -> Void) throws {
        let sql = """
            SELECT \(Self.jobColumns), j.job_key, \(Self.attemptColumns), a.steps
            FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key LEFT JOIN attempts a ON a.job_key = j.job_key
            WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key, a.attempt
            """
        try read { c in
            try c.withCursor(Self.artifactsInJobOrder, [.text(runID)]) { artifacts in
                var pending = try ArtifactCursor(&artifacts)
                var current: JobDetail?
                var currentKey = -1
                var ordinal = 0
                try c.forEachRow(sql, [.text(runID)]) { row in
                    let key = row.int(13)
                    if key != currentKey {
                        if let done = current { try body(done) }
                        current = JobDetail(row: try Self.jobRow(row, ordinal: ordinal), attempts: [], artifacts: [:])
                        currentKey = key
                        ordinal += 1
                    }
                    guard !row.isNull(14) else { return }
                    let jobID = current?.row.job.jobID ?? ""
                    let attempt = try Self.attemptRow(row, "attempt of \(jobID)", base: 14)
                    let steps = try row.withBytes(23) {
                        try StepLines.decode(bytes: $0, "attempt \(attempt.attempt) of job \(jobID) in run \(runID)")
                    }
                    current?.attempts.append(AttemptWithSteps(attempt: attempt, steps: steps))
                    let refs = try pending.take(job: key, attempt: attempt.attempt, &artifacts)
                    if !refs.isEmpty { current?.artifacts[attempt.attempt] = refs }
                }
                if let done = current { try body(done) }
            }
        }
    }

    /// The artifact references of a run's jobs in job, attempt, step, name order (the artifacts table's key order).
    static let artifactsInJobOrder = """
        SELECT x.job_key, x.attempt, x.step_index, x.name, x.media_type, x.sha256, x.compressed_size, x.raw_size
        FROM jobs j JOIN artifacts x ON x.job_key = j.job_key
        WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key, x.attempt, x.step_index, x.name
        """

    /// The next row of ``artifactsInJobOrder``, taken by attempt as the jobs query reaches it.
    private struct ArtifactCursor {
        private var next: (key: Int, attempt: Int, ref: ArtifactReference)?

        init(_ cursor: inout SQLCursor) throws { try advance(&cursor) }

        private mutating func advance(_ cursor: inout SQLCursor) throws {
            next = try cursor.next().map { row in
                (row.int(0), row.int(1), ArtifactReference(
                    stepIndex: row.int(2), name: row.text(3), mediaType: row.text(4), sha256: row.text(5),
                    compressedSize: row.int(6), rawSize: row.int(7)))
            }
        }

        /// The references of attempt `attempt` of job `key`; rows of earlier (job, attempt) pairs are skipped.
        mutating func take(job key: Int, attempt: Int, _ cursor: inout SQLCursor) throws -> [ArtifactReference] {
            var refs: [ArtifactReference] = []
            while let n = next, (n.key, n.attempt) <= (key, attempt) {
                if n.key == key && n.attempt == attempt { refs.append(n.ref) }
                try advance(&cursor)
            }
            return refs
        }
    }

    /// Attempts started in a run (superseded ones included) and the workers that ran them, sorted.
    public func attemptTotals(run runID: String) throws -> (attempts: Int, workers: [String]) {
        try read { c in
            let count = try c.scalarInt(
                """
                SELECT COUNT(*) FROM attempts a JOIN jobs j ON j.job_key = a.job_key
                WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?)
                """, [.text(runID)]) ?? 0
            let workers = try c.query(
                """
                SELECT DISTINCT a.worker FROM attempts a JOIN jobs j ON j.job_key = a.job_key
                WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND a.worker <> '' ORDER BY a.worker
                """, [.text(runID)]) { $0.text(0) }
            return (count, workers)
        }
    }

    /// The attempts of a job, in attempt order (superseded ones included, flagged).
    public func attempts(run runID: String, job jobID: String) throws -> [AttemptRow] {
        try read { c in
            try c.query(
                """
                SELECT \(Self.attemptColumns)
                FROM attempts a JOIN jobs j ON j.job_key = a.job_key JOIN runs r ON r.run_key = j.run_key
                WHERE r.run_id = ? AND j.job_id = ? ORDER BY a.attempt
                """,
                [.text(runID), .text(jobID)]
            ) { row in try Self.attemptRow(row, "attempt of \(jobID)") }
        }
    }

    static let attemptColumns = """
        a.attempt, a.worker, a.started_at, a.finished_at, a.outcome, a.failure_step, a.message, a.duration_s,
        a.superseded
        """

    /// A row of ``attemptColumns``, starting at column `base`.
    static func attemptRow(_ row: SQLRow, _ what: @autoclosure () -> String, base: Int32 = 0) throws
        -> AttemptRow
    {
        var result: AttemptResult?
        if let outcome = try Self.outcome(row.optionalText(base + 4), what()) {
            result = AttemptResult(
                outcome: outcome, finishedAt: Self.date(row, base + 3) ?? Date(timeIntervalSince1970: 0),
                duration: row.optionalDouble(base + 7) ?? 0, failureStep: row.optionalInt(base + 5),
                message: row.optionalText(base + 6), superseded: row.int(base + 8) != 0
            )
        }
        return AttemptRow(
            attempt: row.int(base), worker: row.text(base + 1), startedAt: Self.date(row, base + 2), result: result)
    }

    /// The steps of one attempt, in step order (a step recorded twice: the last record).
    public func steps(run runID: String, job jobID: String, attempt: Int) throws -> [StepResult] {
        let text = try read { c in
            try c.query(
                """
                SELECT a.steps FROM attempts a JOIN jobs j ON j.job_key = a.job_key JOIN runs r ON r.run_key = j.run_key
                WHERE r.run_id = ? AND j.job_id = ? AND a.attempt = ?
                """,
                [.text(runID), .text(jobID), .int(attempt)]
            ) { $0.optionalText(0) }.first ?? nil
        }
        return try StepLines.decode(text ?? "", "attempt \(attempt) of job \(jobID) in run \(runID)")
    }

    /// Artifacts of a run, optionally narrowed to a job and an attempt, ordered by job, attempt, step, name.
    public func artifacts(run runID: String, job jobID: String? = nil, attempt: Int? = nil) throws -> [ArtifactRow] {
        try read { c in
            try c.query(
                """
                SELECT r.run_id, j.job_id, a.attempt, a.step_index, a.name, a.media_type, a.sha256, a.compressed_size,
                    a.raw_size
                FROM artifacts a JOIN jobs j ON j.job_key = a.job_key JOIN runs r ON r.run_key = j.run_key
                WHERE r.run_id = ?1 AND (?2 IS NULL OR j.job_id = ?2) AND (?3 IS NULL OR a.attempt = ?3)
                ORDER BY j.job_id, a.attempt, a.step_index, a.name
                """,
                [.text(runID), .optionalText(jobID), .optionalInt(attempt)]
            ) { row in
                ArtifactRow(
                    runID: row.text(0), jobID: row.text(1), attempt: row.int(2),
                    artifact: ArtifactReference(
                        stepIndex: row.int(3), name: row.text(4), mediaType: row.text(5), sha256: row.text(6),
                        compressedSize: row.int(7), rawSize: row.int(8)
                    )
                )
            }
        }
    }

    /// Every blob hash any run references (what `gc` must keep).
    public func referencedBlobs() throws -> Set<String> {
        try read { c in Set(try c.query("SELECT DISTINCT sha256 FROM artifacts") { $0.text(0) }) }
    }

    // MARK: - Resume

    /// What a run still has to do after the coordinator stopped: done jobs keep their outcome; every other job
    /// (queued, running when it stopped, or ended `notRun` or `cancelled` by an interrupt) runs again with the next
    /// attempt number and the failed attempts it already made.
    ///
    /// A failed attempt is one whose result is `failed` or `timedOut`, or one without a result whose journaled
    /// steps show a failure (``StepLines/failureEvidence(_:)``): the coordinator died between journaling the
    /// failing step and the result, and an uninterrupted run would have counted it. (Journals of earlier versions
    /// closed such an attempt as superseded `cancelled` when the run resumed: it counts too.) Attempts cut short
    /// without such a step, lost, taken back, or cancelled by an abort never count, so the job's retry budget,
    /// flakiness and next seed are what an uninterrupted run would have had.
    /// - Throws: ``JournalError`` (`SQLITE_NOTFOUND`) when the journal has no such run.
    public func resumeState(run runID: String) throws -> ResumeState {
        try read { c in
            guard try c.scalarInt("SELECT COUNT(*) FROM runs WHERE run_id = ?", [.text(runID)]) == 1 else {
                throw JournalError(
                    code: SQLITE_NOTFOUND, message: "no run \(runID) in the journal", operation: "resume")
            }
            var state = ResumeState(done: [:], pending: [], nextAttempt: [:])
            let rows = try c.query(
                """
                SELECT j.job_id, r.outcome,
                    MAX(j.attempts, COALESCE(r.attempts, 0),
                        COALESCE((SELECT MAX(a.attempt) FROM attempts a WHERE a.job_key = j.job_key), 0)),
                    (SELECT COUNT(*) FROM attempts a WHERE a.job_key = j.job_key AND (
                        (a.superseded = 0 AND (a.outcome = 'failed' OR a.outcome = 'timedOut'))
                        OR ((a.outcome IS NULL OR (a.outcome = 'cancelled' AND a.superseded = 1
                                AND a.message = '\(JournalStatements.coordinatorStopped)'))
                            AND \(StepLines.failureEvidence("a.steps")))))
                FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key
                WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key
                """,
                [.text(runID)]
            ) { row in (row.text(0), row.optionalText(1), row.int(2), row.int(3)) }
            for (jobID, outcomeText, attempts, failures) in rows {
                if let outcome = try Self.outcome(outcomeText, "job \(jobID)"), outcome.staysFinalOnResume {
                    state.done[jobID] = outcome
                } else {
                    state.pending.append(jobID)
                    state.nextAttempt[jobID] = attempts + 1
                    if failures > 0 { state.failures[jobID] = failures }
                }
            }
            return state
        }
    }
}

extension JobOutcome {
    /// Whether a resumed run keeps this outcome: every outcome but `notRun` and `cancelled`, which say the run
    /// stopped before the job's retry policy had its say (queued at Ctrl-C, taken back, aborted, or a failed attempt
    /// whose retry the drain could not run).
    public var staysFinalOnResume: Bool { self != .notRun && self != .cancelled }
}
