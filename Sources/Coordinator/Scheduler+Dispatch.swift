/// Dispatch: matching queued jobs to workers with credit, the depth each may hold, and work stealing (REVOKE).
extension Scheduler {
    mutating func dispatchAll(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped else { return }
        for id in workers.keys.sorted() where (workers[id]?.credit ?? 0) > 0 {
            dispatch(to: id, now: now, into: &directives)
        }
        steal(now: now, into: &directives)
    }

    /// Jobs beyond its slots that a worker may hold, for a job expected to take `expected`: as many per slot as
    /// fit in `queuedWorkPerSlot`, at most `maximumCreditPerSlot`. Jobs longer than that get none: a slot then
    /// pulls its next job when it frees (one round trip, negligible next to the job), which is greedy list
    /// scheduling — no job waits behind another on a busy worker while a slot elsewhere is free. Unknown
    /// durations get one per slot until the run measures some.
    func queuedAllowance(slots: Int, job index: Int) -> Int {
        guard settings.adaptiveFeeding else { return slots * settings.maximumCreditPerSlot }
        // The job's history, else what the run measured of its capability (nanoseconds; 0 = unknown).
        let known = expectedNanos[index]
        let nanos = known > 0 ? known : measuredNanos[Int(jobs[index].capability)]
        guard nanos > 0 else { return slots }
        return slots * Int(min(Int64(settings.maximumCreditPerSlot), queuedWorkNanos / nanos))
    }

    /// Work stealing: a worker with free slots and credit, and nothing queued that it can run, gets jobs that other
    /// workers (speaking version 3) hold beyond their slots and are long enough to be worth a round trip.
    mutating func steal(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped, settings.adaptiveFeeding, workers.count > 1 else { return }
        // Cheap checks first (this runs after every dispatch pass): nothing sorts unless a thief and a victim exist.
        var thieves: [WorkerID] = []
        var victims: [WorkerID] = []
        for (id, worker) in workers {
            if worker.canRevoke, worker.inFlight.count - worker.revoking > worker.slots { victims.append(id) }
            if worker.credit > 0, worker.suspects.isEmpty, worker.inFlight.count < worker.slots,
               worker.capabilities.allSatisfy({ queues[$0].isEmpty }) {
                thieves.append(id)
            }
        }
        guard !thieves.isEmpty, !victims.isEmpty else { return }
        thieves.sort()
        victims.sort()
        for thiefID in thieves {
            guard let thief = workers[thiefID] else { continue }
            var wanted = thief.slots - thief.inFlight.count
            wanted -= stealingFor.values.reduce(0) { $0 + ($1 == thiefID ? 1 : 0) }
            for victimID in victims where victimID != thiefID && wanted > 0 {
                guard let victim = workers[victimID] else { continue }
                let surplus = victim.inFlight.count - victim.revoking - victim.slots
                guard surplus > 0 else { continue }
                wanted -= revokeNewest(from: victimID, count: min(surplus, wanted), for: (thiefID, thief.capabilities),
                                       into: &directives)
            }
        }
    }

    /// Asks `worker` to give back up to `count` of its newest in-flight jobs; returns how many. With a `thief`, only
    /// jobs it can run and that are long enough to be worth stealing (`stealingThreshold`); without, any (stop).
    @discardableResult
    mutating func revokeNewest(
        from worker: WorkerID, count: Int, for thief: (id: WorkerID, capabilities: [Int])?,
        into directives: inout [SchedulerDirective]
    ) -> Int {
        guard count > 0, var state = workers.removeValue(forKey: worker) else { return 0 }
        defer { workers[worker] = state }
        var batch: [Assignment] = []
        var position = state.recent.count - 1
        while position >= 0, batch.count < count {
            let job = state.recent[position]
            position -= 1
            let index = Int(job)
            guard state.inFlight.contains(job), !jobs[index].revoking, !state.suspects.contains(job),
                let live = jobs[index].live, live.worker == worker
            else { continue }
            if let thief {
                guard thief.capabilities.contains(Int(jobs[index].capability)),
                    expectedDuration(ofJob: index).map({ $0 >= settings.stealingThreshold }) ?? true
                else { continue }
                stealingFor[job] = thief.id
            }
            jobs[index].revoking = true
            state.revoking += 1
            batch.append(Assignment(job: index, attempt: Int(live.attempt)))
        }
        if !batch.isEmpty { directives.append(.revoke(worker, batch)) }
        return batch.count
    }

    mutating func dispatch(to worker: WorkerID, now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped, let credit = workers[worker]?.credit, credit > 0,
            workers[worker]?.suspects.isEmpty == true
        else { return }
        // Taken out of the dictionary while it changes, so its sets are uniquely referenced (not copied on write);
        // what remains are the other workers, which `nextJob` consults for retries.
        guard var state = workers.removeValue(forKey: worker) else { return }
        defer { workers[worker] = state }
        var batch: [Assignment] = []
        if state.recent.count > 2 * state.inFlight.count + 64 {
            let inFlight = state.inFlight
            state.recent.removeAll { !inFlight.contains($0) }
        }
        while state.credit > 0, batch.count < settings.maximumBatch {
            guard let pick = peekJob(for: worker, state: state) else { break }
            let allowance = state.slots + queuedAllowance(slots: state.slots, job: pick.job)
            guard state.inFlight.count < allowance else { break }
            let index = take(pick)
            jobs[index].attempts += 1
            jobs[index].phase = .running
            // A worker runs `slots` jobs at once; jobs queued behind others on it get proportionally longer leases.
            let rounds = Int64(state.inFlight.count / state.slots + 1)
            let deadline = now + settings.jobTimeout * rounds + settings.leaseGrace
            jobs[index].live = Live(worker: worker, attempt: jobs[index].attempts, deadline: deadline)
            state.inFlight.insert(Int32(index))
            state.recent.append(Int32(index))
            state.credit -= 1
            batch.append(Assignment(job: index, attempt: Int(jobs[index].attempts)))
            if jobs[index].lostStreak > 0 {
                // A suspect runs alone on its worker: if that worker dies, the loss is attributable to it.
                state.suspects.insert(Int32(index))
                break
            }
        }
        if !batch.isEmpty { directives.append(.assign(worker, batch)) }
    }

    /// Where the next job for a worker is: a capability's retry queue at a position, or its fresh queue's head.
    struct Pick {
        var job: Int
        var capability: Int
        var retryPosition: Int?
    }

    /// The next job for `worker`, without taking it: retries first (skipping those that prefer another capable
    /// worker), then the fresh job with the longest expected duration among the capabilities the worker serves.
    /// `worker`'s own state is out of `workers` while it dispatches: `workers` holds the others.
    func peekJob(for worker: WorkerID, state: WorkerState) -> Pick? {
        for c in state.capabilities where queues[c].retryHead < queues[c].retry.count {
            let queue = queues[c]
            let anotherCanRunIt = workers.values.contains { $0.capabilities.contains(c) }
            let idle = state.inFlight.isEmpty
            guard let position = queue.retry[queue.retryHead...].firstIndex(where: {
                !(anotherCanRunIt && jobs[Int($0)].avoid == worker) && (idle || jobs[Int($0)].lostStreak == 0)
            }) else {
                continue
            }
            return Pick(job: Int(queue.retry[position]), capability: c, retryPosition: position)
        }
        var best: Int?
        for c in state.capabilities where queues[c].head < queues[c].fresh.count {
            if let b = best {
                if expected[Int(queues[c].fresh[queues[c].head])] > expected[Int(queues[b].fresh[queues[b].head])] { best = c }
            } else {
                best = c
            }
        }
        guard let c = best else { return nil }
        return Pick(job: Int(queues[c].fresh[queues[c].head]), capability: c, retryPosition: nil)
    }

    /// Takes the job `peekJob` found off its queue.
    mutating func take(_ pick: Pick) -> Int {
        let c = pick.capability
        guard let position = pick.retryPosition else {
            queues[c].head += 1
            return pick.job
        }
        var queue = queues[c]
        if position == queue.retryHead { queue.retryHead += 1 } else { queue.retry.remove(at: position) }
        if queue.retryHead == queue.retry.count {
            queue.retry.removeAll(keepingCapacity: true)
            queue.retryHead = 0
        }
        queues[c] = queue
        return pick.job
    }
}
