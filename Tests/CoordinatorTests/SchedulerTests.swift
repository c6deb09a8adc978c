import Coordinator
import FlowVocabulary
import MatrixPlan
import Testing

/// Drives the pure scheduler with events, as its shell would, and keeps what it asked for.
struct SchedulerHarness {
    var scheduler: Scheduler
    var now: Duration = .zero
    var finished: [Int: JobOutcome] = [:]
    var finishCount: [Int: Int] = [:]
    var superseded: [Assignment] = []
    var cancels: [Assignment] = []
    var disconnects: [WorkerID] = []
    var assigned: [WorkerID: [Assignment]] = [:]
    var revokes: [WorkerID: [Assignment]] = [:]
    var completions = 0

    init(_ jobs: [SchedulableJob], settings: SchedulerSettings = SchedulerSettings(), finished: [Int: JobOutcome] = [:]) {
        scheduler = Scheduler(jobs: jobs, finished: finished, settings: settings)
    }

    mutating func apply(_ directives: [SchedulerDirective]) {
        for d in directives {
            switch d {
            case .assign(let w, let batch): assigned[w, default: []] += batch
            case .cancel(_, let a, _): cancels.append(a)
            case .revoke(let w, let batch): revokes[w, default: []] += batch
            case .attemptEnded(let a, _, _, let s, let decided):
                if s { superseded.append(a) }
                if let decided { finish(a.job, decided) }
            case .jobFinished(let job, let end): finish(job, end)
            case .disconnect(let w, _): disconnects.append(w)
            case .runComplete: completions += 1
            }
        }
    }

    private mutating func finish(_ job: Int, _ end: JobEnd) {
        finished[job] = end.outcome
        finishCount[job, default: 0] += 1
    }

    mutating func join(_ w: UInt64, registries: Set<String> = ["r"], labels: [String: String] = [:], slots: Int = 1, credit: Int) {
        apply(scheduler.onWorkerJoined(WorkerID(w), name: "worker-\(w)", registries: registries, labels: labels, slots: slots, now: now))
        apply(scheduler.onCredit(WorkerID(w), count: credit, now: now))
    }

    /// Takes the assignments given to `w` so far.
    mutating func take(_ w: UInt64) -> [Assignment] {
        defer { assigned[WorkerID(w)] = [] }
        return assigned[WorkerID(w)] ?? []
    }

    mutating func result(_ w: UInt64, _ a: Assignment, _ status: AttemptStatus, credit: Int = 1) {
        apply(scheduler.onResult(WorkerID(w), a, status: status, now: now))
        apply(scheduler.onCredit(WorkerID(w), count: credit, now: now))
    }
}

/// Jobs known to be very short (1 µs), so workers are fed as deep as their credit allows; tests of depth and
/// stealing pass their own durations.
func jobs(_ count: Int, registry: String = "r", labels: [String: String] = [:], expected: Duration = .microseconds(1))
    -> [SchedulableJob]
{
    (0..<count).map { _ in SchedulableJob(registry: registry, requiredLabels: labels, expectedDuration: expected) }
}

@Suite("Scheduler state machine")
struct SchedulerTests {
    @Test("workers receive at most their credit, and only jobs their registries and labels can run")
    func matchingAndCredit() {
        var h = SchedulerHarness(jobs(3, registry: "catalog") + jobs(2, registry: "catalog", labels: ["gpu": "yes"]))
        h.join(1, registries: ["other"], credit: 10)
        #expect(h.take(1).isEmpty)
        h.join(2, registries: ["catalog"], credit: 2)
        #expect(h.take(2).count == 2)
        h.apply(h.scheduler.onCredit(WorkerID(2), count: 10, now: h.now))
        #expect(h.take(2).map(\.job).sorted() == [2])
        h.join(3, registries: ["catalog"], labels: ["gpu": "yes"], credit: 10)
        #expect(h.take(3).map(\.job).sorted() == [3, 4])
        #expect(h.scheduler.unservableQueuedJobs == 0)
    }

    @Test("a worker's credit is capped per slot: one worker cannot take the whole queue")
    func creditCap() {
        var h = SchedulerHarness(jobs(1000), settings: SchedulerSettings(maximumCreditPerSlot: 8))
        h.join(1, slots: 2, credit: 1_000_000)
        #expect(h.take(1).count == 16)
        h.join(2, slots: 1, credit: 8)
        #expect(h.take(2).count == 8)
    }

    @Test("jobs go longest expected duration first")
    func longestFirst() {
        let specs = [1, 9, 5, 7].map { SchedulableJob(registry: "r", expectedDuration: .seconds($0)) }
        var h = SchedulerHarness(specs)
        h.join(1, slots: 4, credit: 4)
        #expect(h.take(1).map(\.job) == [1, 3, 2, 0])
    }

    @Test("a failed attempt is retried on another worker, and fail-then-pass is flaky")
    func retryIsFlaky() throws {
        var h = SchedulerHarness(jobs(1), settings: SchedulerSettings(retries: 2))
        h.join(1, credit: 1)
        h.join(2, credit: 1)
        let first = try #require(h.take(1).first)
        h.result(1, first, .failed)
        #expect(h.take(1).isEmpty, "the retry should prefer the other worker")
        let second = try #require(h.take(2).first)
        #expect(second == Assignment(job: 0, attempt: 2))
        h.result(2, second, .passed)
        #expect(h.finished == [0: .flaky])
        #expect(h.completions == 1)
    }

    @Test("a job that fails every attempt is failed after retries + 1 attempts")
    func exhaustsRetries() {
        var h = SchedulerHarness(jobs(1), settings: SchedulerSettings(retries: 2))
        h.join(1, credit: 1)
        var attempts = 0
        while h.finished.isEmpty, let a = h.take(1).first {
            attempts += 1
            h.result(1, a, .failed)
        }
        #expect(attempts == 3)
        #expect(h.finished == [0: .failed])
    }

    @Test("a lost worker's in-flight jobs run again on another worker and count once")
    func workerLoss() {
        var h = SchedulerHarness(jobs(4))
        h.join(1, slots: 2, credit: 2)
        h.join(2, slots: 2, credit: 0)
        let lost = h.take(1)
        #expect(lost.count == 2)
        h.apply(h.scheduler.onWorkerLost(WorkerID(1), now: h.now))
        h.apply(h.scheduler.onCredit(WorkerID(2), count: 4, now: h.now))
        // The lost jobs are suspects: they come one at a time, each alone on the worker.
        var rerun: [Assignment] = []
        var pending = h.take(2)
        while !pending.isEmpty {
            let a = pending.removeFirst()
            rerun.append(a)
            h.result(2, a, .passed)
            pending += h.take(2)
        }
        #expect(Set(rerun.map(\.job)) == Set(0..<4))
        #expect(rerun.filter { lost.map(\.job).contains($0.job) }.allSatisfy { $0.attempt == 2 })
        // The dead worker's late results arrive after all: they are superseded and change nothing.
        for a in lost { h.apply(h.scheduler.onResult(WorkerID(1), a, status: .failed, now: h.now)) }
        #expect(h.finished.count == 4)
        #expect(h.finished.values.allSatisfy { $0 == .passed })
        #expect(h.finishCount.values.allSatisfy { $0 == 1 })
        #expect(h.superseded.count == 2)
    }

    @Test("a job that kills workers in a row is quarantined with that reason")
    func quarantine() {
        var h = SchedulerHarness(jobs(1), settings: SchedulerSettings(quarantineAfterWorkerLosses: 2))
        var reason: String?
        for w in UInt64(1)...2 {
            h.join(w, credit: 1)
            #expect(h.take(w).count == 1)
            let directives = h.scheduler.onWorkerLost(WorkerID(w), now: h.now)
            for case .attemptEnded(_, _, _, _, let decided?) in directives { reason = decided.reason }
            h.apply(directives)
        }
        #expect(h.finished == [0: .quarantined])
        #expect(reason?.contains("lost 2 workers in a row") == true)
    }

    @Test("jobs that shared a crashing worker run alone next: only the culprit is quarantined")
    func suspectsRunAlone() {
        var h = SchedulerHarness(jobs(2), settings: SchedulerSettings(quarantineAfterWorkerLosses: 2))
        var next: UInt64 = 1
        var finishedInnocent = false
        // Job 0 crashes every worker it runs on; job 1 is innocent.
        while h.finished.count < 2, next < 10 {
            h.join(next, slots: 2, credit: 2)
            let batch = h.take(next)
            if batch.contains(where: { $0.job == 0 }) {
                #expect(batch.count == 1 || !batch.isEmpty && h.scheduler.inFlight(on: WorkerID(next)).count <= 2)
                h.apply(h.scheduler.onWorkerLost(WorkerID(next), now: h.now))
            } else {
                for a in batch { h.result(next, a, .passed) }
                finishedInnocent = true
            }
            next += 1
        }
        #expect(h.finished[0] == .quarantined)
        #expect(h.finished[1] == .passed)
        #expect(finishedInnocent)
    }

    @Test("a suspect is dispatched alone even to a worker with free slots")
    func suspectAlone() {
        var h = SchedulerHarness(jobs(3))
        h.join(1, slots: 3, credit: 3)
        #expect(h.take(1).count == 3)
        h.apply(h.scheduler.onWorkerLost(WorkerID(1), now: h.now))
        h.join(2, slots: 3, credit: 3)
        #expect(h.take(2).count == 1, "three suspects, one at a time")
    }

    @Test("an expired lease is cancelled and the job times out")
    func leaseExpiry() throws {
        var h = SchedulerHarness(jobs(1), settings: SchedulerSettings(jobTimeout: .seconds(10), leaseGrace: .seconds(1), heartbeatTimeout: .seconds(100)))
        h.join(1, credit: 1)
        let a = try #require(h.take(1).first)
        h.now = .seconds(5)
        h.apply(h.scheduler.onTick(now: h.now))
        #expect(h.cancels.isEmpty)
        h.now = .seconds(12)
        h.apply(h.scheduler.onTick(now: h.now))
        #expect(h.cancels == [a])
        #expect(h.finished == [0: .timedOut])
        h.apply(h.scheduler.onResult(WorkerID(1), a, status: .cancelled, now: h.now))
        #expect(h.superseded == [a])
    }

    @Test("a worker that misses its heartbeats is disconnected and its jobs re-queued")
    func heartbeatTimeout() {
        var h = SchedulerHarness(jobs(1), settings: SchedulerSettings(heartbeatTimeout: .seconds(3)))
        h.join(1, credit: 1)
        h.join(2, credit: 0)
        _ = h.take(1)
        h.now = .seconds(2)
        h.scheduler.onHeartbeat(WorkerID(2), now: h.now)
        h.now = .seconds(4)
        h.apply(h.scheduler.onCredit(WorkerID(2), count: 1, now: h.now))
        h.apply(h.scheduler.onTick(now: h.now))
        #expect(h.disconnects == [WorkerID(1)])
        #expect(h.take(2).map(\.attempt) == [2])
    }

    @Test("fail-fast stops dispatching: queued jobs end as not run")
    func failFast() throws {
        var h = SchedulerHarness(jobs(5), settings: SchedulerSettings(failFast: true))
        h.join(1, credit: 1)
        let a = try #require(h.take(1).first)
        h.result(1, a, .failed)
        #expect(h.take(1).isEmpty)
        #expect(h.finished[a.job] == .failed)
        #expect(h.finished.values.filter { $0 == .notRun }.count == 4)
        #expect(h.completions == 1)
    }

    @Test("abort cancels in-flight attempts and finishes every job once")
    func abort() {
        var h = SchedulerHarness(jobs(3))
        h.join(1, credit: 2)
        _ = h.take(1)
        h.apply(h.scheduler.onAbort(reason: "interrupted"))
        #expect(h.cancels.count == 2)
        #expect(h.finished.values.filter { $0 == .cancelled }.count == 2)
        #expect(h.finished.values.filter { $0 == .notRun }.count == 1)
        #expect(h.completions == 1)
    }

    @Test("a resumed run schedules only the jobs that are not final")
    func resume() {
        var h = SchedulerHarness(jobs(4), finished: [0: .passed, 2: .failed])
        h.join(1, credit: 10)
        #expect(h.take(1).map(\.job).sorted() == [1, 3])
        #expect(h.scheduler.remainingCount == 2)
    }

    @Test("random worker deaths, failures and duplicates never finish a job twice or lose one", arguments: [1, 2, 3, 4, 5])
    func randomised(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var h = SchedulerHarness(jobs(200), settings: SchedulerSettings(retries: 1, quarantineAfterWorkerLosses: 3))
        var nextWorker: UInt64 = 1
        var live: [UInt64: [Assignment]] = [:]
        for _ in 0..<3 { h.join(nextWorker, slots: 4, credit: 4); nextWorker += 1 }
        var steps = 0
        while h.completions == 0, steps < 100_000 {
            steps += 1
            for (w, batch) in h.assigned where !batch.isEmpty { live[w.rawValue, default: []] += batch; h.assigned[w] = [] }
            let workers = live.keys.sorted()
            guard !workers.isEmpty else { h.join(nextWorker, slots: 4, credit: 4); nextWorker += 1; continue }
            let w = workers[Int(rng.next() % UInt64(workers.count))]
            let roll = rng.next() % 100
            if roll < 3 {
                h.apply(h.scheduler.onWorkerLost(WorkerID(w), now: h.now))
                live[w] = nil
                h.join(nextWorker, slots: 4, credit: 4); nextWorker += 1
            } else if var mine = live[w], !mine.isEmpty {
                let a = mine.removeFirst()
                live[w] = mine
                let status: AttemptStatus = roll < 25 ? .failed : .passed
                h.result(w, a, status)
                if roll % 10 == 0 { h.apply(h.scheduler.onResult(WorkerID(w), a, status: .passed, now: h.now)) }
            } else {
                live[w] = nil
                if h.scheduler.connectedWorkers.isEmpty { h.join(nextWorker, slots: 4, credit: 4); nextWorker += 1 }
            }
        }
        #expect(h.completions == 1)
        #expect(h.finished.count == 200)
        #expect(h.finishCount.values.allSatisfy { $0 == 1 })
    }
}

