import FlowVocabulary

/// The dispatch pass: queued jobs matched to workers with credit, as deep as each may be fed. It owns the ready
/// queues and the durations that set the depth; the scheduler lends it the job ledger, the workers and the leases
/// for each pass, and decides when a pass runs (never once dispatch stopped). Pure: no I/O and no clock.
struct Dispatcher: Sendable {
    let settings: SchedulerSettings
    /// The jobs waiting for a worker, per capability.
    var ready: ReadyQueues
    /// Expected and measured durations: how deep workers are fed.
    var durations: JobDurations
    /// For tests: every pass offers jobs to every worker with credit (`Scheduler.exhaustiveDispatch`).
    var exhaustive = false
    /// For tests: how many times a worker was offered jobs (what a dispatch pass costs).
    private(set) var visits = 0

    init(settings: SchedulerSettings, ready: ReadyQueues, durations: JobDurations) {
        self.settings = settings
        self.ready = ready
        self.durations = durations
    }

    /// Offers jobs to the workers whose state changed since dispatch last looked at them, in id order (the others
    /// could take nothing: `SchedulerWorkers`). Its cost follows what changed, not the size of the fleet.
    mutating func dispatchAll(
        jobs: inout JobLedger, workers: inout SchedulerWorkers, leases: LeaseWatch, now: Duration,
        into directives: inout [SchedulerDirective]
    ) {
        if exhaustive {
            for id in workers.ids.filter({ (workers[$0]?.credit ?? 0) > 0 }).sorted() {
                dispatch(to: id, jobs: &jobs, workers: &workers, leases: leases, now: now, into: &directives)
            }
            return
        }
        var visit = workers.takePending(after: nil)[...]
        while let id = visit.popFirst() {
            let wakes = workers.wakes
            dispatch(to: id, jobs: &jobs, workers: &workers, leases: leases, now: now, into: &directives)
            // A worker woken by this one's dispatch, with a higher id, is still visited in this pass (as a pass
            // over every worker would); lower ids wait for the next pass.
            if workers.wakes != wakes, workers.hasPending(after: id) {
                visit = (visit + workers.takePending(after: id)).sorted()[...]
            }
        }
    }

    /// Assigns `worker` a batch within its credit: retries and the longest fresh jobs it can run, while it holds
    /// fewer than its slots plus the depth the next job allows. A suspect ends the batch (it runs alone).
    mutating func dispatch(
        to worker: WorkerID, jobs: inout JobLedger, workers: inout SchedulerWorkers, leases: LeaseWatch,
        now: Duration, into directives: inout [SchedulerDirective]
    ) {
        guard let credit = workers[worker]?.credit, credit > 0, workers[worker]?.suspects.isEmpty == true else { return }
        visits += 1
        // Taken out of the dictionary while it changes, so its sets are uniquely referenced (not copied on write);
        // what remains are the other workers, which `peekJob` consults for retries.
        guard var state = workers.removeValue(forKey: worker) else { return }
        // Why it keeps unused credit, if it does: it then waits until something it waits for happens.
        var waiting: SchedulerWorkers.Wait?
        defer { workers.put(state, for: worker, waiting: waiting) }
        var batch: [Assignment] = []
        state.pruneRecent()
        while state.credit > 0, batch.count < settings.maximumBatch {
            guard let pick = peekJob(for: worker, state: state, jobs: jobs, others: workers) else {
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
                freshHeadMoved(after: pick, workers: &workers)
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
    /// `worker`'s own state is out of the workers while it dispatches: `others` holds the rest.
    func peekJob(for worker: WorkerID, state: SchedulerWorker, jobs: JobLedger, others: SchedulerWorkers) -> ReadyQueues.Pick? {
        let idle = state.inFlight.isEmpty
        return ready.peek(served: state.capabilities, expected: durations.expected) { c in
            let anotherCanRunIt = others.serves(c)
            return { job in
                !(anotherCanRunIt && jobs[Int(job)].avoid == worker) && (idle || jobs[Int(job)].lostStreak == 0)
            }
        }
    }

    /// A fresh job of `pick.capability` was taken: when the next one there may be fed deeper (it is shorter, or the
    /// queue emptied and workers turn to another capability), workers at their depth there look again.
    private func freshHeadMoved(after pick: ReadyQueues.Pick, workers: inout SchedulerWorkers) {
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
