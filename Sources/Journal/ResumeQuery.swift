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
                (SELECT COUNT(*) FROM attempts a WHERE a.job_key = j.job_key AND \(Self.countedFailure))
            FROM jobs j LEFT JOIN results r ON r.job_key = j.job_key
            WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) ORDER BY j.job_key
            """,
            [.text(runID)]
        ) { row in (row.text(0), row.optionalText(1), row.int(2), row.int(3)) }
    }

    /// An attempt `a` that counts against its job's retry budget: a `failed` or `timedOut` result, or no result (or
    /// the result a resume closed it with) and a failing step journaled.
    private static let countedFailure = """
        ((a.superseded = 0 AND (a.outcome = 'failed' OR a.outcome = 'timedOut'))
            OR ((a.outcome IS NULL OR (a.outcome = 'cancelled' AND a.superseded = 1
                    AND a.message = '\(JournalStatements.coordinatorStopped)'))
                AND \(StepLines.failureEvidence("a.steps"))))
        """

    /// The last attempt of job `jobID` in run `runID` that counts as failed (nil: none does), with its failing step
    /// and message: from its result, else from the first failing step journaled.
    func lastFailure(run runID: String, job jobID: String) throws -> PriorFailure? {
        let rows = try connection.query(
            """
            SELECT a.attempt, a.outcome, a.failure_step, a.message, a.duration_s, a.steps
            FROM attempts a JOIN jobs j ON j.job_key = a.job_key
            WHERE j.run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND j.job_id = ? AND \(Self.countedFailure)
            ORDER BY a.attempt DESC LIMIT 1
            """,
            [.text(runID), .text(jobID)]
        ) { row in
            (row.int(0), row.optionalText(1), row.optionalInt(2), row.optionalText(3), row.optionalDouble(4),
             row.optionalText(5))
        }
        guard let (attempt, outcome, step, message, duration, steps) = rows.first else { return nil }
        let failing = try StepLines.decode(steps ?? "", "attempt \(attempt) of job \(jobID) in run \(runID)")
            .first(where: StepLines.showsFailure)
        // A result of its own says how it ended; an attempt closed (or left open) by a stop failed at its failing step.
        let closedByStop = outcome == nil || outcome == "cancelled" || (message ?? "").hasSuffix(JournalStatements.coordinatorStopped)
        return PriorFailure(
            attempt: attempt, outcome: outcome == "timedOut" ? .timedOut : .failed, duration: duration,
            failureStep: closedByStop ? failing?.index : step ?? failing?.index,
            message: closedByStop ? failing?.message ?? message : message ?? failing?.message)
    }
}

extension JobOutcome {
    /// Whether a resumed run keeps this outcome: every outcome but `notRun` and `cancelled`, which say the run
    /// stopped before the job's retry policy had its say (queued at Ctrl-C, taken back, aborted, or a failed attempt
    /// whose retry the drain could not run).
    public var staysFinalOnResume: Bool { self != .notRun && self != .cancelled }
}
