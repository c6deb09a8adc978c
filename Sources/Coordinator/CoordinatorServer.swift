import Artifacts
import Foundation
import Journal
import Synchronization
import UVTransport
import Wire

/// Where the coordinator listens and how it treats its peers.
public struct CoordinatorSettings: Sendable {
    public var host: String
    /// 0 picks an ephemeral port (the embedded default).
    public var port: Int
    public var token: [UInt8]
    /// How often leases and silent workers are checked. Default 250 ms.
    public var tickInterval: Duration = .milliseconds(250)
    /// Heartbeat interval announced to workers (a worker silent for 3 intervals is dropped). Default 2 s.
    public var heartbeatInterval: Duration = .seconds(2)
    /// An unauthenticated peer is closed after this long. Default 10 s.
    public var handshakeDeadline: Duration = .seconds(10)
    /// Where streamed artifacts are stored; nil refuses them (acknowledged, never stored).
    public var blobStore: BlobStore?
    /// Receives the engine's notices (a worker that can run nothing, jobs no worker can run), on the loop thread.
    public var onNotice: (@Sendable (String) -> Void)?
    /// Sees finished jobs, progress and workers once per batch and tick, on the loop thread (a live view); nil
    /// costs nothing.
    public var observer: (any RunObserver)?

    public init(host: String, port: Int, token: [UInt8]) {
        self.host = host
        self.port = port
        self.token = token
    }
}

/// The coordinator process's network shell: a libuv server whose loop thread owns the `CoordinatorEngine`.
/// Frames arrive in read batches and go to the engine in one call; the engine's actions become writes.
public final class CoordinatorServer: Sendable {
    public let port: Int
    private let loop: EventLoop
    private let server: TCPServer
    private let core: LoopBound<ServerCore>
    private let shared: Shared

    /// State read from other threads: the latest progress and the completion waiters.
    final class Shared: Sendable {
        struct State {
            var progress: RunProgress
            var complete = false
            var waiters: [CheckedContinuation<RunProgress, Never>] = []
            var workerNames: [String] = []
        }
        let state: Mutex<State>
        init(progress: RunProgress) { state = Mutex(State(progress: progress)) }
    }

    private init(port: Int, loop: EventLoop, server: TCPServer, core: LoopBound<ServerCore>, shared: Shared) {
        self.port = port
        self.loop = loop
        self.server = server
        self.core = core
        self.shared = shared
    }

    /// Starts listening and serving `definition`.
    /// - Parameter journal: receives the engine's records (hand them to a `JournalWriter`).
    /// - Throws: `TransportError` (bad address, port in use).
    public static func start(
        definition: RunDefinition, settings: CoordinatorSettings, journal: @escaping @Sendable ([JournalRecord]) -> Void
    ) async throws -> CoordinatorServer {
        // Every connection holds a descriptor: a fleet needs more than the common soft limit of 1,024.
        DescriptorLimit.raiseSoftLimitToHard()
        let loop = EventLoop()
        loop.start()
        let startInstant = ContinuousClock.now
        let shared = Shared(progress: RunProgress(total: definition.jobs.count, done: definition.finished.count, outcomes: [:],
                                                  inFlight: 0, workers: 0, attempts: 0, retries: 0, supersededResults: 0))
        var handshake = ServerHandshakeSettings(token: settings.token)
        handshake.heartbeatInterval = settings.heartbeatInterval
        handshake.deadline = settings.handshakeDeadline
        let core = try await withCheckedThrowingContinuation { (c: CheckedContinuation<LoopBound<ServerCore>, any Error>) in
            let accepted = loop.execute {
                // Loop-confined from birth: the engine is created on the thread that owns it.
                let engine = CoordinatorEngine(definition: definition, journal: journal,
                                               clock: .system(since: startInstant))
                engine.onNotice = settings.onNotice
                let core = ServerCore(engine: engine, shared: shared, loop: loop, blobStore: settings.blobStore)
                core.descriptors.onNotice = settings.onNotice
                if let observer = settings.observer { core.observe(with: observer) }
                core.publish(complete: engine.isComplete)
                c.resume(returning: LoopBound(core, loop: loop))
            }
            if !accepted { c.resume(throwing: TransportError(.loopShutDown, "the event loop is shut down")) }
        }
        let server: TCPServer
        do {
            server = try await TCPServer.listen(on: loop, host: settings.host, port: settings.port, handshake: handshake) {
                PeerHandler(core: core)
            }
        } catch {
            loop.shutdown()
            throw error
        }
        loop.execute {
            core.value.startTicking(every: settings.tickInterval)
        }
        return CoordinatorServer(port: server.port, loop: loop, server: server, core: core, shared: shared)
    }

    /// The latest progress (updated after every batch the engine handles).
    public var progress: RunProgress { shared.state.withLock { $0.progress } }
    public var workerNames: [String] { shared.state.withLock { $0.workerNames } }

    /// Waits until every job has its final outcome.
    public func waitForCompletion() async -> RunProgress {
        await withCheckedContinuation { c in
            shared.state.withLock { s in
                if s.complete { c.resume(returning: s.progress) } else { s.waiters.append(c) }
            }
        }
    }

    /// Ctrl-C once: no more dispatching; in-flight jobs finish.
    public func stopDispatching(reason: String) {
        loop.execute { [core] in core.value.perform { $0.stopDispatching(reason: reason) } }
    }

    /// Ctrl-C twice: cancel everything in flight.
    public func abort(reason: String) {
        loop.execute { [core] in core.value.perform { $0.abort(reason: reason) } }
    }

    /// Drains every worker (they finish and say BYE), stops listening, and shuts the loop down once the
    /// workers have gone or `grace` passed.
    public func shutdown(grace: Duration = .seconds(5)) async {
        let drained = Mutex<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            drained.withLock { $0 = c }
            let accepted = loop.execute { [core, server] in
                server.close(closingConnections: false)
                core.value.drainAndClose(grace: grace) {
                    drained.withLock { $0?.resume(); $0 = nil }
                }
            }
            if !accepted { drained.withLock { $0?.resume(); $0 = nil } }
        }
        loop.shutdown()
    }
}

/// The loop-confined half: the engine, the live connections, and carrying out actions.
final class ServerCore {
    let engine: CoordinatorEngine
    let shared: CoordinatorServer.Shared
    let loop: EventLoop
    var connections: [UInt64: FramedConnection] = [:]
    var nextPeer: UInt64 = 1
    var ticker: ScheduledTimer?
    var onAllClosed: (() -> Void)?
    var ingest: ArtifactIngest?
    var observer: (any RunObserver)?
    /// Jobs finished since the observer last heard.
    var observed: [FinishedJob] = []
    private var observedComplete = false
    /// Worker names are published once per tick, not per read batch (sorting every name per batch would cost
    /// O(N log N) per result with a fleet connected).
    private var namesDue = true
    /// Says when connections are refused for lack of descriptors.
    let descriptors = DescriptorWatch()

    init(engine: CoordinatorEngine, shared: CoordinatorServer.Shared, loop: EventLoop, blobStore: BlobStore?) {
        self.engine = engine
        self.shared = shared
        self.loop = loop
        engine.onRunComplete = { [weak self] in self?.publish(complete: true) }
        if let blobStore {
            let bound = LoopBound(Weak(self), loop: loop)
            ingest = ArtifactIngest(store: blobStore) { events in
                // Back to the loop thread with one hop per ingested batch.
                loop.execute { bound.value.object?.perform { $0.onIngest(events) } }
            }
        }
    }

    func startTicking(every interval: Duration) {
        ticker = loop.scheduleRepeatingInLoop(every: interval) { [weak self] in
            guard let self else { return }
            self.namesDue = true
            self.descriptors.check(connected: self.connections.count, every: interval)
            self.perform { $0.onTick() }
            if let observer = self.observer {
                observer.onRunEvents(RunEvents(finished: self.observed, progress: self.engine.progress,
                    workers: self.engine.workerActivity(limit: WorkerActivity.listLimit), complete: self.engine.isComplete))
                self.observed.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Hands finished jobs to `observer` once per batch: the engine's per-job hook only appends an id.
    func observe(with observer: any RunObserver) {
        self.observer = observer
        engine.onJobFinished = { [weak self] job, outcome in
            self?.observed.append(FinishedJob(id: job.id, outcome: outcome))
        }
    }

    func perform(_ body: (CoordinatorEngine) -> [CoordinatorEngine.Action]) {
        apply(body(engine))
        publish(complete: engine.isComplete)
    }

    func apply(_ actions: [CoordinatorEngine.Action]) {
        for action in actions {
            switch action {
            case .send(let peer, let messages):
                guard let connection = connections[peer] else { continue }
                connection.send(contentsOf: messages.lazy.map { $0.frame() })
            case .close(let peer, _):
                connections[peer]?.close(graceful: true)
            case .ingest(let peer, let chunks):
                if let ingest {
                    guard ingest.submit(peer: peer, chunks) else {
                        let reason = "more than \(IngestLimits.pendingBytes >> 20) MiB of artifact chunks unacknowledged: "
                            + "the worker ignores the artifact window"
                        apply(engine.refuse(peer, reason: reason))
                        continue
                    }
                } else {
                    // No store: acknowledge so workers do not stall, store nothing.
                    let acks = chunks.map { c in Message.artifactAck(ArtifactAck(job: c.job, attempt: c.attempt, name: c.name,
                        sha256: c.sha256, kind: .acceptedThrough, offset: c.offset + UInt64(c.bytes.count))) }
                    connections[peer]?.send(contentsOf: acks.lazy.map { $0.frame() })
                }
            }
        }
    }

    func publish(complete: Bool) {
        let progress = engine.progress
        if let observer, !observed.isEmpty || (complete && !observedComplete) {
            observedComplete = complete
            observer.onRunEvents(RunEvents(finished: observed, progress: progress, workers: nil, complete: complete))
            observed.removeAll(keepingCapacity: true)
        }
        let names = namesDue || complete ? engine.workerNames : nil
        namesDue = false
        let waiters = shared.state.withLock { s -> [CheckedContinuation<RunProgress, Never>] in
            s.progress = progress
            if let names { s.workerNames = names }
            guard complete, !s.complete else { return [] }
            s.complete = true
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.resume(returning: progress) }
    }

    func drainAndClose(grace: Duration, done: @escaping () -> Void) {
        ticker?.cancel()
        ticker = nil
        apply(engine.drainAll())
        if connections.isEmpty { done(); return }
        onAllClosed = done
        _ = loop.scheduleInLoop(after: grace) { [weak self] in
            guard let self, let finish = self.onAllClosed else { return }
            self.onAllClosed = nil
            for c in self.connections.values { c.close(graceful: false) }
            finish()
        }
    }

    func peerClosed(_ peer: UInt64) {
        connections[peer] = nil
        ingest?.dropPeer(peer)
        perform { $0.onPeerClosed(peer) }
        if connections.isEmpty, let finish = onAllClosed {
            onAllClosed = nil
            finish()
        }
    }
}

/// One accepted connection's handler: forwards batches to the core.
final class PeerHandler: FramedConnectionHandler {
    private let core: LoopBound<ServerCore>
    private var peer: UInt64 = 0

    init(core: LoopBound<ServerCore>) { self.core = core }

    func onOpen(_ connection: FramedConnection) {
        let core = self.core.value
        peer = core.nextPeer
        core.nextPeer += 1
        core.connections[peer] = connection
        guard let hello = connection.authenticatedPeer else {
            connection.close(graceful: false)
            return
        }
        let peer = self.peer
        core.perform { $0.onPeerJoined(peer, hello: hello) }
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        var messages: [Message] = []
        messages.reserveCapacity(frames.count)
        for index in frames.indices {
            do {
                messages.append(try Message(batch: frames, at: index))
            } catch let error as WireError {
                connection.fail(error)
                break
            } catch {
                connection.fail(WireError(.internalError, "\(error)"))
                break
            }
        }
        let peer = self.peer
        core.value.perform { $0.onMessages(peer, messages) }
    }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        guard peer != 0 else { return }
        core.value.peerClosed(peer)
    }
}

/// A weak reference, for callbacks that must not keep their target alive.
final class Weak<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}
