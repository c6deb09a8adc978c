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

/// The coordinator process's network server: a libuv server whose loop thread owns the `CoordinatorShell` (and so
/// the `CoordinatorEngine`). Frames arrive in read batches and go to the shell in one call; the engine's actions
/// become writes, journal batches and announcements.
public final class CoordinatorServer: Sendable {
    public let port: Int
    private let loop: EventLoop
    private let server: TCPServer
    private let shell: LoopBound<CoordinatorShell>
    /// The shell's tick (leases, silent workers, held journal starts), every `tickInterval`.
    private let ticker: ScheduledTimer
    private let shared: Shared

    /// State read from other threads: the latest progress and the completion waiters.
    package final class Shared: Sendable {
        struct State {
            var progress: RunProgress
            var complete = false
            var waiters: [CheckedContinuation<RunProgress, Never>] = []
            var workerNames: [String] = []
        }
        let state: Mutex<State>
        package init(progress: RunProgress) { state = Mutex(State(progress: progress)) }

        /// The latest progress the shell published.
        package var progress: RunProgress { state.withLock { $0.progress } }

        /// Waits until the shell has published the run's end (at once if it has).
        package func waitForCompletion() async -> RunProgress {
            await withCheckedContinuation { c in
                state.withLock { s in
                    if s.complete { c.resume(returning: s.progress) } else { s.waiters.append(c) }
                }
            }
        }
    }

    private init(port: Int, loop: EventLoop, server: TCPServer, shell: LoopBound<CoordinatorShell>, ticker: ScheduledTimer,
                 shared: Shared) {
        self.port = port
        self.loop = loop
        self.server = server
        self.shell = shell
        self.ticker = ticker
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
        let shell = try await withCheckedThrowingContinuation { (c: CheckedContinuation<LoopBound<CoordinatorShell>, any Error>) in
            let accepted = loop.execute {
                // Loop-confined from birth: the engine and its shell are created on the thread that owns them.
                let engine = CoordinatorEngine(definition: definition, clock: .system(since: startInstant))
                let shell = CoordinatorShell(engine: engine, shared: shared, journal: journal,
                                             onNotice: settings.onNotice, observer: settings.observer)
                if let blobStore = settings.blobStore {
                    let bound = LoopBound(Weak(shell), loop: loop)
                    shell.ingest = ArtifactIngest(store: blobStore) { events in
                        // Back to the loop thread with one hop per ingested batch.
                        loop.execute { bound.value.object?.onIngest(events) }
                    }
                }
                c.resume(returning: LoopBound(shell, loop: loop))
            }
            if !accepted { c.resume(throwing: TransportError(.loopShutDown, "the event loop is shut down")) }
        }
        let server: TCPServer
        do {
            server = try await TCPServer.listen(on: loop, host: settings.host, port: settings.port, handshake: handshake) {
                PeerHandler(shell: shell)
            }
        } catch {
            loop.shutdown()
            throw error
        }
        let ticker = loop.scheduleRepeating(every: settings.tickInterval) { [interval = settings.tickInterval] in shell.value.onTick(every: interval) }
        return CoordinatorServer(port: server.port, loop: loop, server: server, shell: shell, ticker: ticker,
                                 shared: shared)
    }

    /// The latest progress (updated after every batch the engine handles).
    public var progress: RunProgress { shared.progress }
    public var workerNames: [String] { shared.state.withLock { $0.workerNames } }

    /// Waits until every job has its final outcome.
    public func waitForCompletion() async -> RunProgress { await shared.waitForCompletion() }

    /// Ctrl-C once: no more dispatching; in-flight jobs finish.
    public func stopDispatching(reason: String) {
        loop.execute { [shell] in shell.value.stopDispatching(reason: reason) }
    }

    /// Ctrl-C twice: cancel everything in flight.
    public func abort(reason: String) {
        loop.execute { [shell] in shell.value.abort(reason: reason) }
    }

    /// Drains every worker (they finish and say BYE), stops listening, and shuts the loop down once the
    /// workers have gone or `grace` passed.
    public func shutdown(grace: Duration = .seconds(5)) async {
        let drained = Mutex<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            drained.withLock { $0 = c }
            let accepted = loop.execute { [shell, server, loop, ticker] in
                server.close(closingConnections: false)
                ticker.cancel()
                let shell = shell.value
                let done = shell.drain { drained.withLock { $0?.resume(); $0 = nil } }
                if !done {
                    let draining = Weak(shell)
                    _ = loop.scheduleInLoop(after: grace) { draining.object?.closeRemaining() }
                }
            }
            if !accepted { drained.withLock { $0?.resume(); $0 = nil } }
        }
        loop.shutdown()
    }
}

/// One accepted connection's handler: forwards its batches to the shell.
final class PeerHandler: FramedConnectionHandler {
    private let shell: LoopBound<CoordinatorShell>
    private var peer: UInt64 = 0

    init(shell: LoopBound<CoordinatorShell>) { self.shell = shell }

    func onOpen(_ connection: FramedConnection) {
        peer = shell.value.onOpen(connection, hello: connection.authenticatedPeer)
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
        shell.value.onMessages(peer, messages)
    }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        guard peer != 0 else { return }
        shell.value.onPeerClosed(peer)
    }
}

extension FramedConnection: PeerConnection {
    package func send(_ messages: [Message]) {
        send(contentsOf: messages.map { $0.frame() })
    }
}

/// A weak reference, for callbacks that must not keep their target alive.
final class Weak<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}
