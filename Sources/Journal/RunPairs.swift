import Foundation

/// Two runs read side by side, within one snapshot (a read transaction of ``JournalReader``): what a comparison
/// of runs (`diff`, a baseline) reads, streamed so memory does not grow with either run.
struct RunPairs {
    let connection: SQLiteConnection

    /// The jobs of run `head` in plan order, each with the job of run `base` that has the same id (nil when `base`
    /// has none): a join on the journal's `(run, job id)` index.
    func forEachJobPair(base: String, head: String, _ body: (_ head: JobRow, _ base: JobRow?) throws -> Void)
        throws
    {
        let columns = JournalRowDecoding.jobColumns
        let baseColumns = columns.replacingOccurrences(of: "j.", with: "bj.").replacingOccurrences(of: "r.", with: "br.")
        var ordinal = 0
        try connection.forEachRow(
            """
            SELECT \(columns), bj.job_key, \(baseColumns)
            FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key
            LEFT JOIN jobs bj ON bj.run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND bj.job_id = j.job_id
            LEFT JOIN results br ON br.job_key = bj.job_key
            WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key
            """,
            [.text(base), .text(head)]
        ) { row in
            let headRow = try JournalRowDecoding.jobRow(row, ordinal: ordinal)
            // The base job's columns follow its key; its plan position is not needed by a comparison.
            let baseRow =
                row.optionalInt(13) == nil ? nil : try JournalRowDecoding.jobRow(row.shifted(by: 14), ordinal: -1)
            try body(headRow, baseRow)
            ordinal += 1
        }
    }

    /// The jobs of run `run` that run `other` has no job of the same id for, in plan order.
    func forEachJob(run: String, missingFrom other: String, _ body: (JobRow) throws -> Void) throws {
        var ordinal = 0
        try connection.forEachRow(
            """
            SELECT \(JournalRowDecoding.jobColumns), (SELECT 1 FROM jobs o
                WHERE o.run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND o.job_id = j.job_id)
            FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key
            WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key
            """,
            [.text(other), .text(run)]
        ) { row in
            defer { ordinal += 1 }
            guard row.optionalInt(13) == nil else { return }
            try body(try JournalRowDecoding.jobRow(row, ordinal: ordinal))
        }
    }

    /// The distinct registries of the jobs of the given runs.
    func registries(runs: [String]) throws -> Set<String> {
        var out = Set<String>()
        for run in runs {
            let names = try connection.query(
                "SELECT DISTINCT registry FROM jobs WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?)",
                [.text(run)]) { $0.text(0) }
            out.formUnion(names)
        }
        return out
    }

    /// Whether a job of run `run` has axis `axis` in its canonical configuration (`…,axis=value,…`).
    func hasAxis(_ axis: String, run: String) throws -> Bool {
        try connection.scalarInt(
            """
            SELECT EXISTS (SELECT 1 FROM jobs WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?)
                AND (configuration LIKE ? ESCAPE '\\' OR configuration LIKE ? ESCAPE '\\'))
            """,
            [.text(run), .text(Self.likePattern(axis) + "=%"), .text("%," + Self.likePattern(axis) + "=%")]) == 1
    }

    /// `text` with LIKE's wildcards escaped.
    private static func likePattern(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
