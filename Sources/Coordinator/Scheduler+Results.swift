import FlowVocabulary

/// How attempts end: results, losses and stops become attempt ends, retries, and jobs' final outcomes.
extension Scheduler {
    mutating func handleResult(
        _ worker: WorkerID, _ assignment: Assignment, status: AttemptStatus, now: Duration,
        into directives: inout [SchedulerDirective]
    ) {
        workers[worker]?.lastSeen = now
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
        if jobs[index].revoking { endRevoke(index, on: worker) }
        jobs[index].live = nil
        // A real result ends a streak of losses; a reported loss continues it.
        if status != .lost { jobs[index].lostStreak = 0 }
        // What this end means for the job: its final outcome (said with the attempt's end), or a retry.
        var outcome: JobOutcome?
        var reason: String?
        var stopsDispatch = false
        switch status {
        case .passed:
            outcome = jobs[index].failures > 0 ? .flaky : .passed
        case .failed, .timedOut:
            jobs[index].failures += 1
            jobs[index].lastFailure = status
            if Int(jobs[index].failures) > settings.retries || isStoppedByFailFast {
                outcome = status == .timedOut ? .timedOut : .failed
                stopsDispatch = settings.failFast
            } else if isDispatchStopped {
                // An interrupt stopped the run with a retry due: the drain does not spend the job's retry budget.
                // The failed attempt stays (it counts on resume), and the resumed run retries the job as an
                // uninterrupted run would have.
                outcome = .notRun
                reason = "its attempt failed while the interrupted run drained; it runs again when the run is resumed"
            } else {
                requeue(index, avoiding: worker)
            }
        case .lost:
            // The worker said its machinery died (a browser, a device): like a lost worker, no retry is used, and a
            // job that loses 3 in a row is quarantined.
            jobs[index].lostStreak += 1
            if Int(jobs[index].lostStreak) >= settings.quarantineAfterWorkerLosses {
                outcome = .quarantined
                reason = "its attempts were lost \(jobs[index].lostStreak) times in a row (infrastructure faults)"
            } else if isDispatchStopped {
                outcome = .notRun
                reason = "dispatch stopped before it could run again"
            } else {
                requeue(index, avoiding: worker)
            }
        case .revoked:
            requeue(index, avoiding: worker)
        case .cancelled:
            outcome = .cancelled
            reason = "cancelled"
        }
        endAttempt(assignment, worker: worker, status: status, deciding: outcome, reason: reason, into: &directives)
        if stopsDispatch {
            isStoppedByFailFast = true
            directives += onStopDispatching(reason: "fail-fast: a job failed")
        }
        directives += announceCompletionIfDone()
    }

    mutating func requeue(_ index: Int, avoiding worker: WorkerID) {
        jobs[index].phase = .queued
        jobs[index].avoid = worker
        queues[Int(jobs[index].capability)].retry.append(Int32(index))
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

    /// Marks job `index` done with `outcome`; nil if it was done already.
    mutating func decide(_ index: Int, _ outcome: JobOutcome, reason: String?) -> JobEnd? {
        guard jobs[index].phase != .done else { return nil }
        jobs[index].phase = .done
        remaining -= 1
        outcomeCounts[outcome, default: 0] += 1
        return JobEnd(outcome: outcome, attempts: Int(jobs[index].attempts), reason: reason)
    }

    mutating func announceCompletionIfDone() -> [SchedulerDirective] {
        guard remaining == 0, !completionAnnounced else { return [] }
        completionAnnounced = true
        return [.runComplete]
    }

    mutating func endRevoke(_ index: Int, on worker: WorkerID) {
        jobs[index].revoking = false
        stealingFor[Int32(index)] = nil
        workers[worker]?.revoking -= 1
    }
}
