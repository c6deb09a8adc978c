import FlowVocabulary
import Foundation
import Journal
import MatrixPlan
import Visual

/// A visual change as a verdict (docs/VISUAL.md, "A visual change is a verdict"): under `policy.visual.onChange: fail`
/// a job whose compared, passing attempt has a changed step fails — the journal records that attempt and the job as
/// `failed` with the rule code and the changed steps, so `show`, the exit code, junit.xml, summary.json and the heat
/// map all say so. Under `report` nothing changes but `visual.json`.
///
/// The comparison runs in the coordinator's process once the run has ended (the baselines and the blob store are
/// there; a worker, possibly on another machine, has neither), before the reports are written.
public enum VisualVerdicts {
    /// The rule code of a job failed by a visual change.
    public static let ruleCode = "MX053"

    /// Sets `job.verdict` (and `outcomeBefore`) when its changes fail it: `onChange` is `fail`, it has a changed step,
    /// the compared attempt passed and the job is passed or flaky. A job that failed otherwise keeps its own failure.
    static func decide(_ job: inout VisualRunResults.Job, detail: JobDetail, policy: VisualPolicy) {
        guard policy.onChange == .fail, !job.changes.isEmpty, let attempt = job.attempt,
              let outcome = detail.row.result?.outcome, outcome == .passed || outcome == .flaky,
              detail.attempts.contains(where: { $0.attempt.attempt == attempt && $0.attempt.result?.outcome == .passed })
        else { return }
        job.verdict = message(job.changes)
        job.outcomeBefore = outcome.rawValue
    }

    /// `MX053 visual change (policy.visual.onChange 'fail'): step 2: 812 of 1024000 pixels differ (0.08 %); step 3: …`.
    static func message(_ changes: [VisualRunResults.Step]) -> String {
        "\(ruleCode) visual change (policy.visual.onChange 'fail'): "
            + changes.map { "step \($0.step): \($0.summary)" }.joined(separator: "; ")
            + " — 'flowmatrix baseline accept' takes the new pictures if they are right"
    }

    /// The journal records of `results`' verdicts.
    public static func records(_ results: VisualRunResults) -> [JournalRecord] {
        results.jobs.compactMap { job in
            guard let message = job.verdict, let attempt = job.attempt, let first = job.changes.first else { return nil }
            return .visualVerdict(VisualVerdict(runID: results.runID, jobID: job.jobID, attempt: attempt,
                                                failureStep: first.step - 1, message: message))
        }
    }

    /// Journals `results`' verdicts in the journal at `journalPath` (the run is over: its own writer is closed).
    /// - Returns: how many jobs they failed, by the outcome each had (`passed`, `flaky`).
    /// - Throws: ``BaselineError`` (`io`) when the journal cannot be written.
    public static func record(_ results: VisualRunResults, journalPath: String) throws -> [JobOutcome: Int] {
        let records = records(results)
        guard !records.isEmpty else { return [:] }
        do {
            let writer = try JournalWriter(path: journalPath)
            try writer.submit(records)
            try writer.flushSync()
            try writer.close()
        } catch {
            throw BaselineError(code: .io, message: "cannot record the visual verdicts in \(journalPath): \(error)")
        }
        var moved: [JobOutcome: Int] = [:]
        for job in results.jobs where job.verdict != nil {
            if let before = job.outcomeBefore.flatMap(JobOutcome.init(rawValue:)) { moved[before, default: 0] += 1 }
        }
        return moved
    }
}
