/// Dispatch: matching queued jobs to workers with credit, the depth each may hold, and asking for work stealing.
extension Scheduler {
    /// Offers jobs to the workers whose state changed since dispatch last looked at them, in id order (the others
    /// could take nothing: `SchedulerWorkers`), then lets idle workers steal. Its cost follows what changed, not the
    /// size of the fleet.
    mutating func dispatchAll(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped else { return }
        if exhaustiveDispatch {
            for id in workers.ids.filter({ (workers[$0]?.credit ?? 0) > 0 }).sorted() {
                dispatch(to: id, now: now, into: &directives)
            }
        } else {
            var visit = workers.takePending(after: nil)[...]
            while let id = visit.popFirst() {
                let wakes = workers.wakes
                dispatch(to: id, now: now, into: &directives)
                // A worker woken by this one's dispatch, with a higher id, is still visited in this pass (as a pass
                // over every worker would); lower ids wait for the next pass.
                if workers.wakes != wakes, workers.hasPending(after: id) {
                    visit = (visit + workers.takePending(after: id)).sorted()[...]
                }
            }
        }
        steal(now: now, into: &directives)
    }

    /// Work stealing: a worker with free slots and credit, and nothing queued that it can run, gets jobs that other
    /// workers (speaking version 3) hold beyond their slots and are long enough to be worth a round trip.
    mutating func steal(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped, settings.adaptiveFeeding, workers.count > 1 else { return }
        let requests = revocations.steal(
            jobs: &jobs, workers: &workers, queueIsEmpty: ready.isEmpty, durations: durations,
            stealingThreshold: settings.stealingThreshold)
        for (victim, batch) in requests { directives.append(.revoke(victim, batch)) }
    }

    /// Asks `worker` to give back up to `count` of its newest in-flight jobs, whatever they are (dispatch stopped).
    mutating func revokeNewest(from worker: WorkerID, count: Int, into directives: inout [SchedulerDirective]) {
        let batch = revocations.request(
            from: worker, count: count, for: nil, jobs: &jobs, workers: &workers, durations: durations,
            stealingThreshold: settings.stealingThreshold)
        if !batch.isEmpty { directives.append(.revoke(worker, batch)) }
    }

    mutating func dispatch(to worker: WorkerID, now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped, let credit = workers[worker]?.credit, credit > 0,
            workers[worker]?.suspects.isEmpty == true
        else { return }
        dispatchVisits += 1
        // Taken out of the dictionary while it changes, so its sets are uniquely referenced (not copied on write);
        // what remains are the other workers, which `nextJob` consults for retries.
        guard var state = workers.removeValue(forKey: worker) else { return }
        // Why it keeps unused credit, if it does: it then waits until something it waits for happens.
        var waiting: SchedulerWorkers.Wait?
        defer { workers.put(state, for: worker, waiting: waiting) }
        var batch: [Assignment] = []
        state.pruneRecent()
        while state.credit > 0, batch.count < settings.maximumBatch {
            guard let pick = peekJob(for: worker, state: state) else {
                waiting = .jobs
                break
            }
            let allowance = state.slots + durations.queuedAllowance(
                slots: state.slots, job: pick.job, capability: pick.capability, settings: settings)
            guard state.inFlight.count < allowance else {
                waiting = .depth
                break
            }
            let index = ready.take(pick)
            if pick.retryPosition == nil {
                freshHeadMoved(after: pick)
            } else {
                // A retry gone: workers at their depth for it may now pick a job fed deeper.
                workers.wakeForDepth(capability: pick.capability)
            }
            jobs[index].attempts += 1
            jobs[index].phase = .running
            let deadline = leases.deadline(now: now, inFlight: state.inFlight.count, slots: state.slots)
            jobs[index].live = JobLedger.Live(worker: worker, attempt: jobs[index].attempts, deadline: deadline)
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

    /// The next job for `worker`, without taking it: retries first (skipping those that prefer another capable
    /// worker, and suspects unless it is idle), then the longest fresh job among the capabilities it serves.
    /// `worker`'s own state is out of `workers` while it dispatches: `workers` holds the others.
    func peekJob(for worker: WorkerID, state: SchedulerWorker) -> ReadyQueues.Pick? {
        let idle = state.inFlight.isEmpty
        let jobs = self.jobs
        return ready.peek(served: state.capabilities, expected: durations.expected) { c in
            let anotherCanRunIt = workers.serves(c)
            return { job in
                !(anotherCanRunIt && jobs[Int(job)].avoid == worker) && (idle || jobs[Int(job)].lostStreak == 0)
            }
        }
    }

    /// A fresh job of `pick.capability` was taken: when the next one there may be fed deeper (it is shorter, or the
    /// queue emptied and workers turn to another capability), workers at their depth there look again.
    mutating func freshHeadMoved(after pick: ReadyQueues.Pick) {
        guard settings.adaptiveFeeding else { return }
        let c = pick.capability
        guard let next = ready.freshHead(c) else {
            workers.wakeForDepth(capability: c)
            return
        }
        if durations.feedsDeeper(next: next, than: pick.job, capability: c, settings: settings) {
            workers.wakeForDepth(capability: c)
        }
    }
}
