import FlowVocabulary

/// Leases and silence: the deadline an assignment gets, and at a tick which workers went silent and which live
/// attempts outlived their lease. Pure: time is the scheduler's `now`.
struct LeaseWatch: Sendable {
    private let jobTimeout: Duration
    private let leaseGrace: Duration
    private let heartbeatTimeout: Duration

    init(settings: SchedulerSettings) {
        jobTimeout = settings.jobTimeout
        leaseGrace = settings.leaseGrace
        heartbeatTimeout = settings.heartbeatTimeout
    }

    /// The lease deadline of a job assigned at `now` to a worker already holding `inFlight` jobs on `slots` slots:
    /// it runs `slots` jobs at once, so jobs queued behind others get proportionally longer leases.
    func deadline(now: Duration, inFlight: Int, slots: Int) -> Duration {
        let rounds = Int64(inFlight / slots + 1)
        return now + jobTimeout * rounds + leaseGrace
    }

    /// The workers silent for longer than the heartbeat timeout, and the other workers holding a live attempt past
    /// its deadline, each sorted. One unsorted pass finds the few workers concerned; only those are sorted (a tick
    /// costs O(fleet), not more).
    func overdue(workers: SchedulerWorkers, jobs: JobLedger, now: Duration) -> (silent: [WorkerID], expiring: [WorkerID]) {
        var silent: [WorkerID] = []
        var expiring: [WorkerID] = []
        for id in workers.ids {
            guard let worker = workers[id] else { continue }
            if now - worker.lastSeen > heartbeatTimeout {
                silent.append(id)
            } else if worker.inFlight.contains(where: { isExpired(jobs[Int($0)].live, on: id, now: now) }) {
                expiring.append(id)
            }
        }
        return (silent.sorted(), expiring.sorted())
    }

    /// The attempts among `inFlight` live on `worker` whose lease expired by `now`, in job order.
    func expired(_ inFlight: Set<Int32>, on worker: WorkerID, jobs: JobLedger, now: Duration) -> [Assignment] {
        inFlight.sorted().compactMap { job in
            guard let live = jobs[Int(job)].live, isExpired(live, on: worker, now: now) else { return nil }
            return Assignment(job: Int(job), attempt: Int(live.attempt))
        }
    }

    private func isExpired(_ live: JobLedger.Live?, on worker: WorkerID, now: Duration) -> Bool {
        live.map { $0.worker == worker && now >= $0.deadline } ?? false
    }
}
