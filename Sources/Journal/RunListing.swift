import FlowVocabulary
import Foundation

/// The runs a journal holds, each with its job count and outcome counts, read within one snapshot (a read
/// transaction of ``JournalReader``).
struct RunListing {
    let connection: SQLiteConnection

    static let runColumns = """
        r.run_id, r.matrix_name, r.matrix_path, r.seed, r.started_at, r.settings_json, r.status, r.finished_at,
        (SELECT COUNT(*) FROM jobs j WHERE j.run_key = r.run_key)
        """

    /// The runs `sql` selects (``runColumns`` first); `outcomes`: count each run's outcomes too.
    func summaries(_ sql: String, _ values: [SQLValue], outcomes: Bool = true) throws -> [RunSummary] {
        var runs = try connection.query(sql, values) { row in
            RunSummary(
                info: RunInfo(
                    runID: row.text(0), matrixName: row.text(1), matrixPath: row.text(2),
                    seed: UInt64(bitPattern: Int64(row.int(3))), startedAt: Date(timeIntervalSince1970: row.double(4)),
                    settingsJSON: row.text(5)
                ),
                status: RunStatus(rawValue: row.text(6)) ?? .aborted,
                finishedAt: JournalRowDecoding.date(row, 7),
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
                if let outcome = try JournalRowDecoding.outcome(text, "run \(runs[i].info.runID)") {
                    runs[i].outcomes[outcome] = count
                }
            }
        }
        return runs
    }

    /// Runs, newest first.
    func runs(limit: Int, countingOutcomes: Bool = true) throws -> [RunSummary] {
        try summaries(
            "SELECT \(Self.runColumns) FROM runs r ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?", [.int(limit)],
            outcomes: countingOutcomes)
    }

    /// One run, or nil when the journal has no such run; `countingOutcomes`: false leaves its outcomes uncounted.
    func run(_ runID: String, countingOutcomes: Bool) throws -> RunSummary? {
        try summaries(
            "SELECT \(Self.runColumns) FROM runs r WHERE r.run_id = ?", [.text(runID)], outcomes: countingOutcomes
        ).first
    }

    /// The most recently started run other than `excluding`, or nil for an empty journal.
    func latestRunID(excluding: String?) throws -> String? {
        try connection.query(
            "SELECT run_id FROM runs WHERE run_id IS NOT ?1 ORDER BY started_at DESC, run_id DESC LIMIT 1",
            [.optionalText(excluding)]
        ) { $0.text(0) }.first
    }
}
