import FlowSpec
import FlowVocabulary
import Foundation
import Synchronization
import UVTransport
import Wire

/// A worker process's runtime: connect, authenticate, advertise registries, pull jobs with credits, run up to
/// `slots` jobs at once (a fresh registry each), stream STEP and RESULT, honour CANCEL and DRAIN, and reconnect
/// with back-off when the coordinator goes away.
public final class WorkerRuntime: Sendable {
    /// Why `run()` returned.
    public enum Exit: Sendable, Hashable, CustomStringConvertible {
        /// The coordinator drained this worker and `exitAfterDrain` is set.
        case drained
        /// The coordinator refused the worker (wrong token, unsupported version).
        case rejected(String)
        /// No coordinator answered within `giveUpAfter`.
        case gaveUp(String)
        /// `stop()` was called.
        case stopped

        public var description: String {
            switch self {
            case .drained: "drained by the coordinator"
            case .rejected(let why): "rejected by the coordinator: \(why)"
            case .gaveUp(let why): "gave up reconnecting: \(why)"
            case .stopped: "stopped"
            }
        }
    }

    public let settings: WorkerSettings
    private let executor: JobExecutor
    private let registryNames: [String]
    private let state = Mutex(State())

    private struct State {
        var stopped = false
        var client: AsyncFramedClient?
        var session: WorkerSession?
        var jobsRun = 0
        var runnersStarted = 0
        /// This process's identity, as labels on every connection: a coordinator that sees the next connection
        /// prove it follows the last one knows the process survived and only its connection broke.
        var instance = WorkerInstance()
    }

    public init(settings: WorkerSettings, registries: [RegistryFactory]) {
        self.settings = settings
        executor = JobExecutor(factories: registries)
        registryNames = registries.map(\.name).sorted()
    }

    /// Jobs this worker has finished since it started.
    public var jobsRun: Int { state.withLock { $0.jobsRun } }

    /// Runner tasks this worker has started, the current connection's included: at most `slots` per connection
    /// while no job is cancelled or timed out (idle runners park and are reused), one more per retired runner.
    public var runnersStarted: Int {
        let session = state.withLock { $0.session }
        return state.withLock { $0.runnersStarted } + (session?.runnersStarted ?? 0)
    }

    /// Stops the worker: closes the connection; `run()` returns `.stopped`.
    public func stop() {
        let client = state.withLock { s -> AsyncFramedClient? in
            s.stopped = true
            return s.client
        }
        if let client { Task { await client.close(graceful: false) } }
    }

    /// Connects and serves coordinators until drained, stopped, or out of reconnect time.
    ///
    /// A REJECT or ERROR that arrives before the coordinator proved it knows the token (its WELCOME MAC) is not
    /// final: anyone who can answer on the coordinator's address can send one (while it restarts, say). The
    /// worker says so and retries with back-off, like an unreachable coordinator; with `giveUpAfter`, it exits
    /// `.rejected` when the last thing it heard was such a rejection.
    public func run() async -> Exit {
        var backoff = settings.initialBackoff
        var unreachableSince = ContinuousClock.now
        var lastRejection: String?
        while true {
            if state.withLock({ $0.stopped }) { return .stopped }
            let handshake = ClientHandshakeSettings(token: settings.token, name: settings.name, slots: UInt32(settings.slots),
                                                    registries: registryNames,
                                                    labels: settings.labels + state.withLock { $0.instance.labels })
            let client: AsyncFramedClient
            do {
                client = try await AsyncFramedClient.connect(host: settings.host, port: settings.port, handshake: handshake)
            } catch let error as ConnectionClosedError {
                if case .protocolError(let wire) = error.reason {
                    // Said before the peer proved it knows the token: anyone may have written it, so it is escaped.
                    lastRejection = wire.message.terminalSafe
                    let delay = jittered(backoff)
                    settings.onNotice?("\(settings.host):\(settings.port) refused this worker before proving it knows "
                        + "the token: \(wire.message.terminalSafe). Not final (anyone on that address can say this); retrying in "
                        + String(format: "%.1f s", Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                        + " — check the token and the protocol version if it persists")
                    if let limit = settings.giveUpAfter, ContinuousClock.now - unreachableSince > limit {
                        return .rejected(wire.message.terminalSafe)
                    }
                    try? await Task.sleep(for: delay)
                    backoff = min(backoff * 2, settings.maximumBackoff)
                    continue
                }
                if let limit = settings.giveUpAfter, ContinuousClock.now - unreachableSince > limit {
                    return lastRejection.map { .rejected($0) } ?? .gaveUp("\(error)")
                }
                try? await Task.sleep(for: jittered(backoff))
                backoff = min(backoff * 2, settings.maximumBackoff)
                continue
            } catch {
                if let limit = settings.giveUpAfter, ContinuousClock.now - unreachableSince > limit {
                    return .gaveUp("\(error)")
                }
                try? await Task.sleep(for: jittered(backoff))
                backoff = min(backoff * 2, settings.maximumBackoff)
                continue
            }
            backoff = settings.initialBackoff
            lastRejection = nil
            state.withLock { $0.instance.welcomed() }
            state.withLock { $0.client = client }
            let drained = await serve(client)
            state.withLock { $0.client = nil }
            unreachableSince = ContinuousClock.now
            if drained && settings.exitAfterDrain { return .drained }
        }
    }

    /// A back-off delay (a deliberate pause between reconnect attempts, not a wait for a condition).
    private func jittered(_ d: Duration) -> Duration {
        d * Double.random(in: 0.5...1.0)
    }

    /// The coordinator's NOTICEs, as lines for the person running the worker.
    private var noticeRelay: (@Sendable (String) -> Void)? {
        guard let notice = settings.onNotice else { return nil }
        return { text in notice("coordinator says: \(text.terminalSafe)") }
    }

    /// Serves one connection until it closes. - Returns: true when the coordinator drained this worker.
    private func serve(_ client: AsyncFramedClient) async -> Bool {
        let session = WorkerSession(transport: client, executor: executor, slots: settings.slots,
                                    prefetch: settings.slots * settings.prefetchPerSlot,
                                    tickInterval: settings.watchdogInterval, onNotice: noticeRelay)
        session.start()
        state.withLock { $0.session = session }
        for await batch in client.inbound {
            if session.onFrames(batch) { break }
        }
        let drained = await session.finish()
        state.withLock {
            $0.session = nil
            $0.jobsRun += session.jobsFinished
            $0.runnersStarted += session.runnersStarted
        }
        await client.close(graceful: true)
        return drained
    }
}
