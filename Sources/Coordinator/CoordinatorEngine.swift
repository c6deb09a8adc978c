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

    struct Peer {
        var worker: WorkerID
        var name: String
        /// The protocol version agreed in the handshake: a message type of a later version is refused.
        var version: UInt16
        var sentScenarios: Set<Bytes32> = []
        /// The worker process's instance (its commitment, `WorkerInstance`), if it announced one no other connection
        /// holds.
        var instance: String?
    }

    /// The label a worker process sends with a random id, the same on every reconnection of that process.
    public static let instanceLabel = WorkerInstance.label

    /// Steps taken per attempt beyond its scenario's declared steps (a command job's named tests); a report past
    /// that is refused (docs/PROTOCOL.md, "Bounds").
    public static let maximumExtraStepsPerAttempt = 65_536

    struct AttemptInfo {
        /// The attempt (wire number) this report is of.
        var attempt: UInt32
        var durationMicros: UInt64
        var failureStep: Int?
        var message: String?
    }

    /// Per job with failed attempts in this session: the first failure's step and message, how many failed attempts
    /// there were, and whether every one failed the same way (then retries could not change it, and the job's
    /// message says so).
    struct FailureSignature {
        var step: Int?
        var message: String?
        var count: Int
        var identical: Bool
    }

    public let definition: RunDefinition
    var scheduler: Scheduler
    var peers: [UInt64: Peer] = [:]
    var peerOfWorker: [WorkerID: UInt64] = [:]
    var nextWorker: UInt64 = 1
    var lastAttempt: [Int: AttemptInfo] = [:]
    /// Which peer holds each job's live attempt, the only one its reports are taken from.
    var owners: AttemptOwners
    var failureSignatures: [Int: FailureSignature] = [:]
    /// Worker process instances (the commitment of their `flowmatrix.instance` label, `WorkerInstance`) whose
    /// connection was lost, newest 256.
    var lostInstances = BoundedMemory<String, WorkerID>(limit: 256)
    var attemptJournal: AttemptJournal
    /// Scheduler attempts to wire and journal numbers and back (resume continues a job's numbering).
    let numbering: AttemptNumbering
    let clock: CoordinatorClock
    public internal(set) var isComplete = false
    public internal(set) var attemptsStarted = 0
    public internal(set) var supersededResults = 0
    /// Peers the engine has closed for what they sent, until their close is heard: their jobs were not at fault.
    var expelled = Set<UInt64>()
    public internal(set) var artifactsStored = 0
    public internal(set) var artifactResends = 0
    /// When to say that jobs wait for a capable worker.
    var unservedNotice = UnservedNotice()

    /// - Parameter clock: the engine's only source of time: time since the run began and the date journaled.
    public init(definition: RunDefinition, clock: CoordinatorClock) {
        self.definition = definition
        self.clock = clock
        numbering = AttemptNumbering(offsets: definition.attemptOffsets)
        attemptJournal = AttemptJournal(runID: definition.runID, startDelay: definition.journalStartDelay)
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
                    outcomes: scheduler.outcomeCounts, inFlight: scheduler.inFlightCount, workers: peers.count,
                    attempts: attemptsStarted, retries: max(0, attemptsStarted - (scheduler.jobCount - scheduler.remainingCount) - scheduler.inFlightCount),
                    supersededResults: supersededResults)
        p.artifactsStored = artifactsStored
        p.artifactResends = artifactResends
        return p
    }

    public var unservableQueuedJobs: Int { scheduler.unservableQueuedJobs }
    public var workerNames: [String] { peers.values.map(\.name).sorted() }

    /// Every connected worker with the ids of (at most `limit` of) the jobs it holds, by name: for a live view,
    /// asked once per tick, never per job.
    public func workerActivity(limit: Int) -> [WorkerActivity] {
        peers.values.map { peer in
            let held = scheduler.inFlight(on: peer.worker)
            return WorkerActivity(name: peer.name, jobs: held.prefix(limit).map { definition.jobs[$0].id }, held: held.count)
        }.sorted { $0.name < $1.name }
    }

    // MARK: - Events from the transport

    /// A peer passed the handshake; `hello` is what it advertised.
    public func onPeerJoined(_ peer: UInt64, hello: Hello) -> [Action] {
        // A second join for a live peer id (the transport never sends one): the earlier connection is over first, so
        // the scheduler never keeps a worker no peer stands for.
        let earlier = peers[peer] == nil ? [] : onPeerClosed(peer)
        let worker = WorkerID(nextWorker)
        nextWorker += 1
        peers[peer] = Peer(worker: worker, name: hello.name, version: hello.version)
        peerOfWorker[worker] = peer
        var labels: [String: String] = [:]
        for label in hello.labels {
            // `key=value` or a bare `key`; the handshake refuses empty keys, and nothing here assumes it did.
            guard let equals = label.firstIndex(of: "=") else { labels[label] = ""; continue }
            labels[String(label[..<equals])] = String(label[label.index(after: equals)...])
        }
        var actions: [Action] = []
        var directives = scheduler.onWorkerJoined(worker, name: hello.name, registries: Set(hello.registries), labels: labels,
                                                  slots: Int(hello.slots), canRevoke: hello.version >= MessageType.revoke.introducedIn,
                                                  now: now())
        // The same process reconnected: its connection broke, it did not crash (docs/FLEET.md, "Network faults").
        directives += claimInstance(labels, peer: peer)
        if !scheduler.canServe(worker) {
            // Said at once, on both sides: otherwise both wait for ever. What the peer chose is escaped, as `show` does.
            let needs = scheduler.neededRegistries.joined(separator: ", ")
            let offers = hello.registries.sorted().map(\.terminalSafe).joined(separator: ", ")
            let text = "this run needs registr\(scheduler.neededRegistries.count == 1 ? "y" : "ies") [\(needs)]"
                + (definition.jobs.first.map { $0.requiredLabels.isEmpty ? "" : " with labels \($0.requiredLabels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))" } ?? "")
                + "; worker \(hello.name.terminalSafe) offers [\(offers)] and labels "
                + "[\(hello.labels.filter { !$0.hasPrefix("flowmatrix.") }.map(\.terminalSafe).joined(separator: ", "))]: it gets no jobs from this run"
                + (scheduler.neededRegistries.contains(CommandTemplate.registry) && !hello.registries.contains(CommandTemplate.registry)
                    ? " (a worker runs command jobs only when started with --allow-commands)" : "")
            actions.append(.notice(text))
            if hello.version >= MessageType.notice.introducedIn { actions.append(.send(peer: peer, [.notice(text)])) }
        }
        return earlier + actions + interpret(directives)
    }

    /// A STEP event, or the steps of a RESULT_STEPS, of job `index`'s `attempt`.
    func onSteps(job index: Int, jobID: String, attempt: UInt32, _ steps: some Collection<StepReport>,
                         into records: inout [JournalRecord]) {
        let keys = definition.jobs[index].stepKeys
        attemptJournal.steps(job: index, jobID: jobID, attempt: numbering.journaled(wire: attempt), steps.lazy.map { step in
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

    /// A RESULT (or the result of RESULT_STEPS): the scheduler hears of it with the rest of the read batch.
    func onResult(job index: Int, _ result: Wire.JobResult, into results: inout [(Assignment, AttemptStatus)]) {
        lastAttempt[index] = AttemptInfo(attempt: result.attempt, durationMicros: result.durationMicros,
                                         failureStep: result.failure.map { Int($0.step) },
                                         message: result.failure?.message)
        scheduler.onMeasured(job: index, nanoseconds: Int64(clamping: result.durationMicros) &* 1000)
        results.append((numbering.assignment(job: index, wire: result.attempt), AttemptStatus(reported: result.status)))
    }

    /// Messages from an authenticated peer, one read batch at a time.
    public func onMessages(_ peer: UInt64, _ messages: [Message]) -> [Action] {
        guard let state = peers[peer] else { return [] }
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
                output.append(contentsOf: refusal(type, job, attempt, from: peer))
            } else if let index, steps > 0, !takeSteps(steps, job: index) {
                flushResults()
                output.append(contentsOf: refusal(ofSteps: index, from: peer))
                return nil
            }
            return index
        }
        for message in messages {
            if let refused = refusal(ofNewer: message, from: peer, version: state.version) {
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
                    onSteps(job: index, jobID: step.job, attempt: step.attempt, CollectionOfOne(StepReport(step)),
                            into: &output.records)
                case .result(let result):
                    guard let index = accepted(.result, result.job, result.attempt, ending: true) else { break }
                    onResult(job: index, result, into: &results)
                case .resultSteps(let report):
                    let (job, attempt) = (report.result.job, report.result.attempt)
                    guard let index = accepted(.resultSteps, job, attempt, ending: true, steps: report.steps.count) else { break }
                    onSteps(job: index, jobID: job, attempt: attempt, report.steps, into: &output.records)
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
                    output.append(contentsOf: closing(message, from: peer))
                }
            }
            // Nothing after this peer's close counts: the rest of the batch is dropped.
            if case .close(let closed, _)? = output.last, closed == peer {
                expelled.insert(peer)
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
        var acks: [UInt64: [Message]] = [:]
        var records: [JournalRecord] = []
        var refusals: [Action] = []
        for event in events {
            switch event {
            case .refused(let peer, let reason):
                refusals += refuse(peer, reason: reason)
            case .accepted(let peer, let ack), .resend(let peer, let ack, _):
                acks[peer, default: []].append(.artifactAck(ack))
            case .stored(let peer, let ack, let step, let mediaType, let size, let rawSize):
                acks[peer, default: []].append(.artifactAck(ack))
                artifactsStored += 1
                // The artifact's row needs its attempt's row.
                if let index = owners.knownIndex(of: ack.job) {
                    attemptJournal.journalStart(job: index, attempt: numbering.journaled(wire: ack.attempt), into: &records)
                }
                records.append(.artifactStored(runID: definition.runID, jobID: ack.job, attempt: numbering.journaled(wire: ack.attempt),
                    artifact: ArtifactReference(stepIndex: step, name: ack.name, mediaType: mediaType,
                                                sha256: Hex.encode(ack.sha256.bytes), compressedSize: size, rawSize: rawSize)))
            }
            if case .resend = event { artifactResends += 1 }
        }
        // Stored artifacts are journaled before their acknowledgements go out.
        var output = EngineOutput(records: records)
        output.append(contentsOf: acks.keys.sorted().compactMap { peer in
            peers[peer] == nil ? nil : .send(peer: peer, acks[peer] ?? [])
        })
        output.append(contentsOf: refusals)
        return output.finish()
    }

    /// A peer broke a protocol bound: ERROR, then close (its attempts run again elsewhere once it is gone).
    public func refuse(_ peer: UInt64, reason: String) -> [Action] {
        guard peers[peer] != nil else { return [] }
        expelled.insert(peer)
        return [.send(peer: peer, [.error(ErrorMessage(WireError(.invalidValue, reason)))]), .close(peer: peer, reason: reason)]
    }

    /// A peer's connection closed (or it was closed by us).
    public func onPeerClosed(_ peer: UInt64) -> [Action] {
        guard let state = peers.removeValue(forKey: peer) else { return [] }
        peerOfWorker[state.worker] = nil
        // A connection the coordinator closed for what the peer sent: its jobs were not at fault.
        let faultless = expelled.remove(peer) != nil
        var directives = scheduler.onWorkerLost(state.worker, now: now(), faultless: faultless)
        if let instance = state.instance {
            if peers.values.contains(where: { $0.instance == instance }) {
                // The same process is connected again already (its new connection was heard first): not a crash.
                directives += scheduler.onWorkerReturned(lost: state.worker, now: now())
            } else {
                lostInstances.remember(instance, state.worker)
            }
        }
        return interpret(directives)
    }

    /// Periodic: dead-worker detection and lease expiry (the transport sends and checks heartbeats itself).
    public func onTick() -> [Action] {
        let t = now()
        var output = EngineOutput()
        output.append(contentsOf: interpret(scheduler.onTick(now: t)))
        if let sentence = unservedJobsNotice(now: t) { output.append(.notice(sentence)) }
        attemptJournal.journalLongRunning(now: t, into: &output.records)
        return output.finish()
    }

    /// Jobs that no connected worker can run, said once they have waited 10 s, and again every 60 s.
    func unservedJobsNotice(now t: Duration) -> String? {
        unservedNotice.sentence(for: scheduler.unservedNeeds, workerNames: { workerNames }, now: t)
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
        peers.keys.sorted().map { .send(peer: $0, [.drain]) }
    }
}
