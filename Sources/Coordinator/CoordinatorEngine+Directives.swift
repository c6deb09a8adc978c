import FlowVocabulary
import Foundation
import Journal
import Wire

/// Turning the scheduler's directives into actions: ASSIGN (with the SCENARIO bodies a peer lacks), CANCEL, REVOKE,
/// the journal records of attempt and job ends, and the announcements of a job's final outcome and the run's end.
extension CoordinatorEngine {
    /// The actions for `directives`: one `journal` action with all their records first (so what they announce is
    /// journaled before it is said or acted on), then the messages and closes, then `jobFinished` and `runComplete`.
    func interpret(_ directives: [SchedulerDirective]) -> [Action] {
        var actions: [Action] = []
        var records: [JournalRecord] = []
        var announcements: [Action] = []
        let date = clock.wall()
        let t = now()
        // Per job, the `attemptCompleted` record of this batch that the job's final result joins.
        var completed: [Int: Int] = [:]
        for directive in directives {
            switch directive {
            case .assign(let worker, let batch):
                guard let peer = peerOfWorker[worker] else { continue }
                actions.append(.send(peer: peer, assign(batch, to: peer, worker: worker, at: date, now: t, into: &records)))
            case .cancel(let worker, let a, let reason):
                guard let peer = peerOfWorker[worker] else { continue }
                let cancel = Cancel(job: definition.jobs[a.job].id, attempt: numbering.wire(a), reason: reason)
                actions.append(.send(peer: peer, [.cancel(cancel)]))
            case .revoke(let worker, let batch):
                guard let peer = peerOfWorker[worker] else { continue }
                let refs = batch.map { a in AttemptRef(job: definition.jobs[a.job].id, attempt: numbering.wire(a)) }
                actions.append(.send(peer: peer, [.revoke(refs)]))
            case .attemptEnded(let a, _, let status, let superseded, let decided):
                if superseded {
                    endSuperseded(a, status: status, at: date, into: &records)
                    continue
                }
                let record = endAttempt(a, status: status, decided: decided, at: date, into: &records)
                if let decided {
                    // Its start was journaled already: the job's result is a record of its own.
                    finishJob(a.job, decided, journaled: record != nil, completed: nil, at: date, into: &records,
                              announcing: &announcements)
                } else {
                    // The job's result, if it comes later in this batch, joins this record.
                    completed[a.job] = record
                }
            case .jobFinished(let index, let end):
                finishJob(index, end, journaled: false,
                          completed: completed.isEmpty ? nil : completed.removeValue(forKey: index), at: date, into: &records,
                          announcing: &announcements)
            case .disconnect(let worker, let reason):
                if let peer = peerOfWorker[worker] { actions.append(.close(peer: peer, reason: reason)) }
            case .runComplete:
                isComplete = true
                announcements.append(.runComplete)
            }
        }
        guard !records.isEmpty || !announcements.isEmpty else { return actions }
        var ordered: [Action] = []
        ordered.reserveCapacity(actions.count + announcements.count + 1)
        if !records.isEmpty { ordered.append(.journal(records)) }
        ordered += actions
        ordered += announcements
        return ordered
    }

    /// The messages of one ASSIGN: the SCENARIO bodies `peer` has not had yet, then the jobs; their starts are
    /// handed to the attempt journal.
    private func assign(_ batch: [Assignment], to peer: UInt64, worker: WorkerID, at date: Date, now t: Duration,
                        into records: inout [JournalRecord]) -> [Message] {
        var messages: [Message] = []
        var jobs: [JobAssignment] = []
        jobs.reserveCapacity(batch.count)
        let name = peers[peer]?.name ?? worker.description
        var lastScenario: Bytes32?  // jobs of one scenario tend to come together
        let timeout = UInt64(definition.scheduler.jobTimeout.milliseconds)
        for a in batch {
            // Field by field, not `let job = definition.jobs[a.job]`: a copy of the whole `RunJob` retains
            // every reference in it, once per job assigned.
            let hash = definition.jobs[a.job].scenarioHash
            if hash != lastScenario, peers[peer]?.sentScenarios.contains(hash) == false {
                peers[peer]?.sentScenarios.insert(hash)
                messages.append(.scenario(ScenarioBody(hash: hash, bytes: definition.scenarioBodies[hash] ?? [])))
            }
            lastScenario = hash
            let attempt = numbering.journaled(a)
            let id = definition.jobs[a.job].id
            let wireAttempt = numbering.wire(a)
            owners.assign(a.job, to: peer, attempt: wireAttempt)
            let seed = AttemptSeed.derive(job: definition.jobs[a.job].seed,
                                          retryIndex: scheduler.retryIndex(ofJob: a.job))
            jobs.append(JobAssignment(job: id, attempt: wireAttempt, scenarioHash: hash,
                                      registry: definition.jobs[a.job].registry,
                                      configuration: definition.jobs[a.job].configuration,
                                      timeoutMillis: timeout, seed: seed, keep: definition.keep))
            attemptJournal.started(job: a.job, jobID: id, attempt: attempt, worker: name, at: date, now: t,
                                   steps: definition.jobs[a.job].stepKeys.count, into: &records)
        }
        attemptsStarted += batch.count
        messages.append(.assign(jobs))
        return messages
    }

    /// A late or duplicate result of an attempt the job moved on from: recorded, never counted.
    private func endSuperseded(
        _ a: Assignment, status: AttemptStatus, at date: Date, into records: inout [JournalRecord]
    ) {
        supersededResults += 1
        _ = attemptJournal.ended(job: a.job, jobID: definition.jobs[a.job].id, attempt: numbering.journaled(a),
            AttemptResult(outcome: JobOutcome(status), finishedAt: date, duration: 0,
                          message: "late or duplicate result of a superseded attempt", superseded: true),
            into: &records)
    }

    /// Journals an attempt's end (with the job's final result when `decided`, built once into the same record).
    /// - Returns: the position of the `attemptCompleted` record written for it, or nil (its start was journaled).
    private func endAttempt(_ a: Assignment, status: AttemptStatus, decided: JobEnd?, at date: Date,
                            into records: inout [JournalRecord]) -> Int? {
        let jobID = definition.jobs[a.job].id  // not the whole RunJob: this runs once per attempt
        let attempt = numbering.journaled(a), wireAttempt = numbering.wire(a)
        // The attempt is over (a result, a lost worker, an expired lease, taken back): no connection owns it any
        // more, so a late report on it is ignored rather than taken (docs/PROTOCOL.md, "Bounds").
        owners.release(a.job, ifAttempt: wireAttempt)
        // The last report, if it is of this attempt (a worker lost mid-attempt sent none).
        let info = lastAttempt[a.job].flatMap { $0.attempt == wireAttempt ? $0 : nil }
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
        return attemptJournal.ended(job: a.job, jobID: jobID, attempt: attempt,
            AttemptResult(outcome: JobOutcome(status), finishedAt: date,
                          duration: Double(info?.durationMicros ?? 0) / 1e6,
                          failureStep: status == .passed ? nil : info?.failureStep, message: message),
            job: final, into: &records)
    }
    /// Job `index` reached its final result: journaled (unless `journaled`, when it went into its deciding
    /// attempt's record), joined to the `completed` record of this batch if there is one, and announced.
    func finishJob(_ index: Int, _ end: JobEnd, journaled: Bool, completed: Int?, at date: Date,
                   into records: inout [JournalRecord], announcing announcements: inout [Action]) {
        let info = lastAttempt.removeValue(forKey: index)
        defer { failureSignatures[index] = nil }
        if !journaled {
            attemptJournal.finished(jobID: definition.jobs[index].id, jobResult(index, end, info: info, at: date),
                                    completed: completed, into: &records)
        }
        announcements.append(.jobFinished(FinishedJob(id: definition.jobs[index].id, outcome: end.outcome)))
    }

    /// The journal's final result of job `index`; `info` is its last attempt's report.
    func jobResult(_ index: Int, _ end: JobEnd, info: AttemptInfo?, at date: Date) -> Journal.JobResult {
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
