import Coordinator
import Testing
import Wire

/// A lost connection is not a crash: when the same worker process reconnects, the jobs lost with its connection
/// are not crash suspects (they need not run alone) and the loss does not count toward quarantine.
@Suite("Lost connections versus crashes")
struct NetworkFaultTests {
    @Test("jobs lost with a connection run alone next, until the same worker is back: then they pipeline again")
    func returnedWorkerClearsSuspicion() {
        var h = SchedulerHarness(jobs(6, expected: .zero),
                                 settings: SchedulerSettings(quarantineAfterWorkerLosses: 2))
        h.join(1, slots: 2, credit: 4)
        #expect(h.take(1).count == 4)
        h.apply(h.scheduler.onWorkerLost(WorkerID(1), now: h.now))
        // On worker 2 the first lost job runs alone: a suspect.
        h.join(2, slots: 2, credit: 4)
        #expect(h.take(2).count == 1)
        // Worker 1's process reconnects (as worker 3): it did not crash.
        h.apply(h.scheduler.onWorkerReturned(lost: WorkerID(1), now: h.now))
        h.join(3, slots: 2, credit: 4)
        let afterReturn = h.take(2).count + h.take(3).count
        #expect(afterReturn == 5, "every remaining job is dispatched, none held back as a suspect")
        // And a second network loss of the same jobs does not quarantine them.
        h.apply(h.scheduler.onWorkerLost(WorkerID(3), now: h.now))
        #expect(!h.finished.values.contains(.quarantined))
    }

    @Test("the engine recognises a reconnected process by its instance label")
    func engineMatchesInstances() throws {
        let engine = EngineHarness(definition: makeDefinition(Array(repeating: ["pass"], count: 6)), journal: { _ in },
                                       now: { .zero })
        // One process: each connection proves it follows the last welcomed one.
        var instance = WorkerInstance()
        func hello(_ name: String) -> Hello {
            defer { instance.welcomed() }
            return Hello(version: 3, name: name, slots: 2, registries: ["test"], labels: instance.labels, nonce: .zero, mac: .zero)
        }
        func assignedCount(_ actions: [CoordinatorEngine.Action]) -> Int {
            var n = 0
            for case .send(_, let messages) in actions { for case .assign(let jobs) in messages { n += jobs.count } }
            return n
        }
        _ = engine.onPeerJoined(1, hello: hello("w"))
        #expect(assignedCount(engine.onMessages(1, [.credit(4)])) == 4)
        _ = engine.onPeerClosed(1)
        _ = engine.onPeerJoined(2, hello: hello("w"))
        // Not suspects: all six jobs go out at once (2 slots + up to 1 queued per slot… of 1-s-unknown jobs: 4).
        #expect(assignedCount(engine.onMessages(2, [.credit(10)])) == 4)
    }

    @Test("the reconnection heard before the old connection's close: the lost jobs are still not suspects")
    func reconnectionFirst() {
        let engine = EngineHarness(definition: makeDefinition(Array(repeating: ["pass"], count: 6)), journal: { _ in },
                                       now: { .zero })
        var instance = WorkerInstance()
        func hello() -> Hello {
            defer { instance.welcomed() }
            return Hello(version: 3, name: "w", slots: 2, registries: ["test"], labels: instance.labels, nonce: .zero, mac: .zero)
        }
        func assignedCount(_ actions: [CoordinatorEngine.Action]) -> Int {
            var n = 0
            for case .send(_, let messages) in actions { for case .assign(let jobs) in messages { n += jobs.count } }
            return n
        }
        _ = engine.onPeerJoined(1, hello: hello())
        #expect(assignedCount(engine.onMessages(1, [.credit(4)])) == 4)
        _ = engine.onPeerJoined(2, hello: hello())
        #expect(assignedCount(engine.onMessages(2, [.credit(10)])) == 2)
        // The old connection's close arrives last: its 4 jobs are re-queued, and 2 go to the busy new connection at
        // once (suspects would wait until it is idle).
        #expect(assignedCount(engine.onPeerClosed(1)) == 2)
    }
}

/// A worker reporting that its machinery died (status lost): not a test result.
@Suite("Attempts reported lost by the worker")
struct ReportedLossTests {
    @Test("a reported loss uses no retry; three in a row quarantine the job; a pass after one loss is not flaky")
    func reportedLosses() {
        var h = SchedulerHarness(jobs(2, expected: .seconds(1)), settings: SchedulerSettings(retries: 0))
        h.join(1, slots: 1, credit: 1)
        h.join(2, slots: 1, credit: 1)
        var a = h.take(1)[0]
        var b = h.take(2)[0]
        h.result(1, a, .lost)
        h.result(2, b, .lost)
        // Job `b` passes on its second try: passed, not flaky (a loss is no failure), and no retry was needed.
        let next1 = h.take(1) + h.take(2)
        #expect(next1.count == 2)
        a = next1.first { $0.job == a.job } ?? a
        b = next1.first { $0.job == b.job } ?? b
        let workerOf = { (job: Int) -> UInt64 in next1.firstIndex { $0.job == job } == 0 ? 1 : 2 }
        h.result(workerOf(b.job), b, .passed)
        #expect(h.finished[b.job] == .passed)
        h.result(workerOf(a.job), a, .lost)
        let onOne = h.take(1), onTwo = h.take(2)
        let third = (onOne + onTwo)[0]
        h.result(onOne.isEmpty ? 2 : 1, third, .lost)
        #expect(h.finished[a.job] == .quarantined)
    }
}
