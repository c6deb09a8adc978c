import FlowCrypto
import FlowSpec
import Foundation
import Synchronization
import UVTransport
import Wire

/// A coordinator stand-in on loopback: it authenticates one worker, records every message the worker sends, and
/// sends what a test tells it to, so a test can drive a real `WorkerRuntime` message by message.
final class FakeCoordinator: Sendable {
    static let token = Array("worker-tests-token".utf8)

    private struct State {
        /// As the worker sent them, except that a RESULT_STEPS is recorded as the STEPs and RESULT it stands for.
        var received: [Message] = []
        /// The types of the frames as they came.
        var frameTypes: [MessageType] = []
        var connection: LoopBound<FramedConnection>?
        var waiters: [(id: Int, predicate: @Sendable ([Message]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWaiter = 0
    }

    let loop = EventLoop()
    private let state = Mutex(State())
    private let server = Mutex<TCPServer?>(nil)

    /// The port to connect to.
    var port: Int { server.withLock { $0?.port ?? 0 } }

    var received: [Message] { state.withLock { $0.received } }
    var frameTypes: [MessageType] { state.withLock { $0.frameTypes } }

    /// - Parameter versions: the protocol versions offered in CHALLENGE.
    func start(versions: [UInt16] = ProtocolVersion.supported) async throws {
        var handshake = ServerHandshakeSettings(token: Self.token)
        handshake.versions = versions
        let listening = try await TCPServer.listen(
            on: loop, host: "127.0.0.1", port: 0, handshake: handshake
        ) { [self] in Handler(coordinator: self) }
        server.withLock { $0 = listening }
    }

    func stop() {
        loop.shutdown()
    }

    /// Sends `messages` to the connected worker.
    func send(_ messages: [Message]) {
        guard let connection = state.withLock({ $0.connection }) else { return }
        loop.execute {
            connection.value.send(contentsOf: messages.map { $0.frame() })
            connection.value.flush()
        }
    }

    /// Waits (up to `seconds`) until the messages received so far satisfy `predicate`.
    func wait(_ what: String, seconds: Double = 20, until predicate: @escaping @Sendable ([Message]) -> Bool) async throws {
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = self.state.withLock { s -> Bool in
                            if predicate(s.received) || Task.isCancelled { return true }
                            s.waiters.append((id, predicate, continuation))
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = self.state.withLock { s -> CheckedContinuation<Void, Never>? in
                        guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                        return s.waiters.remove(at: i).continuation
                    }
                    waiter?.resume()
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw WaitTimedOut(what: what, received: self.received)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// The RESULT of `job`, if it arrived.
    func result(_ job: String) -> JobResult? { Self.result(job, in: received) }

    /// The RESULT of `job` among `messages` (for `wait` predicates, which run under the coordinator's lock).
    static func result(_ job: String, in messages: [Message]) -> JobResult? {
        messages.lazy.compactMap { if case .result(let r) = $0, r.job == job { r } else { nil } }.first
    }

    fileprivate func opened(_ connection: FramedConnection) {
        let bound = LoopBound(connection, loop: loop)
        state.withLock { $0.connection = bound }
    }

    fileprivate func onMessages(_ messages: [Message]) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            for message in messages {
                s.frameTypes.append(message.type)
                if case .resultSteps(let report) = message {
                    s.received += report.stepEvents.map(Message.step) + [.result(report.result)]
                } else {
                    s.received.append(message)
                }
            }
            var ready: [CheckedContinuation<Void, Never>] = []
            s.waiters.removeAll { waiter in
                guard waiter.predicate(s.received) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    private final class Handler: FramedConnectionHandler {
        let coordinator: FakeCoordinator
        init(coordinator: FakeCoordinator) { self.coordinator = coordinator }

        func onOpen(_ connection: FramedConnection) { coordinator.opened(connection) }

        func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
            coordinator.onMessages(frames.compactMap { try? Message(frame: $0) })
        }

        func onClose(_ connection: FramedConnection, _ reason: CloseReason) {}
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    let received: [Message]
    var description: String { "timed out waiting for \(what); received \(received.map(\.type))" }
}

/// A scenario and the SCENARIO message that delivers it.
struct ScenarioFixture {
    let scenario: Scenario
    let hash: Bytes32
    let message: Message

    init(_ id: String, targets: [String]) {
        scenario = Scenario(id: id, title: id, steps: targets.map { Step(verb: .tap, target: $0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = Array((try? encoder.encode(scenario)) ?? Data())
        hash = Bytes32(SHA256.hash(body)) ?? .zero
        message = .scenario(ScenarioBody(hash: hash, bytes: body))
    }

    /// A job of this scenario; no artifacts are kept (this coordinator never acknowledges any).
    func job(_ id: String, timeoutMillis: UInt64 = 60_000) -> JobAssignment {
        JobAssignment(job: id, attempt: 1, scenarioHash: hash, registry: "test", configuration: [],
                      timeoutMillis: timeoutMillis, seed: 1, keep: .none)
    }
}
