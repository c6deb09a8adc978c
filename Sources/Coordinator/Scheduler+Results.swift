import FlowVocabulary

/// How attempts end: results, losses and stops become attempt ends, retries, and jobs' final outcomes.
extension Scheduler {
    mutating func handleResult(
        _ worker: WorkerID, _ assignment: Assignment, status: AttemptStatus, now: Duration,
        into directives: inout [SchedulerDirective]
    ) {
        workers.sawAlive(worker, at: now)
        let index = assignment.job
        guard index >= 0, index < jobs.count,
            let live = jobs[index].live, live.worker == worker, Int(live.attempt) == assignment.attempt,
            jobs[index].phase == .running
        else {
            directives.append(.attemptEnded(assignment, worker: worker, status: status, superseded: true, decided: nil))
            return
        }
        workers[worker]?.inFlight.remove(Int32(index))
        workers[worker]?.suspects.remove(Int32(index))
        if jobs[index].revoking { revocations.end(index, on: worker, jobs: &jobs, workers: &workers) }
        jobs[index].live = nil
        let settled = jobs.settle(index, status: status, settings: settings, stoppedByFailFast: isStoppedByFailFast,
                                  dispatchStopped: isDispatchStopped)
        if settled.outcome == nil { requeue(index, avoiding: worker) }
        endAttempt(assignment, worker: worker, status: status, deciding: settled.outcome, reason: settled.reason,
                   into: &directives)
        if settled.stopsDispatch {
            isStoppedByFailFast = true
            directives += onStopDispatching(reason: "fail-fast: a job failed")
        }
        directives += announceCompletionIfDone()
    }

    mutating func requeue(_ index: Int, avoiding worker: WorkerID) {
        jobs[index].phase = .queued
        jobs[index].avoid = worker
        dispatcher.ready.requeue(Int32(index), capability: Int(jobs[index].capability))
        workers.wake(capability: Int(jobs[index].capability))
    }

    /// Says that an attempt ended and, when `outcome` is given, that this decided its job (one directive).
    mutating func endAttempt(
        _ assignment: Assignment, worker: WorkerID, status: AttemptStatus, deciding outcome: JobOutcome? = nil,
        reason: String? = nil, into directives: inout [SchedulerDirective]
    ) {
        let decided = outcome.flatMap { decide(assignment.job, $0, reason: reason) }
        directives.append(
            .attemptEnded(assignment, worker: worker, status: status, superseded: false, decided: decided))
    }

    /// A job that ends without an attempt ending now (queued when dispatch stopped).
    mutating func finish(_ index: Int, _ outcome: JobOutcome, reason: String?, into directives: inout [SchedulerDirective]) {
        if let end = decide(index, outcome, reason: reason) { directives.append(.jobFinished(job: index, end)) }
    }

    mutating func decide(_ index: Int, _ outcome: JobOutcome, reason: String?) -> JobEnd? {
        jobs.decide(index, outcome, reason: reason)
    }

    mutating func announceCompletionIfDone() -> [SchedulerDirective] { jobs.announceCompletion() ? [.runComplete] : [] }
}
