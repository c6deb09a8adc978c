import FlowVocabulary
import Foundation
import Journal
import Wire

/// The journaling of what workers reported and the scheduler decided: an attempt's steps, its end (a superseded one flagged, never counted) and
/// each job's final result, with the message its attempts' reports justify — the first failure's, or a note that
/// every attempt failed the same way. It keeps each job's last report until the job is final, and owns the
/// `AttemptJournal` that holds attempt starts back. Pure: records go into the caller's batch.
struct OutcomeJournal {
    /// A worker's report of an attempt's end (its RESULT).
    struct Report {
        /// The attempt (wire number) this report is of.
        var attempt: UInt32
        var durationMicros: UInt64
        var failureStep: Int?
        var message: String?
    }

    /// Per job with failed attempts in this session: the first failure's step and message, how many failed attempts
    /// there were, and whether every one failed the same way (then retries could not change it, and the job's
    /// message says so).
    private struct FailureSignature {
        var step: Int?
        var message: String?
        var count: Int
        var identical: Bool
    }

    /// Attempt starts, steps and ends, and when each start is journaled.
    var attempts: AttemptJournal
    private let definition: RunDefinition
    private let numbering: AttemptNumbering
    private var lastReport: [Int: Report] = [:]
    private var failureSignatures: [Int: FailureSignature] = [:]

    init(definition: RunDefinition, numbering: AttemptNumbering) {
        self.definition = definition
        self.numbering = numbering
        attempts = AttemptJournal(runID: definition.runID, startDelay: definition.journalStartDelay)
    }

    /// A STEP event, or the steps of a RESULT_STEPS, of job `index`'s `attempt` (wire number).
    mutating func steps(job index: Int, jobID: String, attempt: UInt32, _ steps: some Collection<StepReport>,
                        into records: inout [JournalRecord]) {
        let keys = definition.jobs[index].stepKeys
        attempts.steps(job: index, jobID: jobID, attempt: numbering.journaled(wire: attempt), steps.lazy.map { step in
            let stepIndex = Int(step.index)
            var key = stepIndex < keys.count ? keys[stepIndex] : "step-\(step.index)"
            var message = step.message
            // A step past the declared ones may name itself (a command job's tests).
            if stepIndex >= keys.count, let named = NamedStep.split(message) { (key, message) = named }
            return StepResult(index: stepIndex, key: key,
                              outcome: step.status.journaled, duration: Double(step.durationMicros) / 1e6,
                              message: message.isEmpty ? nil : message,
                              interruptions: step.interruptions.isEmpty ? nil : step.interruptions.joined(separator: ", "))
        }, into: &records)
    }

    /// A worker reported the end of an attempt of job `index`: what its end and the job's result will say.
    mutating func report(job index: Int, _ report: Report) { lastReport[index] = report }

    /// A late or duplicate result of an attempt the job moved on from: recorded, never counted.
    mutating func endSuperseded(_ a: Assignment, status: AttemptStatus, at date: Date, into records: inout [JournalRecord]) {
        _ = attempts.ended(job: a.job, jobID: definition.jobs[a.job].id, attempt: numbering.journaled(a),
            AttemptResult(outcome: JobOutcome(status), finishedAt: date, duration: 0,
                          message: "late or duplicate result of a superseded attempt", superseded: true),
            into: &records)
    }

    /// Journals an attempt's end (with the job's final result when `decided`, built once into the same record).
    /// - Returns: the position of the `attemptCompleted` record written for it, or nil (its start was journaled).
    mutating func endAttempt(_ a: Assignment, status: AttemptStatus, decided: JobEnd?, at date: Date,
                             into records: inout [JournalRecord]) -> Int? {
        let jobID = definition.jobs[a.job].id  // not the whole RunJob: this runs once per attempt
        let attempt = numbering.journaled(a), wireAttempt = numbering.wire(a)
        // The last report, if it is of this attempt (a worker lost mid-attempt sent none).
        let info = lastReport[a.job].flatMap { $0.attempt == wireAttempt ? $0 : nil }
        if status == .failed || status == .timedOut {
            let step = info?.failureStep, text = info?.message
            if var signature = failureSignatures[a.job] {
                signature.count += 1
                signature.identical = signature.identical && signature.step == step && signature.message == text
                failureSignatures[a.job] = signature
            } else {
                failureSignatures[a.job] = FailureSignature(step: step, message: text, count: 1, identical: true)
            }
        }
        let message: String? = switch status {
        case .revoked: "taken back before it started, to run on a worker with a free slot"
        case .lost where info?.message != nil: "lost: \(info?.message ?? "")"
        case .lost: "the worker was lost while running this attempt"
        case .timedOut where info == nil: "the lease expired: the job exceeded its timeout"
        default: info?.message
        }
        let final = decided.map { jobResult(a.job, $0, info: info, at: date) }
        return attempts.ended(job: a.job, jobID: jobID, attempt: attempt,
            AttemptResult(outcome: JobOutcome(status), finishedAt: date,
                          duration: Double(info?.durationMicros ?? 0) / 1e6,
                          failureStep: status == .passed ? nil : info?.failureStep, message: message),
            job: final, into: &records)
    }

    /// Job `index` reached its final result: journaled (unless `journaled`, when it went into its deciding
    /// attempt's record), joined to the `completed` record of this batch if there is one. Returns what to announce.
    mutating func finishJob(_ index: Int, _ end: JobEnd, journaled: Bool, completed: Int?, at date: Date,
                            into records: inout [JournalRecord]) -> FinishedJob {
        let info = lastReport.removeValue(forKey: index)
        defer { failureSignatures[index] = nil }
        if !journaled {
            attempts.finished(jobID: definition.jobs[index].id, jobResult(index, end, info: info, at: date),
                              completed: completed, into: &records)
        }
        return FinishedJob(id: definition.jobs[index].id, outcome: end.outcome)
    }

    /// The journal's final result of job `index`; `info` is its last attempt's report.
    private func jobResult(_ index: Int, _ end: JobEnd, info: Report?, at date: Date) -> Journal.JobResult {
        let outcome = end.outcome, attempts = end.attempts, reason = end.reason
        let failing = outcome == .passed || outcome == .flaky ? nil : info
        var message = reason ?? failing?.message
        if outcome == .failed || outcome == .timedOut, reason == nil, let signature = failureSignatures[index],
           signature.identical, signature.count > 1 {
            // Retries ran as the policy says and could not change it: say so (docs/REPORTS.md).
            message = (message ?? "failed") + " [failed identically on every attempt (\(signature.count)): no seed changes it]"
        }
        return Journal.JobResult(
            outcome: outcome, attempts: numbering.total(job: index, thisSession: attempts),
            duration: info.map { Double($0.durationMicros) / 1e6 },
            failureStep: failing?.failureStep, failureMessage: message, finishedAt: date)
    }
}
