import Coordinator
import FlowVocabulary
import MatrixPlan
import Testing

/// The scheduler's worker index: dispatch offers jobs only to workers whose state changed or whose awaited event
/// happened, so a result costs the same however large the fleet. It must decide exactly as offering jobs to every
/// worker with credit on every pass (the exhaustive dispatch it replaced), event for event.
@Suite("Scheduler worker index")
struct SchedulerIndexTests {
    /// Jobs of two registries, some needing a label, with short, long and unknown expected durations.
    static func mixedJobs(_ count: Int, rng: inout SplitMix64) -> [SchedulableJob] {
        let lengths: [Duration] = [.zero, .microseconds(1), .milliseconds(5), .milliseconds(30), .seconds(4)]
        return (0..<count).map { _ in
            let registry = rng.next() % 4 == 0 ? "s" : "r"
            let labels = rng.next() % 5 == 0 ? ["gpu": "yes"] : [:]
            return SchedulableJob(registry: registry, requiredLabels: labels,
                                  expectedDuration: lengths[Int(rng.next() % UInt64(lengths.count))])
        }
    }

    /// Two schedulers fed the same events: the indexed one and the exhaustive reference.
    struct Pair {
        var indexed: Scheduler
        var reference: Scheduler
        var steps = 0
        /// The first step where they differed (the rest would only repeat it).
        var diverged = false

        init(_ jobs: [SchedulableJob], settings: SchedulerSettings) {
            indexed = Scheduler(jobs: jobs, settings: settings)
            reference = Scheduler(jobs: jobs, settings: settings)
            reference.exhaustiveDispatch = true
        }

        /// Applies `event` to both; their directives must be equal.
        mutating func apply(_ what: String, _ event: (inout Scheduler) -> [SchedulerDirective]) -> [SchedulerDirective] {
            steps += 1
            let a = event(&indexed)
            let b = event(&reference)
            if a != b && !diverged {
                diverged = true
                Issue.record("step \(steps) (\(what)): indexed \(a) but exhaustive \(b)")
            }
            return a
        }
    }

    @Test("random fleets decide exactly as exhaustive dispatch does", arguments: Array(1...16) as [UInt64])
    func sameDecisions(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let jobs = Self.mixedJobs(400, rng: &rng)
        var pair = Pair(jobs, settings: SchedulerSettings(retries: 1, quarantineAfterWorkerLosses: 3))
        var now: Duration = .zero
        var live: [UInt64: [Assignment]] = [:]
        var revoking: [UInt64: [Assignment]] = [:]
        var lost: [UInt64] = []
        var next: UInt64 = 1
        func track(_ directives: [SchedulerDirective]) {
            for d in directives {
                switch d {
                case .assign(let w, let batch): live[w.rawValue, default: []] += batch
                case .revoke(let w, let batch): revoking[w.rawValue, default: []] += batch
                case .cancel(let w, let a, _): live[w.rawValue]?.removeAll { $0 == a }
                default: break
                }
            }
        }
        func join() {
            let w = next
            next += 1
            let registries: Set<String> = rng.next() % 3 == 0 ? ["r", "s"] : (rng.next() % 2 == 0 ? ["r"] : ["s"])
            let labels = rng.next() % 2 == 0 ? ["gpu": "yes"] : [:]
            let slots = Int(rng.next() % 4) + 1
            let canRevoke = rng.next() % 2 == 0
            track(pair.apply("join w\(w)") {
                $0.onWorkerJoined(WorkerID(w), name: "w\(w)", registries: registries, labels: labels, slots: slots,
                                  canRevoke: canRevoke, now: now)
            })
            live[w] = []
            let credit = Int(rng.next() % 12) + 1
            track(pair.apply("credit w\(w)") { $0.onCredit(WorkerID(w), count: credit, now: now) })
        }
        for _ in 0..<6 { join() }
        while !pair.indexed.isComplete, !pair.diverged, pair.steps < 40_000 {
            now += .milliseconds(Int64(rng.next() % 40))
            let workers = live.keys.sorted()
            guard !workers.isEmpty else { join(); continue }
            let w = workers[Int(rng.next() % UInt64(workers.count))]
            let roll = rng.next() % 100
            if roll < 2 {
                track(pair.apply("lost w\(w)") { $0.onWorkerLost(WorkerID(w), now: now, faultless: roll == 0) })
                live[w] = nil
                revoking[w] = nil
                lost.append(w)
                join()
            } else if roll < 3, let back = lost.popLast() {
                track(pair.apply("returned w\(back)") { $0.onWorkerReturned(lost: WorkerID(back), now: now) })
            } else if roll < 12, let asked = revoking[w], !asked.isEmpty {
                revoking[w] = []
                let answers = asked.map { ($0, taken: rng.next() % 3 != 0) }
                for (a, taken) in answers where taken { live[w]?.removeAll { $0 == a } }
                track(pair.apply("revoked w\(w)") { $0.onRevoked(WorkerID(w), answers, now: now) })
            } else if roll < 16 {
                now += .milliseconds(300)
                track(pair.apply("tick") { $0.onTick(now: now) })
            } else if var mine = live[w], !mine.isEmpty {
                let a = mine.removeFirst()
                live[w] = mine
                let status: AttemptStatus = roll < 24 ? .failed : .passed
                let nanos = Int64(rng.next() % 60_000_000)
                _ = pair.apply("measured job \(a.job)") {
                    $0.onMeasured(job: a.job, nanoseconds: nanos)
                    return []
                }
                track(pair.apply("result w\(w) job \(a.job)") { $0.onResult(WorkerID(w), a, status: status, now: now) })
                let credit = Int(rng.next() % 3)
                track(pair.apply("credit w\(w)") { $0.onCredit(WorkerID(w), count: credit, now: now) })
            } else if roll < 40 {
                track(pair.apply("credit w\(w)") { $0.onCredit(WorkerID(w), count: 2, now: now) })
            } else if roll < 42 {
                join()
            }
        }
        #expect(pair.indexed.isComplete)
        #expect(pair.indexed.outcomeCounts == pair.reference.outcomeCounts)
    }

    @Test("a result offers jobs to a bounded number of workers, however many are connected")
    func resultCostIsIndependentOfFleetSize() {
        for fleet in [500, 4_000] {
            var scheduler = Scheduler(jobs: jobs(fleet * 2 * 3, expected: .seconds(4)))
            var held: [WorkerID: [Assignment]] = [:]
            for w in 1...UInt64(fleet) {
                _ = scheduler.onWorkerJoined(WorkerID(w), name: "w\(w)", registries: ["r"], labels: [:], slots: 2,
                                             canRevoke: true, now: .zero)
                // The reference worker's opening grant: its slots and 4 per slot queued.
                for d in scheduler.onCredit(WorkerID(w), count: 10, now: .zero) {
                    if case .assign(let id, let batch) = d { held[id, default: []] += batch }
                }
            }
            let before = scheduler.dispatchVisits
            let results = 1_000
            for r in 0..<results {
                let w = WorkerID(UInt64(r % fleet) + 1)
                guard let a = held[w]?.first else { continue }
                held[w]?.removeFirst()
                for d in scheduler.onResult(w, a, status: .passed, now: .seconds(4)) + scheduler.onCredit(w, count: 1, now: .seconds(4)) {
                    if case .assign(let id, let batch) = d { held[id, default: []] += batch }
                }
            }
            // The worker that reported, when it grants credit; nobody else (exhaustive dispatch visited all of them).
            #expect(scheduler.dispatchVisits - before <= 2 * results, "fleet of \(fleet)")
            #expect(held.values.allSatisfy { $0.count == 2 }, "every slot refilled at once (fleet of \(fleet))")
        }
    }
}
