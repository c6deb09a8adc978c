import CSQLite
import FlowVocabulary
import Foundation

/// Turns the journal's rows into the reader's values: the column lists of jobs and attempts every query that reads
/// them selects, and the decoding of dates and outcomes (an unknown outcome is a corrupt journal, not a crash).
enum JournalRowDecoding {
    /// Column `i` as a date (seconds since 1970), nil when NULL.
    static func date(_ row: SQLRow, _ i: Int32) -> Date? {
        row.optionalDouble(i).map { Date(timeIntervalSince1970: $0) }
    }

    /// An outcome column: nil when NULL; an unknown value throws (`SQLITE_CORRUPT`), naming `what` was read.
    static func outcome(_ text: String?, _ what: @autoclosure () -> String) throws -> JobOutcome? {
        guard let text else { return nil }
        guard let value = JobOutcome(rawValue: text) else {
            throw JournalError(code: SQLITE_CORRUPT, message: "unknown outcome '\(text)' in \(what())", operation: "read")
        }
        return value
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
        if let outcome = try JournalRowDecoding.outcome(row.optionalText(7), "job \(job.jobID)") {
            result = JobResult(
                outcome: outcome, attempts: row.int(8), duration: row.optionalDouble(9),
                failureStep: row.optionalInt(10), failureMessage: row.optionalText(11),
                finishedAt: JournalRowDecoding.date(row, 12) ?? Date(timeIntervalSince1970: 0)
            )
        }
        // A job is done when it has a result; `jobs.state` says queued or running until then.
        return JobRow(
            job: job, ordinal: ordinal, state: result != nil ? .done : JobState(rawValue: row.text(6)) ?? .queued,
            result: result)
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
        if let outcome = try JournalRowDecoding.outcome(row.optionalText(base + 4), what()) {
            result = AttemptResult(
                outcome: outcome, finishedAt: JournalRowDecoding.date(row, base + 3) ?? Date(timeIntervalSince1970: 0),
                duration: row.optionalDouble(base + 7) ?? 0, failureStep: row.optionalInt(base + 5),
                message: row.optionalText(base + 6), superseded: row.int(base + 8) != 0
            )
        }
        return AttemptRow(
            attempt: row.int(base), worker: row.text(base + 1), startedAt: JournalRowDecoding.date(row, base + 2), result: result)
    }
}
