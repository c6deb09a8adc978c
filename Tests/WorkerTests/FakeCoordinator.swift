import FlowCrypto
import FlowMatrixTestKit
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
        /// The types of the frames as they came.
        var frameTypes: [MessageType] = []
        var connection: LoopBound<FramedConnection>?
    }

    let loop = EventLoop()
    private let state = Mutex(State())
    /// As the worker sent them, except that a RESULT_STEPS is recorded as the STEPs and RESULT it stands for.
    private let log = MessageLog()
    private let server = Mutex<TCPServer?>(nil)

    /// The port to connect to.
    var port: Int { server.withLock { $0?.port ?? 0 } }

    var received: [Message] { log.messages }
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
        try await log.wait(what, timeout: .seconds(seconds), until: predicate)
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
        state.withLock { s in
            s.frameTypes += messages.map(\.type)
            // Under the lock, so batches are recorded in the order they came.
            log.append(messages.flatMap { message -> [Message] in
                if case .resultSteps(let report) = message {
                    return report.stepEvents.map(Message.step) + [.result(report.result)]
                }
                return [message]
            })
        }
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
