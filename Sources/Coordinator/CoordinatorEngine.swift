import FlowCrypto
import FlowVocabulary
import Foundation
import Journal
import MatrixPlan
import Wire

/// The coordinator engine's time: both clocks it reads, injected together so that a test controls both.
public struct CoordinatorClock {
    /// Time since the run began: leases, heartbeats, held journal starts (monotonic in production).
    public var elapsed: () -> Duration
    /// The date journaled with attempt starts and ends.
    public var wall: () -> Date

    public init(elapsed: @escaping () -> Duration, wall: @escaping () -> Date) {
        self.elapsed = elapsed
        self.wall = wall
    }

    /// The process's clocks, with elapsed time counted from `start`.
    public static func system(since start: ContinuousClock.Instant = .now) -> CoordinatorClock {
        CoordinatorClock(elapsed: { ContinuousClock.now - start }, wall: Date.init)
    }
}

/// The coordinator's pure core around the scheduler: authenticated peers' messages in, `Action`s out — messages to
/// send, connections to close, journal records to write, sentences and outcomes to announce. It touches no socket,
/// file or callback; time comes from the injected `CoordinatorClock`. Owned by one thread (its shell's); not
/// thread-safe by design.
///
/// A shell (`CoordinatorShell`, over the libuv server or an in-memory transport) runs the handshake, then calls
/// `onPeerJoined`, `onMessages` (one call per read batch), `onPeerClosed`, `onIngest` and `onTick`, and carries out
/// the returned actions **in order**: a `journal` action comes before every action decided after its records (the
/// ASSIGN that follows a result, the ARTIFACT_ACK of a stored artifact, the `jobFinished` and `runComplete` that
/// announce it), so nothing is acknowledged or reported before it is handed to the journal.
public final class CoordinatorEngine {
    /// What the engine asks its shell to do, in order.
    public enum Action: Sendable, Hashable {
        case send(peer: UInt64, [Message])
        case close(peer: UInt64, reason: String)
        /// Hand these artifact chunks to the ingest (off the loop thread); its events come back via `onIngest`.
        case ingest(peer: UInt64, [ArtifactChunk])
        /// Hand these records to the journal writer, as one batch, before carrying out the actions after this one.
        case journal([JournalRecord])
        /// A sentence for the person running the coordinator: a worker that can run nothing, jobs no worker can run.
        case notice(String)
        /// A job reached its final outcome; its result was in an earlier `journal` action.
        case jobFinished(FinishedJob)
        /// Every job is final: said once, after the journal action holding the last job's result.
        case runComplete
    }

    /// The label a worker process sends with a random id, the same on every reconnection of that process.
    public static let instanceLabel = WorkerInstance.label

    /// Steps taken per attempt beyond its scenario's declared steps (a command job's named tests); a report past
    /// that is refused (docs/PROTOCOL.md, "Bounds").
    public static let maximumExtraStepsPerAttempt = 65_536

    public let definition: RunDefinition
    var scheduler: Scheduler
    /// The authenticated peers, the worker instances they stand for, and those expelled.
    var peerTable = PeerTable()
    /// Which peer holds each job's live attempt, the only one its reports are taken from.
    var owners: AttemptOwners
    /// Journals attempt ends and jobs' final results, from the workers' last reports.
    var outcomes: OutcomeJournal
    /// Scheduler attempts to wire and journal numbers and back (resume continues a job's numbering).
    let numbering: AttemptNumbering
    let clock: CoordinatorClock
    public internal(set) var isComplete = false
    public internal(set) var attemptsStarted = 0
    public internal(set) var supersededResults = 0
    public var artifactsStored: Int { ingest.stored }
    public var artifactResends: Int { ingest.resends }
    /// Counts and sorts what the artifact ingest reports.
    var ingest = IngestReports()
    /// When to say that jobs wait for a capable worker.
    var unservedNotice = UnservedNotice()

    /// - Parameter clock: the engine's only source of time: time since the run began and the date journaled.
    public init(definition: RunDefinition, clock: CoordinatorClock) {
        self.definition = definition
        self.clock = clock
        numbering = AttemptNumbering(offsets: definition.attemptOffsets)
        outcomes = OutcomeJournal(definition: definition, numbering: numbering)
        scheduler = Scheduler(
            jobs: definition.jobs.map {
                SchedulableJob(registry: $0.registry, requiredLabels: $0.requiredLabels, expectedDuration: $0.expectedDuration)
            },
            finished: definition.finished, failures: definition.priorFailures, settings: definition.scheduler)
        owners = AttemptOwners(jobIDs: definition.jobs.map(\.id))
        if scheduler.isComplete { isComplete = true }
    }

    /// - Parameters:
    ///   - now: time since the run began (a monotonic clock in production, a manual one in tests).
    ///   - wallClock: the date journaled with starts and ends.
    public convenience init(
        definition: RunDefinition, now: @escaping () -> Duration, wallClock: @escaping () -> Date = Date.init
    ) {
        self.init(definition: definition, clock: CoordinatorClock(elapsed: now, wall: wallClock))
    }

    func now() -> Duration { clock.elapsed() }

    public var progress: RunProgress {
        var p = RunProgress(total: scheduler.jobCount, done: scheduler.jobCount - scheduler.remainingCount,
                    outcomes: scheduler.outcomeCounts, inFlight: scheduler.inFlightCount, workers: peerTable.count,
                    attempts: attemptsStarted, retries: max(0, attemptsStarted - (scheduler.jobCount - scheduler.remainingCount) - scheduler.inFlightCount),
                    supersededResults: supersededResults)
        p.artifactsStored = artifactsStored
        p.artifactResends = artifactResends
        return p
    }

    public var unservableQueuedJobs: Int { scheduler.unservableQueuedJobs }
    public var workerNames: [String] { peerTable.all.map(\.name).sorted() }

    /// Every connected worker with the ids of (at most `limit` of) the jobs it holds, by name: for a live view,
    /// asked once per tick, never per job.
    public func workerActivity(limit: Int) -> [WorkerActivity] {
        peerTable.all.map { peer in
            let held = scheduler.inFlight(on: peer.worker)
            return WorkerActivity(name: peer.name, jobs: held.prefix(limit).map { definition.jobs[$0].id }, held: held.count)
        }.sorted { $0.name < $1.name }
    }

    // MARK: - Events from the transport

    /// A peer passed the handshake; `hello` is what it advertised.
    public func onPeerJoined(_ peer: UInt64, hello: Hello) -> [Action] {
        // A second join for a live peer id (the transport never sends one): the earlier connection is over first, so
        // the scheduler never keeps a worker no peer stands for.
        let earlier = peerTable[peer] == nil ? [] : onPeerClosed(peer)
        let worker = peerTable.admit(peer, hello: hello)
        let labels = PeerTable.labels(of: hello)
        var actions: [Action] = []
        var directives = scheduler.onWorkerJoined(worker, name: hello.name, registries: Set(hello.registries), labels: labels,
                                                  slots: Int(hello.slots), canRevoke: hello.version >= MessageType.revoke.introducedIn,
                                                  now: now())
        // The same process reconnected: its connection broke, it did not crash (docs/FLEET.md, "Network faults").
        if let lost = peerTable.claimInstance(labels, peer: peer) {
            directives += scheduler.onWorkerReturned(lost: lost, now: now())
        }
        if !scheduler.canServe(worker) {
            // Said at once, on both sides: otherwise both wait for ever.
            let text = PeerTable.noJobsNotice(hello: hello, needed: scheduler.neededRegistries,
                                              requiredLabels: definition.jobs.first?.requiredLabels ?? [:])
            actions.append(.notice(text))
            if hello.version >= MessageType.notice.introducedIn { actions.append(.send(peer: peer, [.notice(text)])) }
        }
        return earlier + actions + interpret(directives)
    }

    /// A RESULT (or the result of RESULT_STEPS): the scheduler hears of it with the rest of the read batch.
    func onResult(job index: Int, _ result: Wire.JobResult, into results: inout [(Assignment, AttemptStatus)]) {
        outcomes.report(job: index, .init(attempt: result.attempt, durationMicros: result.durationMicros,
                                          failureStep: result.failure.map { Int($0.step) }, message: result.failure?.message))
        scheduler.onMeasured(job: index, nanoseconds: Int64(clamping: result.durationMicros) &* 1000)
        results.append((numbering.assignment(job: index, wire: result.attempt), AttemptStatus(reported: result.status)))
    }

    /// Messages from an authenticated peer, one read batch at a time.
    public func onMessages(_ peer: UInt64, _ messages: [Message]) -> [Action] {
        guard let state = peerTable[peer] else { return [] }
        let worker = state.worker
        let t = now()
        scheduler.onHeartbeat(worker, now: t)
        // Steps gather in `output.records`; they are journaled before anything appended after them (the results
        // they led to, a refusal).
        var output = EngineOutput()
        var results: [(Assignment, AttemptStatus)] = []
        var chunks: [ArtifactChunk] = []
        func flushResults() {
            guard !results.isEmpty else { return }
            output.append(contentsOf: interpret(scheduler.onResults(worker, results, now: t)))
            results.removeAll(keepingCapacity: true)
        }
        /// The job index of a report about `job`'s `attempt` carrying `steps` steps; nil when it is ignored, or
        /// refused (then the peer is sent an ERROR and closed): an attempt never assigned, or too many steps.
        func accepted(_ type: MessageType, _ job: String, _ attempt: UInt32, ending: Bool, steps: Int = 0) -> Int? {
            let (index, refused) = reportable(job, attempt, from: peer, ending: ending)
            if refused {
                flushResults()
                output.append(contentsOf: PeerRefusal.notAssigned(type, job, attempt, from: peer))
            } else if let index, steps > 0, let refused = stepRefusal(steps, job: index, from: peer) {
                flushResults()
                output.append(contentsOf: refused)
                return nil
            }
            return index
        }
        for message in messages {
            if let refused = PeerRefusal.newer(message, from: peer, version: state.version) {
                // Falls through to the close below: an expelled peer is never blamed, whatever it sent.
                flushResults()
                output.append(contentsOf: refused)
            } else {
                switch message {
                case .credit(let n):
                    flushResults()
                    output.append(contentsOf: interpret(scheduler.onCredit(worker, count: Int(n), now: t)))
                case .step(let step):
                    guard let index = accepted(.step, step.job, step.attempt, ending: false, steps: 1) else { break }
                    outcomes.steps(job: index, jobID: step.job, attempt: step.attempt, CollectionOfOne(StepReport(step)),
                                   into: &output.records)
                case .result(let result):
                    guard let index = accepted(.result, result.job, result.attempt, ending: true) else { break }
                    onResult(job: index, result, into: &results)
                case .resultSteps(let report):
                    let (job, attempt) = (report.result.job, report.result.attempt)
                    guard let index = accepted(.resultSteps, job, attempt, ending: true, steps: report.steps.count) else { break }
                    outcomes.steps(job: index, jobID: job, attempt: attempt, report.steps, into: &output.records)
                    onResult(job: index, report.result, into: &results)
                case .revoked(let answers):
                    flushResults()
                    output.append(contentsOf: onRevoked(answers, from: peer, worker: worker, now: t))
                case .artifactChunk(let chunk):
                    guard accepted(.artifactChunk, chunk.job, chunk.attempt, ending: false) != nil else { break }
                    chunks.append(chunk)
                case .heartbeat:
                    break  // liveness is recorded above
                default:
                    flushResults()
                    output.append(contentsOf: PeerRefusal.closing(message, from: peer))
                }
            }
            // Nothing after this peer's close counts: the rest of the batch is dropped.
            if case .close(let closed, _)? = output.last, closed == peer {
                peerTable.expel(peer)
                break
            }
        }
        if !chunks.isEmpty { output.append(.ingest(peer: peer, chunks)) }
        flushResults()
        return output.finish()
    }

    /// The job index of the attempt assigned to `peer` that a report is about. An attempt that exists but is not
    /// this peer's live one (a duplicate, a late result after the job moved on, another worker's) is ignored: nil,
    /// not journaled. An unknown job or an attempt never assigned to anyone is refused.
    /// - Parameter ending: the report ends the attempt (RESULT, RESULT_STEPS): the peer no longer owns it.
    private func reportable(_ job: String, _ attempt: UInt32, from peer: UInt64, ending: Bool)
        -> (index: Int?, refuse: Bool) {
        guard let index = owners.index(of: job) else { return (nil, true) }
        if owners.owns(index, peer: peer, attempt: attempt) {
            if ending { owners.release(index) }
            return (index, false)
        }
        let made = numbering.total(job: index, thisSession: scheduler.attemptsMade(ofJob: index))
        guard attempt >= 1, Int(attempt) <= made else { return (nil, true) }
        if ending { supersededResults += 1 }
        return (nil, false)
    }

    /// Counts `count` more steps of job `index`'s live attempt; past ``PeerRefusal/stepBound(declared:)`` it counts
    /// nothing and returns the refusal.
    private func stepRefusal(_ count: Int, job index: Int, from peer: UInt64) -> [Action]? {
        let declared = definition.jobs[index].stepKeys.count
        if owners.takeSteps(count, job: index, bound: PeerRefusal.stepBound(declared: declared)) { return nil }
        return PeerRefusal.tooManySteps(job: definition.jobs[index].id, declared: declared, from: peer)
    }

    /// REVOKED answers from `peer`: the attempts it still held and gave back, or had started.
    private func onRevoked(_ answers: [RevokeAnswer], from peer: UInt64, worker: WorkerID, now t: Duration)
        -> [Action] {
        var answered: [(Assignment, taken: Bool)] = []
        for answer in answers {
            guard let index = owners.index(of: answer.job), owners.owns(index, peer: peer, attempt: answer.attempt)
            else { continue }
            // An answer to a REVOKE nobody sent: the attempt stays this peer's, and its RESULT counts.
            guard scheduler.isRevoking(job: index, on: worker) else { continue }
            if answer.taken { owners.release(index) }
            answered.append((numbering.assignment(job: index, wire: answer.attempt), answer.taken))
        }
        return interpret(scheduler.onRevoked(worker, answered, now: t))
    }

    /// The artifact ingest reports stored, accepted and rejected chunks: acknowledge them to their workers and
    /// journal the stored artifacts.
    public func onIngest(_ events: [IngestEvent]) -> [Action] {
        let reports = ingest.sort(events, runID: definition.runID, numbering: numbering, owners: owners,
                                  attempts: &outcomes.attempts)
        // Stored artifacts are journaled before their acknowledgements go out.
        var output = EngineOutput(records: reports.records)
        output.append(contentsOf: reports.acks.compactMap { peer, acks in
            peerTable[peer] == nil ? nil : .send(peer: peer, acks)
        })
        for (peer, reason) in reports.refused { output.append(contentsOf: refuse(peer, reason: reason)) }
        return output.finish()
    }

    /// A peer broke a protocol bound: ERROR, then close (its attempts run again elsewhere once it is gone).
    public func refuse(_ peer: UInt64, reason: String) -> [Action] {
        guard peerTable.expel(peer) else { return [] }
        return PeerRefusal.invalid(peer, reason: reason)
    }

    /// A peer's connection closed (or it was closed by us).
    public func onPeerClosed(_ peer: UInt64) -> [Action] {
        guard let departure = peerTable.remove(peer) else { return [] }
        // A connection the coordinator closed for what the peer sent: its jobs were not at fault.
        var directives = scheduler.onWorkerLost(departure.worker, now: now(), faultless: departure.faultless)
        // The same process is connected again already (its new connection was heard first): not a crash.
        if departure.reconnected { directives += scheduler.onWorkerReturned(lost: departure.worker, now: now()) }
        return interpret(directives)
    }

    /// Periodic: dead-worker detection and lease expiry (the transport sends and checks heartbeats itself).
    public func onTick() -> [Action] {
        let t = now()
        var output = EngineOutput()
        output.append(contentsOf: interpret(scheduler.onTick(now: t)))
        // Jobs that no connected worker can run, said once they have waited 10 s, and again every 60 s.
        if let sentence = unservedNotice.sentence(for: scheduler.unservedNeeds, workerNames: { workerNames }, now: t) {
            output.append(.notice(sentence))
        }
        outcomes.attempts.journalLongRunning(now: t, into: &output.records)
        return output.finish()
    }

    /// Ctrl-C once: no more dispatching; in-flight jobs finish.
    public func stopDispatching(reason: String) -> [Action] {
        interpret(scheduler.onStopDispatching(reason: reason))
    }

    /// Ctrl-C twice: cancel everything in flight.
    public func abort(reason: String) -> [Action] {
        interpret(scheduler.onAbort(reason: reason))
    }

    /// Tell every worker to finish what it has and take no more.
    public func drainAll() -> [Action] {
        peerTable.sortedIDs.map { .send(peer: $0, [.drain]) }
    }
}
