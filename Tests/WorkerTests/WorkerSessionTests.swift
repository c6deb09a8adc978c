import FlowMatrixTestKit
import Synchronization
import Testing
import Wire
import Worker

/// A real worker runtime against a scripted coordinator: how jobs are started, cancelled, timed out and drained.
@Suite("Worker session", .timeLimit(.minutes(2)))
struct WorkerSessionTests {
    let quick = ScenarioFixture("quick", targets: ["pass", "pass", "pass"])
    let hang = ScenarioFixture("hang", targets: ["pass", "hang"])

    /// Starts a coordinator and a worker with `slots` connected to it; runs `body`; stops both.
    func withWorker(slots: Int, _ body: (FakeCoordinator) async throws -> Void) async throws {
        let coordinator = FakeCoordinator()
        try await coordinator.start()
        var settings = WorkerSettings(host: "127.0.0.1", port: coordinator.port, token: FakeCoordinator.token,
                                      name: "test-worker", slots: slots)
        settings.prefetchPerSlot = 2
        let runtime = WorkerRuntime(settings: settings, registries: [TestRegistry.factory])
        let worker = Task { await runtime.run() }
        defer {
            runtime.stop()
            coordinator.stop()
        }
        try await coordinator.wait("the first CREDIT") { $0.contains { if case .credit = $0 { true } else { false } } }
        try await body(coordinator)
        runtime.stop()
        _ = await worker.value
    }

    @Test("every assigned job reports its steps and one result, more jobs than slots included")
    func manyJobs() async throws {
        try await withWorker(slots: 3) { coordinator in
            let ids = (0..<40).map { "job-\($0)" }
            coordinator.send([quick.message, .assign(ids.map { quick.job($0) })])
            try await coordinator.wait("40 results") { $0.filter { if case .result = $0 { true } else { false } }.count == 40 }
            for id in ids { #expect(coordinator.result(id)?.status == .passed) }
            let steps = coordinator.received.filter { if case .step = $0 { true } else { false } }
            #expect(steps.count == 120)
        }
    }

    @Test("CANCEL stops a running job and drops a queued one; a fresh runner then takes the queue")
    func cancel() async throws {
        try await withWorker(slots: 1) { coordinator in
            coordinator.send([hang.message, quick.message, .assign([hang.job("running"), quick.job("queued")])])
            // The running job's first step passed: it is inside the hanging step now.
            try await coordinator.wait("the running job's first STEP") {
                $0.contains { if case .step(let s) = $0, s.job == "running" { true } else { false } }
            }
            coordinator.send([.cancel(Cancel(job: "queued", attempt: 1, reason: "test"))])
            try await coordinator.wait("the queued job's RESULT") { FakeCoordinator.result("queued", in: $0) != nil }
            #expect(coordinator.result("queued")?.status == .cancelled)
            #expect(coordinator.result("running") == nil)

            coordinator.send([.cancel(Cancel(job: "running", attempt: 1, reason: "test")), .assign([quick.job("after")])])
            try await coordinator.wait("the later job's RESULT") { FakeCoordinator.result("after", in: $0) != nil }
            #expect(coordinator.result("running")?.status == .cancelled)
            #expect(coordinator.result("after")?.status == .passed)
        }
    }

    @Test("a job past its timeout is cancelled by the watchdog and reported timed out; the jobs after it run")
    func timeout() async throws {
        try await withWorker(slots: 1) { coordinator in
            coordinator.send([hang.message, quick.message,
                              .assign([hang.job("slow", timeoutMillis: 100), quick.job("next-1"), quick.job("next-2")])])
            try await coordinator.wait("three results") { FakeCoordinator.result("next-2", in: $0) != nil }
            let slow = coordinator.result("slow")
            #expect(slow?.status == .timedOut)
            #expect(slow?.failure?.step == 1)
            #expect(coordinator.result("next-1")?.status == .passed)
            #expect(coordinator.result("next-2")?.status == .passed)
        }
    }

    @Test("after DRAIN the worker finishes what it holds, then says BYE once, after the last RESULT")
    func drain() async throws {
        try await withWorker(slots: 2) { coordinator in
            coordinator.send([quick.message, .assign((0..<6).map { quick.job("d\($0)") }), .drain])
            try await coordinator.wait("BYE") { $0.contains { if case .bye = $0 { true } else { false } } }
            let received = coordinator.received
            let byes = received.indices.filter { if case .bye = received[$0] { true } else { false } }
            let lastResult = received.lastIndex { if case .result = $0 { true } else { false } }
            #expect(byes.count == 1)
            #expect(lastResult.map { $0 < byes[0] } == true)
            for i in 0..<6 { #expect(coordinator.result("d\(i)")?.status == .passed) }
        }
    }
}
