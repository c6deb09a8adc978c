/// When dispatch runs (never once stopped), and asking for work stealing: the pass itself is `Dispatcher`'s.
extension Scheduler {
    /// A dispatch pass over the workers whose state changed, then idle workers steal.
    mutating func dispatchAll(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped else { return }
        dispatcher.dispatchAll(jobs: &jobs, workers: &workers, leases: leases, now: now, into: &directives)
        steal(now: now, into: &directives)
    }

    /// Offers jobs to `worker` alone (it granted credit).
    mutating func dispatch(to worker: WorkerID, now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped else { return }
        dispatcher.dispatch(to: worker, jobs: &jobs, workers: &workers, leases: leases, now: now, into: &directives)
    }

    /// Work stealing: a worker with free slots and credit, and nothing queued that it can run, gets jobs that other
    /// workers (speaking version 3) hold beyond their slots and are long enough to be worth a round trip.
    mutating func steal(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped, settings.adaptiveFeeding, workers.count > 1 else { return }
        let requests = revocations.steal(
            jobs: &jobs, workers: &workers, queueIsEmpty: dispatcher.ready.isEmpty, durations: dispatcher.durations,
            stealingThreshold: settings.stealingThreshold)
        for (victim, batch) in requests { directives.append(.revoke(victim, batch)) }
    }

    /// Asks `worker` to give back up to `count` of its newest in-flight jobs, whatever they are (dispatch stopped).
    mutating func revokeNewest(from worker: WorkerID, count: Int, into directives: inout [SchedulerDirective]) {
        let batch = revocations.request(
            from: worker, count: count, for: nil, jobs: &jobs, workers: &workers, durations: dispatcher.durations,
            stealingThreshold: settings.stealingThreshold)
        if !batch.isEmpty { directives.append(.revoke(worker, batch)) }
    }
}
