import Foundation

/// History across runs, read within one snapshot (a read transaction of ``JournalReader``): median durations,
/// flakiness, a job's past results. Each query streams its rows, so a journal of many large runs is never held.
struct JobHistory {
    let connection: SQLiteConnection

    /// Median durations per job over each job's `recentRuns` most recent measured runs, restricted to the jobs
    /// `including` accepts (nil: every job in the history), and the median of those medians. Cancelled,
    /// quarantined and not-run results do not count.
    func durationEstimates(including: ((String) -> Bool)?, recentRuns: Int) throws -> DurationEstimates {
        // Streamed group by group (rows come ordered by job).
        var perJob: [String: Double] = [:]
        var current: String?
        var durations: [Double] = []
        func close() {
            guard let job = current, !durations.isEmpty else { return }
            perJob[job] = Self.median(durations)
        }
        try connection.forEachRow(
            """
            SELECT job_id, duration_s FROM (
                SELECT j.job_id, r.duration_s,
                    ROW_NUMBER() OVER (PARTITION BY j.job_id ORDER BY r.finished_at DESC, j.run_key DESC) AS recency
                FROM results r JOIN jobs j ON j.job_key = r.job_key
                WHERE r.duration_s IS NOT NULL AND r.outcome IN ('passed', 'failed', 'flaky', 'timedOut')
            ) WHERE recency <= ? ORDER BY job_id, duration_s
            """,
            [.int(max(1, recentRuns))]
        ) { row in
            let job = row.text(0)
            if job != current {
                close()
                current = job
                durations.removeAll(keepingCapacity: true)
            }
            if including?(job) ?? true { durations.append(row.double(1)) }
        }
        close()
        return DurationEstimates(perJob: perJob, overall: perJob.isEmpty ? nil : Self.median(perJob.values.sorted()))
    }

    /// The median of sorted values (the mean of the middle two for an even count).
    static func median(_ sorted: [Double]) -> Double {
        let n = sorted.count
        guard n > 0 else { return 0 }
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// Outcome counts per job (of `jobIDs`; nil: every job) over each job's `recentRuns` most recent runs.
    func flakiness(jobIDs: Set<String>?, recentRuns: Int) throws -> [String: FlakinessStats] {
        // Streamed row by row: only the counts of the jobs asked for are held.
        var stats: [String: FlakinessStats] = [:]
        try connection.forEachRow(
            """
            SELECT job_id, outcome FROM (
                SELECT j.job_id, r.outcome,
                    ROW_NUMBER() OVER (PARTITION BY j.job_id ORDER BY r.finished_at DESC, j.run_key DESC) AS recency
                FROM results r JOIN jobs j ON j.job_key = r.job_key
                WHERE r.outcome IN ('passed', 'failed', 'flaky', 'timedOut')
            ) WHERE recency <= ?
            """,
            [.int(max(1, recentRuns))]
        ) { row in
            let jobID = row.text(0)
            guard jobIDs?.contains(jobID) ?? true else { return }
            var s = stats[jobID] ?? FlakinessStats(runs: 0, passed: 0, failed: 0, flaky: 0)
            s.runs += 1
            switch row.text(1) {
            case "passed": s.passed += 1
            case "flaky": s.flaky += 1
            default: s.failed += 1
            }
            stats[jobID] = s
        }
        return stats
    }

    /// A job's results across runs, newest first, at most `limit`.
    func entries(job jobID: String, limit: Int) throws -> [HistoryEntry] {
        try connection.query(
            """
            SELECT ru.run_id, r.outcome, r.duration_s
            FROM jobs j JOIN results r ON r.job_key = j.job_key JOIN runs ru ON ru.run_key = j.run_key
            WHERE j.job_id = ? ORDER BY r.finished_at DESC, j.run_key DESC LIMIT ?
            """,
            [.text(jobID), .int(limit)]
        ) { row in
            HistoryEntry(
                runID: row.text(0),
                outcome: try JournalRowDecoding.outcome(row.text(1), "history of \(jobID)") ?? .notRun,
                duration: row.optionalDouble(2)
            )
        }
    }
}
