/// The journal's SQL schema and its migrations (documented in docs/ARCHITECTURE.md, section "Journal").
///
/// `schema_version` holds one row: the number of migrations applied. A migration is appended, never edited;
/// the writer applies the missing ones in one transaction when it opens the file.
enum JournalSchema {
    /// Migration `i` brings the schema from version `i` to `i + 1`.
    static let migrations: [String] = [
        // Frozen: a released migration is never edited (the outcome lists below are literal, not `allCases`).
        // 1: the initial schema.
        """
        CREATE TABLE runs (
            run_key       INTEGER PRIMARY KEY,
            run_id        TEXT NOT NULL UNIQUE,
            matrix_name   TEXT NOT NULL,
            matrix_path   TEXT NOT NULL,
            seed          INTEGER NOT NULL,
            started_at    REAL NOT NULL,
            finished_at   REAL,
            status        TEXT NOT NULL CHECK (\(oneOf("status", ["running", "completed", "interrupted", "aborted"]))),
            settings_json TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);

        CREATE TABLE jobs (
            job_key            INTEGER PRIMARY KEY,
            run_key            INTEGER NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
            job_id             TEXT NOT NULL,
            scenario_id        TEXT NOT NULL,
            scenario_title     TEXT NOT NULL,
            configuration      TEXT NOT NULL,
            configuration_json TEXT NOT NULL,
            registry           TEXT NOT NULL,
            state              TEXT NOT NULL DEFAULT 'queued' CHECK (\(oneOf("state", ["queued", "running", "done"]))),
            outcome            TEXT CHECK (\(jobOutcomes)),
            attempts           INTEGER NOT NULL DEFAULT 0,
            duration_s         REAL,
            failure_step       INTEGER,
            failure_message    TEXT,
            finished_at        REAL,
            UNIQUE (run_key, job_id)
        );

        CREATE TABLE attempts (
            job_key      INTEGER NOT NULL REFERENCES jobs (job_key) ON DELETE CASCADE,
            attempt      INTEGER NOT NULL CHECK (attempt >= 1),
            worker       TEXT NOT NULL,
            started_at   REAL,
            finished_at  REAL,
            outcome      TEXT CHECK (\(jobOutcomes)),
            failure_step INTEGER,
            message      TEXT,
            duration_s   REAL,
            superseded   INTEGER NOT NULL DEFAULT 0 CHECK (superseded = 0 OR superseded = 1),
            PRIMARY KEY (job_key, attempt)
        ) WITHOUT ROWID;

        CREATE TABLE steps (
            job_key       INTEGER NOT NULL,
            attempt       INTEGER NOT NULL,
            step_index    INTEGER NOT NULL CHECK (step_index >= 0),
            key           TEXT NOT NULL,
            outcome       TEXT NOT NULL CHECK (\(oneOf("outcome", ["passed", "failed", "skipped", "timedOut", "cancelled"]))),
            duration_s    REAL NOT NULL,
            message       TEXT,
            interruptions TEXT,
            PRIMARY KEY (job_key, attempt, step_index),
            FOREIGN KEY (job_key, attempt) REFERENCES attempts (job_key, attempt) ON DELETE CASCADE
        ) WITHOUT ROWID;

        CREATE TABLE artifacts (
            job_key         INTEGER NOT NULL,
            attempt         INTEGER NOT NULL,
            step_index      INTEGER NOT NULL,
            name            TEXT NOT NULL,
            media_type      TEXT NOT NULL,
            sha256          TEXT NOT NULL CHECK (length(sha256) = 64),
            compressed_size INTEGER NOT NULL CHECK (compressed_size >= 0),
            raw_size        INTEGER NOT NULL CHECK (raw_size >= 0),
            PRIMARY KEY (job_key, attempt, step_index, name),
            FOREIGN KEY (job_key, attempt) REFERENCES attempts (job_key, attempt) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX artifacts_by_blob ON artifacts (sha256);

        CREATE TABLE history (
            job_id      TEXT NOT NULL,
            run_key     INTEGER NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
            outcome     TEXT NOT NULL CHECK (\(jobOutcomes)),
            duration_s  REAL,
            finished_at REAL NOT NULL,
            PRIMARY KEY (job_id, run_key)
        ) WITHOUT ROWID;
        CREATE INDEX history_by_run ON history (run_key);
        """,
    ]

    private static let jobOutcomes = oneOf(
        "outcome", ["passed", "failed", "flaky", "timedOut", "quarantined", "cancelled", "notRun"]
    )

    /// `(column = 'a' OR column = 'b' …)`: a CHECK for an enumerated text column. SQLite evaluates `IN (…)`
    /// with more than a few constants through a temporary table built on every row written; OR does not.
    private static func oneOf(_ column: String, _ values: [String]) -> String {
        "(" + values.map { "\(column) = '\($0)'" }.joined(separator: " OR ") + ")"
    }

    /// The schema version this build writes and reads.
    static var currentVersion: Int { migrations.count }

    /// Creates `schema_version` if needed and applies the missing migrations in one transaction.
    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            var version = try connection.scalarInt("SELECT version FROM schema_version") ?? -1
            if version < 0 {
                try connection.run("INSERT INTO schema_version (version) VALUES (0)")
                version = 0
            }
            try checkSupported(version, path: connection.path)
            for index in version..<migrations.count {
                try connection.execute(migrations[index])
            }
            try connection.run("UPDATE schema_version SET version = ?", [.int(migrations.count)])
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Refuses a journal written by a newer build.
    static func checkSupported(_ version: Int, path: String) throws {
        guard version <= currentVersion else {
            throw JournalError(
                code: JournalError.misuse,
                message: "the journal's schema version \(version) is newer than this build's (\(currentVersion)); "
                    + "upgrade flowmatrix",
                operation: "open \(path)"
            )
        }
    }
}
