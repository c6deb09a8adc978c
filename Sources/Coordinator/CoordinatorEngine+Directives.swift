import FlowVocabulary
import Foundation
import Journal
import Wire

/// Turning the scheduler's directives into actions: ASSIGN (with the SCENARIO bodies a peer lacks), CANCEL, REVOKE,
/// the journal records of attempt and job ends (written by `OutcomeJournal`), and the announcements of a job's final
/// outcome and the run's end.
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
                guard let peer = peerTable.peer(of: worker) else { continue }
                actions.append(.send(peer: peer, assign(batch, to: peer, worker: worker, at: date, now: t, into: &records)))
            case .cancel(let worker, let a, let reason):
                guard let peer = peerTable.peer(of: worker) else { continue }
                let cancel = Cancel(job: definition.jobs[a.job].id, attempt: numbering.wire(a), reason: reason)
                actions.append(.send(peer: peer, [.cancel(cancel)]))
            case .revoke(let worker, let batch):
                guard let peer = peerTable.peer(of: worker) else { continue }
                let refs = batch.map { a in AttemptRef(job: definition.jobs[a.job].id, attempt: numbering.wire(a)) }
                actions.append(.send(peer: peer, [.revoke(refs)]))
            case .attemptEnded(let a, _, let status, let superseded, let decided):
                if superseded {
                    supersededResults += 1
                    outcomes.endSuperseded(a, status: status, at: date, into: &records)
                    continue
                }
                // The attempt is over (a result, a lost worker, an expired lease, taken back): no connection owns it
                // any more, so a late report on it is ignored rather than taken (docs/PROTOCOL.md, "Bounds").
                owners.release(a.job, ifAttempt: numbering.wire(a))
                let record = outcomes.endAttempt(a, status: status, decided: decided, at: date, into: &records)
                if let decided {
                    // Its start was journaled already: the job's result is a record of its own.
                    announcements.append(.jobFinished(outcomes.finishJob(
                        a.job, decided, journaled: record != nil, completed: nil, at: date, into: &records)))
                } else {
                    // The job's result, if it comes later in this batch, joins this record.
                    completed[a.job] = record
                }
            case .jobFinished(let index, let end):
                announcements.append(.jobFinished(outcomes.finishJob(
                    index, end, journaled: false, completed: completed.isEmpty ? nil : completed.removeValue(forKey: index),
                    at: date, into: &records)))
            case .disconnect(let worker, let reason):
                if let peer = peerTable.peer(of: worker) { actions.append(.close(peer: peer, reason: reason)) }
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
        let name = peerTable[peer]?.name ?? worker.description
        var lastScenario: Bytes32?  // jobs of one scenario tend to come together
        let timeout = UInt64(definition.scheduler.jobTimeout.milliseconds)
        for a in batch {
            // Field by field, not `let job = definition.jobs[a.job]`: a copy of the whole `RunJob` retains
            // every reference in it, once per job assigned.
            let hash = definition.jobs[a.job].scenarioHash
            if hash != lastScenario, peerTable.needsScenario(hash, peer: peer) {
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
            outcomes.attempts.started(job: a.job, jobID: id, attempt: attempt, worker: name, at: date, now: t,
                                   steps: definition.jobs[a.job].stepKeys.count, into: &records)
        }
        attemptsStarted += batch.count
        messages.append(.assign(jobs))
        return messages
    }
}
