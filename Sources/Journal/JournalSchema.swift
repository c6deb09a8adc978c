import CSQLite

/// The journal's SQL schema and its migrations (documented in docs/ARCHITECTURE.md, section "Journal").
///
/// `schema_version` holds one row: the number of migrations applied. A migration is appended, never edited;
/// the writer applies the missing ones in one transaction when it opens the file.
enum JournalSchema {
    /// Migration `i` brings the schema from version `i` to `i + 1`.
    static let migrations: [String] = [
        // Frozen: a released migration is never edited; a change is a new migration appended at the end.
        // 1: the initial schema.
        """
        CREATE TABLE runs (
            run_id        TEXT PRIMARY KEY,
            matrix_name   TEXT NOT NULL,
            matrix_path   TEXT NOT NULL,
            seed          INTEGER NOT NULL,
            started_at    REAL NOT NULL,
            finished_at   REAL,
            status        TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'aborted')),
            settings_json TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);

        CREATE TABLE jobs (
            run_id             TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            job_id             TEXT NOT NULL,
            ordinal            INTEGER NOT NULL,
            scenario_id        TEXT NOT NULL,
            scenario_title     TEXT NOT NULL,
            configuration      TEXT NOT NULL,
            configuration_json TEXT NOT NULL,
            registry           TEXT NOT NULL,
            state              TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
            outcome            TEXT CHECK (outcome IN
                ('passed', 'failed', 'flaky', 'timedOut', 'quarantined', 'cancelled', 'notRun')),
            attempts           INTEGER NOT NULL DEFAULT 0,
            duration_s         REAL,
            failure_step       INTEGER,
            failure_message    TEXT,
            finished_at        REAL,
            PRIMARY KEY (run_id, job_id)
        ) WITHOUT ROWID;

        CREATE TABLE attempts (
            run_id       TEXT NOT NULL,
            job_id       TEXT NOT NULL,
            attempt      INTEGER NOT NULL CHECK (attempt >= 1),
            worker       TEXT NOT NULL,
            started_at   REAL,
            finished_at  REAL,
            outcome      TEXT CHECK (outcome IN
                ('passed', 'failed', 'flaky', 'timedOut', 'quarantined', 'cancelled', 'notRun')),
            failure_step INTEGER,
            message      TEXT,
            duration_s   REAL,
            superseded   INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1)),
            PRIMARY KEY (run_id, job_id, attempt),
            FOREIGN KEY (run_id, job_id) REFERENCES jobs (run_id, job_id) ON DELETE CASCADE
        ) WITHOUT ROWID;

        CREATE TABLE steps (
            run_id        TEXT NOT NULL,
            job_id        TEXT NOT NULL,
            attempt       INTEGER NOT NULL,
            step_index    INTEGER NOT NULL CHECK (step_index >= 0),
            key           TEXT NOT NULL,
            outcome       TEXT NOT NULL CHECK (outcome IN ('passed', 'failed', 'skipped', 'timedOut', 'cancelled')),
            duration_s    REAL NOT NULL,
            message       TEXT,
            interruptions TEXT,
            PRIMARY KEY (run_id, job_id, attempt, step_index),
            FOREIGN KEY (run_id, job_id, attempt) REFERENCES attempts (run_id, job_id, attempt) ON DELETE CASCADE
        ) WITHOUT ROWID;

        CREATE TABLE artifacts (
            run_id          TEXT NOT NULL,
            job_id          TEXT NOT NULL,
            attempt         INTEGER NOT NULL,
            step_index      INTEGER NOT NULL,
            name            TEXT NOT NULL,
            media_type      TEXT NOT NULL,
            sha256          TEXT NOT NULL CHECK (length(sha256) = 64),
            compressed_size INTEGER NOT NULL CHECK (compressed_size >= 0),
            raw_size        INTEGER NOT NULL CHECK (raw_size >= 0),
            PRIMARY KEY (run_id, job_id, attempt, step_index, name),
            FOREIGN KEY (run_id, job_id, attempt) REFERENCES attempts (run_id, job_id, attempt) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX artifacts_by_blob ON artifacts (sha256);

        CREATE TABLE history (
            job_id      TEXT NOT NULL,
            run_id      TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            outcome     TEXT NOT NULL CHECK (outcome IN
                ('passed', 'failed', 'flaky', 'timedOut', 'quarantined', 'cancelled', 'notRun')),
            duration_s  REAL,
            finished_at REAL NOT NULL,
            PRIMARY KEY (job_id, run_id)
        ) WITHOUT ROWID;
        CREATE INDEX history_by_run ON history (run_id);
        """,

        // 2: integer surrogate keys (runs.run_key, jobs.job_key) instead of repeating the run id and job id
        // in every attempt, step and artifact row; enumerated CHECKs as OR chains (SQLite evaluates a long
        // `IN (…)` list through a temporary table on every row written). Runs with foreign keys off.
        """
        CREATE TABLE runs_v2 (
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

        CREATE TABLE jobs_v2 (
            job_key            INTEGER PRIMARY KEY,
            run_key            INTEGER NOT NULL REFERENCES runs_v2 (run_key) ON DELETE CASCADE,
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

        CREATE TABLE attempts_v2 (
            job_key      INTEGER NOT NULL REFERENCES jobs_v2 (job_key) ON DELETE CASCADE,
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

        CREATE TABLE steps_v2 (
            job_key       INTEGER NOT NULL,
            attempt       INTEGER NOT NULL,
            step_index    INTEGER NOT NULL CHECK (step_index >= 0),
            key           TEXT NOT NULL,
            outcome       TEXT NOT NULL CHECK (\(oneOf("outcome", ["passed", "failed", "skipped", "timedOut", "cancelled"]))),
            duration_s    REAL NOT NULL,
            message       TEXT,
            interruptions TEXT,
            PRIMARY KEY (job_key, attempt, step_index),
            FOREIGN KEY (job_key, attempt) REFERENCES attempts_v2 (job_key, attempt) ON DELETE CASCADE
        ) WITHOUT ROWID;

        CREATE TABLE artifacts_v2 (
            job_key         INTEGER NOT NULL,
            attempt         INTEGER NOT NULL,
            step_index      INTEGER NOT NULL,
            name            TEXT NOT NULL,
            media_type      TEXT NOT NULL,
            sha256          TEXT NOT NULL CHECK (length(sha256) = 64),
            compressed_size INTEGER NOT NULL CHECK (compressed_size >= 0),
            raw_size        INTEGER NOT NULL CHECK (raw_size >= 0),
            PRIMARY KEY (job_key, attempt, step_index, name),
            FOREIGN KEY (job_key, attempt) REFERENCES attempts_v2 (job_key, attempt) ON DELETE CASCADE
        ) WITHOUT ROWID;

        CREATE TABLE history_v2 (
            job_id      TEXT NOT NULL,
            run_key     INTEGER NOT NULL REFERENCES runs_v2 (run_key) ON DELETE CASCADE,
            outcome     TEXT NOT NULL CHECK (\(jobOutcomes)),
            duration_s  REAL,
            finished_at REAL NOT NULL,
            PRIMARY KEY (job_id, run_key)
        ) WITHOUT ROWID;

        INSERT INTO runs_v2 (run_id, matrix_name, matrix_path, seed, started_at, finished_at, status, settings_json)
            SELECT run_id, matrix_name, matrix_path, seed, started_at, finished_at, status, settings_json
            FROM runs ORDER BY started_at, run_id;
        INSERT INTO jobs_v2 (run_key, job_id, scenario_id, scenario_title, configuration, configuration_json, registry,
                state, outcome, attempts, duration_s, failure_step, failure_message, finished_at)
            SELECT r.run_key, j.job_id, j.scenario_id, j.scenario_title, j.configuration, j.configuration_json,
                j.registry, j.state, j.outcome, j.attempts, j.duration_s, j.failure_step, j.failure_message,
                j.finished_at
            FROM jobs j JOIN runs_v2 r ON r.run_id = j.run_id ORDER BY r.run_key, j.ordinal;
        INSERT INTO attempts_v2 (job_key, attempt, worker, started_at, finished_at, outcome, failure_step, message,
                duration_s, superseded)
            SELECT n.job_key, a.attempt, a.worker, a.started_at, a.finished_at, a.outcome, a.failure_step, a.message,
                a.duration_s, a.superseded
            FROM attempts a JOIN runs_v2 r ON r.run_id = a.run_id JOIN jobs_v2 n ON n.run_key = r.run_key
                AND n.job_id = a.job_id;
        INSERT INTO steps_v2 (job_key, attempt, step_index, key, outcome, duration_s, message, interruptions)
            SELECT n.job_key, s.attempt, s.step_index, s.key, s.outcome, s.duration_s, s.message, s.interruptions
            FROM steps s JOIN runs_v2 r ON r.run_id = s.run_id JOIN jobs_v2 n ON n.run_key = r.run_key
                AND n.job_id = s.job_id;
        INSERT INTO artifacts_v2 (job_key, attempt, step_index, name, media_type, sha256, compressed_size, raw_size)
            SELECT n.job_key, a.attempt, a.step_index, a.name, a.media_type, a.sha256, a.compressed_size, a.raw_size
            FROM artifacts a JOIN runs_v2 r ON r.run_id = a.run_id JOIN jobs_v2 n ON n.run_key = r.run_key
                AND n.job_id = a.job_id;
        INSERT INTO history_v2 (job_id, run_key, outcome, duration_s, finished_at)
            SELECT h.job_id, r.run_key, h.outcome, h.duration_s, h.finished_at
            FROM history h JOIN runs_v2 r ON r.run_id = h.run_id;

        DROP TABLE history;
        DROP TABLE artifacts;
        DROP TABLE steps;
        DROP TABLE attempts;
        DROP TABLE jobs;
        DROP TABLE runs;
        ALTER TABLE runs_v2 RENAME TO runs;
        ALTER TABLE jobs_v2 RENAME TO jobs;
        ALTER TABLE attempts_v2 RENAME TO attempts;
        ALTER TABLE steps_v2 RENAME TO steps;
        ALTER TABLE artifacts_v2 RENAME TO artifacts;
        ALTER TABLE history_v2 RENAME TO history;
        CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);
        CREATE INDEX jobs_by_run ON jobs (run_key);
        CREATE INDEX artifacts_by_blob ON artifacts (sha256);
        CREATE INDEX history_by_run ON history (run_key);
        """,

        // 3: an attempt's steps become one column (`attempts.steps`, JSON Lines, see StepLines) instead of a row
        // per step; a job's final result moves from its (wide) `jobs` row to a narrow `results` row, inserted once
        // instead of rewriting the job row; the cross-run history is read from `results` (the `history` table held
        // the same outcome, duration and time a second time). A passing job is now two row writes, not eight.
        // `jobs.state` keeps `queued` / `running`; a job is done when it has a result.
        """
        ALTER TABLE attempts ADD COLUMN steps TEXT;
        UPDATE attempts SET steps = (
            SELECT group_concat(line, char(10)) FROM (
                SELECT json_object('i', s.step_index, 'k', s.key, 'o', s.outcome, 'd', s.duration_s,
                    'm', s.message, 'x', s.interruptions) AS line
                FROM steps s WHERE s.job_key = attempts.job_key AND s.attempt = attempts.attempt
                ORDER BY s.step_index
            )
        );
        DROP TABLE steps;

        CREATE TABLE jobs_v3 (
            job_key            INTEGER PRIMARY KEY,
            run_key            INTEGER NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
            job_id             TEXT NOT NULL,
            scenario_id        TEXT NOT NULL,
            scenario_title     TEXT NOT NULL,
            configuration      TEXT NOT NULL,
            configuration_json TEXT NOT NULL,
            registry           TEXT NOT NULL,
            state              TEXT NOT NULL DEFAULT 'queued' CHECK (\(oneOf("state", ["queued", "running"]))),
            attempts           INTEGER NOT NULL DEFAULT 0,
            UNIQUE (run_key, job_id)
        );
        CREATE TABLE results (
            job_key         INTEGER PRIMARY KEY REFERENCES jobs_v3 (job_key) ON DELETE CASCADE,
            outcome         TEXT NOT NULL CHECK (\(jobOutcomes)),
            attempts        INTEGER NOT NULL,
            duration_s      REAL,
            failure_step    INTEGER,
            failure_message TEXT,
            finished_at     REAL NOT NULL
        );
        INSERT INTO jobs_v3 (job_key, run_key, job_id, scenario_id, scenario_title, configuration, configuration_json,
                registry, state, attempts)
            SELECT job_key, run_key, job_id, scenario_id, scenario_title, configuration, configuration_json, registry,
                CASE state WHEN 'running' THEN 'running' ELSE 'queued' END, attempts
            FROM jobs;
        INSERT INTO results (job_key, outcome, attempts, duration_s, failure_step, failure_message, finished_at)
            SELECT job_key, outcome, attempts, duration_s, failure_step, failure_message, COALESCE(finished_at, 0)
            FROM jobs WHERE state = 'done' AND outcome IS NOT NULL;
        DROP TABLE history;
        DROP TABLE jobs;
        ALTER TABLE jobs_v3 RENAME TO jobs;
        CREATE INDEX jobs_by_run ON jobs (run_key);
        """,
        // 4: no table changes. `attempts.steps` may hold the step outcome `errored` (a command's test that errored
        // rather than failed), which a build of schema 3 would refuse as an unknown outcome: the version says so
        // first ("newer than this build's").
        "SELECT 1;",
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
    ///
    /// Foreign keys are off while migrating (tables are rebuilt and renamed); `foreign_key_check` must come
    /// back clean before the transaction commits.
    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer {
            do { try connection.execute("PRAGMA foreign_keys = ON") } catch {
                // Only fails on a closed or broken connection, whose next statement reports the real error.
                _ = error
            }
        }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            if try !hasVersionTable(connection) {
                try connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            }
            var version = try connection.scalarInt("SELECT version FROM schema_version") ?? -1
            if version < 0 {
                try connection.run("INSERT INTO schema_version (version) VALUES (0)")
                version = 0
            }
            try checkSupported(version, path: connection.path)
            for index in version..<migrations.count {
                try connection.execute(migrations[index])
            }
            let violations = try connection.query("PRAGMA foreign_key_check") { $0.text(0) }
            guard violations.isEmpty else {
                throw JournalError(
                    code: SQLITE_CONSTRAINT,
                    message:
                        "migration left rows without their parent in \(Set(violations).sorted().joined(separator: ", "))",
                    operation: "migrate \(connection.path) to schema \(migrations.count)"
                )
            }
            try connection.run("UPDATE schema_version SET version = ?", [.int(migrations.count)])
            try connection.execute("COMMIT")
        } catch {
            do { try connection.execute("ROLLBACK") } catch {
                // The failed statement may already have ended the transaction; the original error is reported.
                _ = error
            }
            throw error
        }
    }

    private static func hasVersionTable(_ connection: SQLiteConnection) throws -> Bool {
        try connection.scalarInt("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
            == 1
    }

    /// Refuses an SQLite database that has tables but is not a journal: journal tables are never added to
    /// somebody else's database (nor is its journal mode changed: call this before switching to WAL).
    static func checkIsJournalOrEmpty(_ connection: SQLiteConnection) throws {
        guard try !hasVersionTable(connection) else { return }
        let tables = try connection.scalarInt("SELECT COUNT(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") ?? 0
        guard tables == 0 else {
            throw JournalError(
                code: SQLITE_ERROR, message: "not a FlowMatrix journal (an SQLite database without schema_version)",
                operation: "open \(connection.path)"
            )
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
