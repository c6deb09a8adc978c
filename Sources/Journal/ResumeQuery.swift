import CSQLite
import FlowVocabulary

/// What a run still has to do after its coordinator stopped, read within one snapshot (a read transaction of
/// ``JournalReader``); the rules are ``JournalReader/resumeState(run:)``'s.
struct ResumeQuery {
    let connection: SQLiteConnection

    /// The resume state of run `runID`.
    /// - Throws: ``JournalError`` (`SQLITE_NOTFOUND`) when the journal has no such run.
    func state(run runID: String) throws -> ResumeState {
        guard try connection.scalarInt("SELECT COUNT(*) FROM runs WHERE run_id = ?", [.text(runID)]) == 1 else {
            throw JournalError(code: SQLITE_NOTFOUND, message: "no run \(runID) in the journal", operation: "resume")
        }
        var state = ResumeState(done: [:], pending: [], nextAttempt: [:])
        for (jobID, outcomeText, attempts, failures) in try jobs(run: runID) {
            if let outcome = try JournalRowDecoding.outcome(outcomeText, "job \(jobID)"), outcome.staysFinalOnResume {
                state.done[jobID] = outcome
            } else {
                state.pending.append(jobID)
                state.nextAttempt[jobID] = attempts + 1
                if failures > 0 { state.failures[jobID] = failures }
            }
        }
        return state
    }

    /// Each job of the run in plan order: its id, final outcome (if any), the highest attempt number it reached,
    /// and the failed attempts that count against its retry budget.
    private func jobs(run runID: String) throws -> [(String, String?, Int, Int)] {
        try connection.query(
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
    }
}

extension JobOutcome {
    /// Whether a resumed run keeps this outcome: every outcome but `notRun` and `cancelled`, which say the run
    /// stopped before the job's retry policy had its say (queued at Ctrl-C, taken back, aborted, or a failed attempt
    /// whose retry the drain could not run).
    public var staysFinalOnResume: Bool { self != .notRun && self != .cancelled }
}
