import Coordinator
import Testing

/// How deep workers are fed, and taking back jobs a worker has not started (issue: one worker hoarding the queue).
@Suite("Scheduler: prefetch depth and work stealing")
struct WorkStealingTests {
    /// Joins a worker that speaks protocol version 3 (REVOKE).
    private func join(_ h: inout SchedulerHarness, _ w: UInt64, slots: Int, credit: Int) {
        h.apply(h.scheduler.onWorkerJoined(WorkerID(w), name: "w\(w)", registries: ["r"], labels: [:], slots: slots,
                                           canRevoke: true, now: h.now))
        h.apply(h.scheduler.onCredit(WorkerID(w), count: credit, now: h.now))
    }

    @Test("long jobs: a worker holds no more than its slots run, however much credit it grants; each free slot pulls the next")
    func longJobsAreNotHoarded() {
        var h = SchedulerHarness(jobs(8, expected: .seconds(1)))
        join(&h, 1, slots: 2, credit: 10)
        let first = h.take(1)
        #expect(first.count == 2)
        join(&h, 2, slots: 2, credit: 10)
        #expect(h.take(2).count == 2)
        h.result(1, first[0], .passed, credit: 0)
        #expect(h.take(1).count == 1)
    }

    @Test("jobs a little shorter than the queued-work target are queued as many per slot as fit in it")
    func mediumJobsQueueSome() {
        var h = SchedulerHarness(jobs(100, expected: .milliseconds(10)))
        join(&h, 1, slots: 2, credit: 100)
        // 50 ms of queued work per slot = 5 jobs of 10 ms, beyond the 2 running.
        #expect(h.take(1).count == 12)
    }

    @Test("short jobs are pipelined as deep as the credit allows")
    func shortJobsPipelineDeeply() {
        var h = SchedulerHarness(jobs(1000, expected: .microseconds(5)))
        join(&h, 1, slots: 2, credit: 100)
        #expect(h.take(1).count == 100)
    }

    @Test("with no history the first batch is shallow; measured short durations deepen it at once")
    func measuredDurationsDeepen() {
        var h = SchedulerHarness(jobs(1000, expected: .zero))
        join(&h, 1, slots: 2, credit: 100)
        let first = h.take(1)
        #expect(first.count == 4)
        h.scheduler.onMeasured(job: first[0].job, duration: .microseconds(3))
        h.result(1, first[0], .passed, credit: 0)
        // 96 credit left; the allowance is now 2 + 2 × 64 in flight.
        #expect(h.take(1).count == 96)
    }

    @Test("a late-joining worker takes the jobs another worker holds but has not started (a fresh run: no durations)")
    func lateJoinerSteals() throws {
        var h = SchedulerHarness(jobs(4, expected: .zero))
        join(&h, 1, slots: 2, credit: 10)
        let held = h.take(1)
        #expect(held.count == 4)
        join(&h, 2, slots: 2, credit: 10)
        let revoked = try #require(h.revokes[WorkerID(1)])
        // The newest assignments are the likeliest to be still queued on the worker.
        #expect(revoked == Array(held.suffix(2).reversed()))
        #expect(h.take(2).isEmpty)
        h.apply(h.scheduler.onRevoked(WorkerID(1), revoked.map { ($0, taken: true) }, now: h.now))
        let stolen = h.take(2)
        #expect(stolen.map(\.job).sorted() == revoked.map(\.job).sorted())
        #expect(stolen.allSatisfy { $0.attempt == 2 })
        for a in stolen { h.result(2, a, .passed) }
        for a in held.prefix(2) { h.result(1, a, .passed) }
        #expect(h.finished.values.allSatisfy { $0 == .passed } && h.finished.count == 4)
        #expect(h.finishCount.values.allSatisfy { $0 == 1 })
        #expect(h.scheduler.retryIndex(ofJob: stolen[0].job) == 0)
    }

    @Test("a revoke the worker could not honour (already started) leaves the job where it is, finished once")
    func revokeRefused() throws {
        var h = SchedulerHarness(jobs(2, expected: .zero))
        join(&h, 1, slots: 1, credit: 10)
        let held = h.take(1)
        #expect(held.count == 2)
        join(&h, 2, slots: 1, credit: 10)
        let revoked = try #require(h.revokes[WorkerID(1)])
        #expect(revoked == [held[1]])
        h.apply(h.scheduler.onRevoked(WorkerID(1), [(held[1], taken: false)], now: h.now))
        #expect(h.take(2).isEmpty)
        h.result(1, held[0], .passed)
        h.result(1, held[1], .passed)
        #expect(h.finished == [0: .passed, 1: .passed])
        #expect(h.finishCount.values.allSatisfy { $0 == 1 })
        #expect(h.superseded.isEmpty)
    }

    @Test("stopping dispatch takes back what workers hold but have not started: those jobs end not run")
    func stopRevokesQueued() throws {
        var h = SchedulerHarness(jobs(6, expected: .zero))
        join(&h, 1, slots: 2, credit: 10)
        let held = h.take(1)
        #expect(held.count == 4)
        h.apply(h.scheduler.onStopDispatching(reason: "interrupted"))
        let revoked = try #require(h.revokes[WorkerID(1)])
        #expect(revoked.count == 2)
        h.apply(h.scheduler.onRevoked(WorkerID(1), [(revoked[0], taken: true), (revoked[1], taken: false)], now: h.now))
        #expect(h.finished[revoked[0].job] == .notRun)
        #expect(h.finished[revoked[1].job] == nil)
        h.result(1, revoked[1], .passed)
        #expect(h.finished[revoked[1].job] == .passed)
    }

    @Test("a resumed job's earlier failures count: its retry budget and flakiness continue")
    func resumedFailuresCount() {
        var h = SchedulerHarness(jobs(2, expected: .seconds(1)), settings: SchedulerSettings(retries: 1))
        h.scheduler = Scheduler(jobs: jobs(2, expected: .seconds(1)), failures: [0: 1, 1: 1],
                                settings: SchedulerSettings(retries: 1))
        join(&h, 1, slots: 2, credit: 2)
        let a = h.take(1)
        #expect(h.scheduler.retryIndex(ofJob: 0) == 1)
        h.result(1, a[0], .failed)
        h.result(1, a[1], .passed)
        #expect(h.finished[a[0].job] == .failed)
        #expect(h.finished[a[1].job] == .flaky)
    }

    @Test("the retry index counts failed attempts only: a lost worker or a revoke does not shift it")
    func retryIndexIgnoresLosses() {
        var h = SchedulerHarness(jobs(1, expected: .seconds(1)), settings: SchedulerSettings(retries: 3))
        join(&h, 1, slots: 1, credit: 1)
        let first = h.take(1)[0]
        h.apply(h.scheduler.onWorkerLost(WorkerID(1), now: h.now))
        #expect(h.scheduler.retryIndex(ofJob: 0) == 0)
        join(&h, 2, slots: 1, credit: 5)
        let second = h.take(2)[0]
        #expect(second.attempt == first.attempt + 1)
        h.result(2, second, .failed)
        #expect(h.scheduler.retryIndex(ofJob: 0) == 1)
    }
}
