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
        try await withWorker(slots: slots) { coordinator, _ in try await body(coordinator) }
    }

    /// Like `withWorker(slots:_:)`, and `body` also gets the worker's runtime; the coordinator offers `versions`.
    func withWorker(slots: Int, versions: [UInt16] = ProtocolVersion.supported,
                    watchdogInterval: Duration = .milliseconds(50),
                    _ body: (FakeCoordinator, WorkerRuntime) async throws -> Void) async throws {
        let coordinator = FakeCoordinator()
        try await coordinator.start(versions: versions)
        var settings = WorkerSettings(host: "127.0.0.1", port: coordinator.port, token: FakeCoordinator.token,
                                      name: "test-worker", slots: slots)
        settings.prefetchPerSlot = 2
        settings.watchdogInterval = watchdogInterval
        let runtime = WorkerRuntime(settings: settings, registries: [TestRegistry.factory])
        let worker = Task { await runtime.run() }
        defer {
            runtime.stop()
            coordinator.stop()
        }
        try await coordinator.wait("the first CREDIT") { $0.contains { if case .credit = $0 { true } else { false } } }
        try await body(coordinator, runtime)
        runtime.stop()
        _ = await worker.value
    }

    @Test("every assigned job reports its steps and one result, more jobs than slots included; version 2 sends each as one RESULT_STEPS",
          arguments: [UInt16(1), 2])
    func manyJobs(version: UInt16) async throws {
        // No watchdog tick during the run: a tick streams the steps of the jobs in flight, and on a loaded machine
        // a tick falls inside these short jobs (the parallel test run saw STEP frames under version 2).
        try await withWorker(slots: 3, versions: [version], watchdogInterval: .seconds(3600)) { coordinator, _ in
            let ids = (0..<40).map { "job-\($0)" }
            coordinator.send([quick.message, .assign(ids.map { quick.job($0) })])
            try await coordinator.wait("40 results") { $0.filter { if case .result = $0 { true } else { false } }.count == 40 }
            for id in ids { #expect(coordinator.result(id)?.status == .passed) }
            let steps = coordinator.received.compactMap { if case .step(let s) = $0 { s } else { nil } }
            #expect(steps.count == 120)
            // Each job's steps in order, before its result.
            for id in ids { #expect(steps.filter { $0.job == id }.map(\.index) == [0, 1, 2]) }
            let types = coordinator.frameTypes
            if version == 1 {
                #expect(types.filter { $0 == .step }.count == 120 && types.filter { $0 == .result }.count == 40)
                #expect(!types.contains(.resultSteps))
            } else {
                // Short jobs: one frame each, steps included.
                #expect(types.filter { $0 == .resultSteps }.count == 40)
                #expect(!types.contains(.step) && !types.contains(.result))
            }
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
            // A long step's predecessors stream as STEP frames (at the watchdog's tick), not held for the result.
            #expect(coordinator.frameTypes.contains(.step))
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
        // 3 s, not 1: on a machine loaded by the other suites the instant first step has been seen to take over 1 s.
        try await withWorker(slots: 1) { coordinator in
            coordinator.send([hang.message, quick.message,
                              .assign([hang.job("slow", timeoutMillis: 3000), quick.job("next-1"), quick.job("next-2")])])
            // Up to 60 s: in the parallel test run this process has been starved for most of 20 s.
            try await coordinator.wait("three results", seconds: 60) { FakeCoordinator.result("next-2", in: $0) != nil }
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

    @Test("runners idle between batches park and take the later jobs: no new runner task per batch")
    func parkedRunnersAreReused() async throws {
        try await withWorker(slots: 2) { coordinator, runtime in
            coordinator.send([quick.message])
            for batch in 0..<5 {
                let ids = (0..<2).map { "b\(batch)-\($0)" }
                coordinator.send([.assign(ids.map { quick.job($0) })])
                try await coordinator.wait("batch \(batch)'s results") { messages in
                    ids.allSatisfy { FakeCoordinator.result($0, in: messages) != nil }
                }
                for id in ids { #expect(coordinator.result(id)?.status == .passed) }
            }
            #expect(runtime.runnersStarted == 2)
        }
    }

    @Test("a cancelled runner is retired and replaced by one fresh runner, which then parks and is reused")
    func cancelledRunnerIsRetired() async throws {
        try await withWorker(slots: 1) { coordinator, runtime in
            coordinator.send([hang.message, quick.message, .assign([hang.job("running")])])
            try await coordinator.wait("the running job's first STEP") {
                $0.contains { if case .step(let s) = $0, s.job == "running" { true } else { false } }
            }
            coordinator.send([.cancel(Cancel(job: "running", attempt: 1, reason: "test"))])
            try await coordinator.wait("the cancelled job's RESULT") { FakeCoordinator.result("running", in: $0) != nil }
            #expect(coordinator.result("running")?.status == .cancelled)
            for id in ["after-1", "after-2", "after-3"] {
                coordinator.send([.assign([quick.job(id)])])
                try await coordinator.wait("\(id)'s RESULT") { FakeCoordinator.result(id, in: $0) != nil }
                // A retired runner must not run it: its task is cancelled, so the job would report cancelled.
                #expect(coordinator.result(id)?.status == .passed)
            }
            #expect(runtime.runnersStarted == 2)
        }
    }
}
