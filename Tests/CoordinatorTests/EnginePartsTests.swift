@testable import Coordinator
import FlowVocabulary
import Testing
import Wire

/// The types split out of `Scheduler` and `CoordinatorEngine` (issue 33), each on its own: leases, worker losses,
/// peer admission.
@Suite("Scheduler and engine parts")
struct EnginePartsTests {
    private func hello(_ name: String, labels: [String] = []) -> Hello {
        Hello(version: 3, name: name, slots: 1, registries: ["r"], labels: labels, nonce: .zero, mac: .zero)
    }

    /// A ledger of `count` jobs of capability 0, none final.
    private func ledger(_ count: Int) -> JobLedger {
        var jobs = JobLedger(capacity: count, remaining: count)
        for _ in 0..<count { jobs.add(capability: 0, failures: 0, finished: nil) }
        return jobs
    }

    @Test("a lease covers the rounds queued ahead of the job; a tick finds the silent workers and the expired leases")
    func leases() {
        var settings = SchedulerSettings()
        settings.jobTimeout = .seconds(10)
        settings.leaseGrace = .seconds(1)
        settings.heartbeatTimeout = .seconds(5)
        let watch = LeaseWatch(settings: settings)
        #expect(watch.deadline(now: .seconds(2), inFlight: 0, slots: 2) == .seconds(13))
        #expect(watch.deadline(now: .seconds(2), inFlight: 2, slots: 2) == .seconds(23))
        var jobs = ledger(2)
        var workers = SchedulerWorkers(capabilityCount: 1)
        for (id, seen) in [(1, Duration.seconds(0)), (2, .seconds(9))] {
            var worker = SchedulerWorker(name: "w\(id)", capabilities: [0], slots: 1, canRevoke: false, lastSeen: seen)
            worker.inFlight = [Int32(id - 1)]
            workers[WorkerID(UInt64(id))] = worker
            jobs[id - 1].live = JobLedger.Live(worker: WorkerID(UInt64(id)), attempt: 1, deadline: .seconds(8))
        }
        let due = watch.overdue(workers: workers, jobs: jobs, now: .seconds(9))
        #expect(due.silent == [WorkerID(1)])
        #expect(due.expiring == [WorkerID(2)])
        #expect(watch.expired([1], on: WorkerID(2), jobs: jobs, now: .seconds(9)) == [Assignment(job: 1, attempt: 1)])
        #expect(watch.expired([1], on: WorkerID(2), jobs: jobs, now: .seconds(7)).isEmpty)
    }

    @Test("a lost worker's attempts run again until the third loss in a row quarantines; a returning worker takes its blame back")
    func losses() {
        var losses = WorkerLosses(quarantineAfter: 3)
        var jobs = ledger(1)
        var revocations = Revocations()
        var fates: [WorkerLosses.Fate] = []
        for w in 1...3 {
            jobs[0].live = JobLedger.Live(worker: WorkerID(UInt64(w)), attempt: Int32(w), deadline: .seconds(60))
            let lost = losses.lose(WorkerID(UInt64(w)), inFlight: [0], faultless: false, dispatchStopped: false,
                                   jobs: &jobs, revocations: &revocations)
            #expect(lost.map(\.0) == [Assignment(job: 0, attempt: w)])
            fates += lost.map(\.1)
            #expect(jobs[0].live == nil)
        }
        guard case .again = fates[0], case .again = fates[1], case .ends(.quarantined, _) = fates[2] else {
            Issue.record("fates \(fates)")
            return
        }
        // A faultless loss neither counts nor is remembered.
        var other = ledger(1)
        other[0].live = JobLedger.Live(worker: WorkerID(9), attempt: 1, deadline: .seconds(60))
        _ = losses.lose(WorkerID(9), inFlight: [0], faultless: true, dispatchStopped: true, jobs: &other,
                        revocations: &revocations)
        #expect(other[0].lostStreak == 0)
        #expect(losses.returned(WorkerID(9), jobs: &other) == nil)
        // Worker 2 comes back: the job's streak drops by one; it is live on worker 7, and still a suspect there.
        jobs[0].phase = .running
        jobs[0].live = JobLedger.Live(worker: WorkerID(7), attempt: 4, deadline: .seconds(60))
        let cleared = losses.returned(WorkerID(2), jobs: &jobs)
        #expect(jobs[0].lostStreak == 2)
        #expect(cleared?.isEmpty == true)
    }

    @Test("an instance label is the first connection's; a key that opens a lost connection's commitment brings its worker back")
    func instances() {
        var table = PeerTable()
        var process = WorkerInstance()
        let first = table.admit(1, hello: hello("a"))
        #expect(table.claimInstance(PeerTable.labels(of: hello("a", labels: process.labels)), peer: 1) == nil)
        // Another connection announcing the same commitment does not get it.
        _ = table.admit(2, hello: hello("b"))
        #expect(table.claimInstance(PeerTable.labels(of: hello("b", labels: process.labels)), peer: 2) == nil)
        #expect(table[2]?.instance == nil)
        #expect(table[1]?.instance != nil)
        // Peer 1 is expelled and closed (its jobs not blamed), then the same process reconnects and opens its
        // commitment.
        let expelled = table.expel(1)
        #expect(expelled)
        let departure = table.remove(1)
        #expect(departure?.worker == first && departure?.faultless == true && departure?.reconnected == false)
        process.welcomed()
        _ = table.admit(3, hello: hello("a"))
        #expect(table.claimInstance(PeerTable.labels(of: hello("a", labels: process.labels)), peer: 3) == first)
        #expect(table.peer(of: first) == nil)
        let expelledAgain = table.expel(1)
        #expect(!expelledAgain)
    }
}
