import FlowSpec
import Testing
import Wire
import Worker

/// The worker session's pure core, event by event: no task, no socket, no clock.
@Suite("Worker session core")
struct WorkerSessionCoreTests {
    let hash = Bytes32(Array(repeating: 7, count: 32)) ?? .zero
    let scenario = Scenario(id: "s", title: "s", steps: [Step(verb: .tap, target: "pass")])

    func job(_ id: String, timeoutMillis: UInt64 = 1000) -> JobAssignment {
        JobAssignment(job: id, attempt: 1, scenarioHash: hash, registry: "test", configuration: [],
                      timeoutMillis: timeoutMillis, seed: 1, keep: .none)
    }

    func core(slots: Int, prefetch: Int) -> WorkerSessionCore {
        var core = WorkerSessionCore(slots: slots, prefetch: prefetch)
        core.onScenario(hash, scenario)
        return core
    }

    func grants(_ directives: [WorkerDirective]) -> UInt32 {
        directives.reduce(0) { if case .grant(let n) = $1 { $0 + n } else { $0 } }
    }

    func messages(_ directives: [WorkerDirective]) -> [Message] {
        directives.flatMap { directive -> [Message] in
            if case .send(let m) = directive { return m }
            return []
        }
    }

    func started(_ directives: [WorkerDirective]) -> [String] {
        directives.compactMap { if case .startRunner(_, _, let s) = $0 { s.job.job } else { nil } }
    }

    func isBye(_ m: Message) -> Bool { if case .bye = m { true } else { false } }

    @Test("the first credit is every slot plus the prefetch")
    func firstCredit() {
        var c = core(slots: 3, prefetch: 6)
        #expect(grants(c.onStart()) == 9)
    }

    @Test("ASSIGN queues; the batch's end starts at most one runner per slot, each with its job and deadline")
    func assignStartsRunners() {
        var c = core(slots: 2, prefetch: 4)
        c.onAssign((0..<5).map { job("j\($0)") })
        #expect(c.queuedJobs == 5)
        let directives = c.onBatchEnd(now: .seconds(10))
        #expect(started(directives) == ["j0", "j1"])
        #expect(c.queuedJobs == 3)
        #expect(c.runnersStarted == 2)
        for case .startRunner(_, _, let start) in directives {
            #expect(start.deadline == .seconds(11))
            #expect(start.scenario == scenario)
        }
        // Nothing is started twice: a later batch end with no new jobs starts nothing.
        #expect(c.onBatchEnd(now: .seconds(10)).isEmpty)
    }

    @Test("a runner takes queued jobs one after another, then parks; the next ASSIGN wakes it instead of a new runner")
    func parkAndWake() {
        var c = core(slots: 1, prefetch: 0)
        c.onAssign([job("a"), job("b")])
        _ = c.onBatchEnd(now: .zero)
        guard case .run(let next) = c.onJobFinished(slot: 0, now: .zero).next else {
            Issue.record("the runner should take the queued job")
            return
        }
        #expect(next.job.job == "b")
        guard case .park = c.onJobFinished(slot: 0, now: .zero).next else {
            Issue.record("the runner should park on an empty queue")
            return
        }
        guard case .wait = c.onRunnerParking(slot: 0, now: .zero) else {
            Issue.record("the runner should wait")
            return
        }
        c.onAssign([job("c")])
        let directives = c.onBatchEnd(now: .zero)
        #expect(started(directives).isEmpty)
        #expect(directives.contains { if case .wakeRunner(0, let s) = $0 { s.job.job == "c" } else { false } })
        #expect(c.runnersStarted == 1)
    }

    @Test("finished jobs' credit is held back in batches while prefetched jobs remain, and granted at once when they run out")
    func creditBatches() {
        // 2 slots + 6 prefetch: batches of 2.
        var c = core(slots: 2, prefetch: 6)
        #expect(c.creditBatch == 2)
        c.onAssign((0..<8).map { job("j\($0)") })
        _ = c.onBatchEnd(now: .zero)
        var granted: [UInt32] = []
        for i in 0..<8 {
            granted.append(grants(c.onJobFinished(slot: i % 2, now: .zero).directives))
        }
        // Held back (0) while more than `slots` jobs are in hand, each batch of 2 granted; the tail one by one.
        #expect(granted == [0, 2, 0, 2, 0, 2, 1, 1])
        #expect(granted.reduce(0, +) == 8)
    }

    @Test("REVOKE takes back queued attempts (their credit returns) and leaves started ones running")
    func revoke() {
        var c = core(slots: 1, prefetch: 2)
        c.onAssign([job("running"), job("queued")])
        _ = c.onBatchEnd(now: .zero)
        let directives = c.onRevoke([AttemptRef(job: "running", attempt: 1), AttemptRef(job: "queued", attempt: 1),
                                     AttemptRef(job: "unknown", attempt: 1)])
        #expect(messages(directives) == [.revoked([RevokeAnswer(job: "running", attempt: 1, taken: false),
                                                   RevokeAnswer(job: "queued", attempt: 1, taken: true),
                                                   RevokeAnswer(job: "unknown", attempt: 1, taken: false)])])
        #expect(grants(directives) == 1)
        #expect(c.queuedJobs == 0)
        #expect(c.job(inSlot: 0) == AttemptKey(job: "running", attempt: 1))
    }

    @Test("CANCEL reports a queued job cancelled with its credit; a running job's runner is retired and replaced")
    func cancel() {
        var c = core(slots: 1, prefetch: 2)
        c.onAssign([job("running"), job("queued"), job("later")])
        _ = c.onBatchEnd(now: .zero)
        let queued = c.onCancel(AttemptKey(job: "queued", attempt: 1), reason: "test")
        #expect(grants(queued) == 1)
        guard case .result(let result)? = messages(queued).first else {
            Issue.record("a cancelled queued job is reported")
            return
        }
        #expect(result.job == "queued" && result.status == .cancelled)
        let running = c.onCancel(AttemptKey(job: "running", attempt: 1), reason: "test")
        #expect(running.count == 1)
        #expect(running.contains { if case .cancelRunner(0) = $0 { true } else { false } })
        // The retired runner finishes its job and leaves; a fresh runner takes the rest of the queue.
        let (next, directives) = c.onJobFinished(slot: 0, now: .zero)
        guard case .exit = next else {
            Issue.record("a retired runner exits")
            return
        }
        #expect(started(directives) == ["later"])
        #expect(c.runnersStarted == 2)
    }

    @Test("the tick hands over busy runners' output and cancels a job past its deadline exactly once")
    func watchdog() {
        var c = core(slots: 2, prefetch: 0)
        c.onAssign([job("short", timeoutMillis: 100), job("long", timeoutMillis: 10_000)])
        _ = c.onBatchEnd(now: .zero)
        let early = c.onTick(now: .milliseconds(50))
        #expect(early.count == 2)
        #expect(!early.contains { if case .cancelRunner = $0 { true } else { false } })
        let late = c.onTick(now: .milliseconds(150))
        #expect(late.filter { if case .cancelRunner(0) = $0 { true } else { false } }.count == 1)
        #expect(!late.contains { if case .cancelRunner(1) = $0 { true } else { false } })
        let again = c.onTick(now: .milliseconds(200))
        #expect(!again.contains { if case .cancelRunner = $0 { true } else { false } })
    }

    @Test("after DRAIN no credit is granted, and BYE comes once, when the last job has finished")
    func drain() {
        var c = core(slots: 2, prefetch: 2)
        c.onAssign([job("a"), job("b"), job("c")])
        _ = c.onBatchEnd(now: .zero)
        c.onDrain()
        #expect(messages(c.onBatchEnd(now: .zero)).isEmpty)
        var all: [WorkerDirective] = []
        let first = c.onJobFinished(slot: 0, now: .zero)
        all += first.directives
        if case .park = first.next { _ = c.onRunnerParking(slot: 0, now: .zero) }
        all += c.onJobFinished(slot: 1, now: .zero).directives
        #expect(!messages(all).contains(where: isBye))
        all += c.onJobFinished(slot: 0, now: .zero).directives
        #expect(messages(all).filter(isBye).count == 1)
        #expect(grants(all) == 0)
        #expect(c.onBatchEnd(now: .zero).isEmpty)
    }

    @Test("closing releases parked runners, cancels busy ones, and is idle once the last runner left")
    func close() {
        var c = core(slots: 2, prefetch: 0)
        c.onAssign([job("a"), job("b")])
        _ = c.onBatchEnd(now: .zero)
        _ = c.onJobFinished(slot: 0, now: .zero)
        _ = c.onRunnerParking(slot: 0, now: .zero)
        let directives = c.onClose()
        #expect(directives.contains { if case .releaseRunner(0) = $0 { true } else { false } })
        #expect(directives.contains { if case .cancelRunner(1) = $0 { true } else { false } })
        #expect(c.onRunnerExited(slot: 0).isEmpty)
        let (next, last) = c.onJobFinished(slot: 1, now: .zero)
        guard case .exit = next else {
            Issue.record("a runner exits once the session closed")
            return
        }
        #expect(last.contains { if case .idle = $0 { true } else { false } })
        #expect(c.liveRunners == 0)
        #expect(grants(last) == 0)
    }
}
