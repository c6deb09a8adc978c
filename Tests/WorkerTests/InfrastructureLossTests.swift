import FlowMatrixTestKit
import FlowSpec
import Synchronization
import Testing
import Wire
import Worker

@Suite("Infrastructure faults on the worker")
struct InfrastructureLossTests {
    @Test("a step throwing StepError.infrastructure ends the attempt as lost (version 3) or errored (older peers)")
    func infrastructureIsLost() async throws {
        let executor = JobExecutor(factories: [TestRegistry.factory])
        let scenario = Scenario(id: "s", title: "s", steps: [Step(verb: .tap, target: "pass"), Step(verb: .tap, target: "infra")])
        let job = JobAssignment(job: "j", attempt: 1, scenarioHash: .zero, registry: "test", configuration: [],
                                timeoutMillis: 10_000, seed: 1)
        let box = Collected()
        await executor.run(job, scenario: scenario) { box.add($0) }
        let result = try #require(box.messages.compactMap { if case .result(let r) = $0 { r } else { nil } }.last)
        #expect(result.status == .lost)
        #expect(result.failure?.step == 1)
        var v2 = ReportFrames(protocolVersion: 2)
        v2.result(result)
        #expect(try Message.decodeAll(v2.bytes).contains { if case .result(let r) = $0 { r.status == .errored } else { false } })
        var v3 = ReportFrames(protocolVersion: 3)
        v3.result(result)
        #expect(try Message.decodeAll(v3.bytes).contains { if case .result(let r) = $0 { r.status == .lost } else { false } })
    }
}

private final class Collected: Sendable {
    private let box = Mutex<[Message]>([])
    var messages: [Message] { box.withLock { $0 } }
    func add(_ m: [Message]) { box.withLock { $0 += m } }
}
