import Coordinator
import FlowVocabulary
import Testing

/// What an interrupted run's drain does to attempts that end while it drains: it never spends a retry.
@Suite("Scheduler drain")
struct SchedulerDrainTests {
    @Test("after Ctrl-C, an attempt that fails with a retry due ends its job not run (retried on resume), not failed")
    func interruptKeepsRetry() throws {
        var h = SchedulerHarness(jobs(3), settings: SchedulerSettings(retries: 2))
        h.join(1, slots: 3, credit: 3)
        let batch = h.take(1)
        #expect(batch.count == 3)
        h.apply(h.scheduler.onStopDispatching(reason: "interrupted by the user"))
        h.result(1, batch[0], .failed)
        h.result(1, batch[1], .timedOut)
        h.result(1, batch[2], .passed)
        #expect(h.finished[batch[0].job] == .notRun)
        #expect(h.finished[batch[1].job] == .notRun)
        #expect(h.finished[batch[2].job] == .passed)
        // The failure is counted (its retry uses the next seed on resume), and nothing was dispatched again.
        #expect(h.scheduler.retryIndex(ofJob: batch[0].job) == 1)
        #expect(h.take(1).isEmpty)
        #expect(h.completions == 1)
    }

    @Test("after Ctrl-C, an attempt that fails with its retries spent still fails its job")
    func interruptLastAttemptFails() throws {
        var h = SchedulerHarness(jobs(1), settings: SchedulerSettings(retries: 1))
        h.join(1, credit: 1)
        let first = try #require(h.take(1).first)
        h.result(1, first, .failed)
        let second = try #require(h.take(1).first)
        h.apply(h.scheduler.onStopDispatching(reason: "interrupted by the user"))
        h.result(1, second, .failed)
        #expect(h.finished[first.job] == .failed)
    }

    @Test("resumed with its earlier failure, a job left not run by the drain is retried as the policy says")
    func resumedAfterDrain() throws {
        var h = SchedulerHarness(jobs(1))
        h.scheduler = Scheduler(jobs: jobs(1), failures: [0: 1], settings: SchedulerSettings(retries: 1))
        h.join(1, credit: 1)
        let retry = try #require(h.take(1).first)
        #expect(h.scheduler.retryIndex(ofJob: 0) == 1)
        h.result(1, retry, .passed)
        #expect(h.finished[0] == .flaky)
    }

    @Test("fail-fast's own stop still fails a job whose in-flight attempt fails with a retry due")
    func failFastDrainFails() throws {
        var h = SchedulerHarness(jobs(2), settings: SchedulerSettings(retries: 1, failFast: true))
        h.join(1, slots: 2, credit: 2)
        let batch = h.take(1)
        #expect(batch.count == 2)
        h.result(1, batch[0], .failed)  // a retry is due: no stop yet
        #expect(!h.scheduler.isDispatchStopped)
        let retry = try #require(h.take(1).first)
        h.result(1, retry, .failed)  // its last attempt: fail-fast stops the run
        #expect(h.scheduler.isStoppedByFailFast)
        h.result(1, batch[1], .failed)
        #expect(h.finished[batch[0].job] == .failed)
        #expect(h.finished[batch[1].job] == .failed)
    }
}
