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

    // MARK: - Runs

    /// Runs, newest first; `countingOutcomes`: false leaves their outcomes uncounted (one query per run saved).
    public func runs(limit: Int = 100, countingOutcomes: Bool = true) throws -> [RunSummary] {
        try read { try RunListing(connection: $0).runs(limit: limit, countingOutcomes: countingOutcomes) }
    }

    /// One run, or nil when the journal has no such run.
    /// - Parameter countingOutcomes: false leaves ``RunSummary/outcomes`` empty and skips the query that counts them
    ///   (a report counts the outcomes itself as it reads the jobs).
    public func run(_ runID: String, countingOutcomes: Bool = true) throws -> RunSummary? {
        try read { try RunListing(connection: $0).run(runID, countingOutcomes: countingOutcomes) }
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
        try read { try RunListing(connection: $0).latestRunID(excluding: excluding) }
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
                SELECT \(JournalRowDecoding.jobColumns)
                FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key
                WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key
                """,
                [.text(runID)]
            ) { row in
                try body(try JournalRowDecoding.jobRow(row, ordinal: ordinal))
                ordinal += 1
            }
        }
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
            SELECT \(JournalRowDecoding.jobColumns), j.job_key, \(JournalRowDecoding.attemptColumns), a.steps
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
                        let jobRow = try JournalRowDecoding.jobRow(row, ordinal: ordinal)
                        current = JobDetail(row: jobRow, attempts: [], artifacts: [:])
                        currentKey = key
                        ordinal += 1
                    }
                    guard !row.isNull(14) else { return }
                    let jobID = current?.row.job.jobID ?? ""
                    let attempt = try JournalRowDecoding.attemptRow(row, "attempt of \(jobID)", base: 14)
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
                SELECT \(JournalRowDecoding.attemptColumns)
                FROM attempts a JOIN jobs j ON j.job_key = a.job_key JOIN runs r ON r.run_key = j.run_key
                WHERE r.run_id = ? AND j.job_id = ? ORDER BY a.attempt
                """,
                [.text(runID), .text(jobID)]
            ) { row in try JournalRowDecoding.attemptRow(row, "attempt of \(jobID)") }
        }
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
        try read { try ResumeQuery(connection: $0).state(run: runID) }
    }

    /// The last attempt of a job that counts as failed on resume (see ``resumeState(run:)``), with its failing step and
    /// message: what the job's final result says when those attempts used up its retries. Nil when none counts.
    public func lastFailure(run runID: String, job jobID: String) throws -> PriorFailure? {
        try read { try ResumeQuery(connection: $0).lastFailure(run: runID, job: jobID) }
    }

    // MARK: - History across runs

    /// Median durations per job over each job's `recentRuns` most recent measured runs, and the median of
    /// those medians. Cancelled, quarantined and not-run results do not count.
    /// - Parameter jobIDs: restrict to these jobs (nil: every job in the history).
    public func durationEstimates(jobIDs: Set<String>? = nil, recentRuns: Int = 10) throws -> DurationEstimates {
        try durationEstimates(including: jobIDs.map { ids in { ids.contains($0) } }, recentRuns: recentRuns)
    }

    /// `durationEstimates`, restricted to the jobs `including` accepts (nil: every job in the history): a caller with
    /// a million jobs answers from what it already holds instead of building a set of their ids.
    public func durationEstimates(including: ((String) -> Bool)?, recentRuns: Int = 10) throws -> DurationEstimates {
        try read { try JobHistory(connection: $0).durationEstimates(including: including, recentRuns: recentRuns) }
    }

    /// Outcome counts per job over each job's `recentRuns` most recent runs.
    public func flakiness(jobIDs: Set<String>? = nil, recentRuns: Int = 20) throws -> [String: FlakinessStats] {
        try read { try JobHistory(connection: $0).flakiness(jobIDs: jobIDs, recentRuns: recentRuns) }
    }

    /// A job's history, newest first.
    public func history(job jobID: String, limit: Int = 50) throws -> [HistoryEntry] {
        try read { try JobHistory(connection: $0).entries(job: jobID, limit: limit) }
    }

    // MARK: - Two runs side by side

    /// Streams the jobs of run `head` in plan order, each with the job of run `base` that has the same id (nil when
    /// `base` has none), one pair at a time: a join on the journal's `(run, job id)` index, so memory does not grow with
    /// either run. `body` runs inside the reader's read transaction and must not call this reader.
    public func forEachJobPair(base: String, head: String, _ body: (_ head: JobRow, _ base: JobRow?) throws -> Void) throws {
        try read { try RunPairs(connection: $0).forEachJobPair(base: base, head: head, body) }
    }

    /// Streams the jobs of run `run` that run `other` has no job of the same id for, in plan order.
    public func forEachJob(run: String, missingFrom other: String, _ body: (JobRow) throws -> Void) throws {
        try read { try RunPairs(connection: $0).forEachJob(run: run, missingFrom: other, body) }
    }

    /// The distinct registries of the jobs of the given runs.
    public func registries(runs: [String]) throws -> Set<String> {
        try read { try RunPairs(connection: $0).registries(runs: runs) }
    }

    /// Whether a job of run `run` has axis `axis` in its canonical configuration (`…,axis=value,…`).
    public func hasAxis(_ axis: String, run: String) throws -> Bool {
        try read { try RunPairs(connection: $0).hasAxis(axis, run: run) }
    }
}
