import FlowVocabulary

/// Every job's scheduling state (its phase, attempts, failures and losses, its live lease) and the run's tally of
/// outcomes. What an attempt's end means for its job, a final outcome or a retry, is decided here. Pure.
struct JobLedger: Sendable {
    struct Live: Sendable {
        var worker: WorkerID
        var attempt: Int32
        var deadline: Duration
    }

    enum Phase: UInt8, Sendable { case queued, running, done }

    struct JobState: Sendable {
        var capability: Int32
        var phase: Phase = .queued
        var attempts: Int32 = 0
        var failures: Int16 = 0
        var lostStreak: Int16 = 0
        var lastFailure: AttemptStatus = .failed
        /// A REVOKE for its live attempt is unanswered.
        var revoking = false
        var live: Live?
        var avoid: WorkerID?
    }

    /// What an attempt's end decided: the job's final outcome (with its reason), or nil for a retry.
    struct Settlement {
        var outcome: JobOutcome?
        var reason: String?
        /// The job failed for good with fail-fast on: dispatch stops.
        var stopsDispatch = false
    }

    private var states: [JobState] = []
    private(set) var remaining = 0
    private(set) var outcomeCounts: [JobOutcome: Int] = [:]
    private var completionAnnounced = false

    /// - Parameter remaining: how many jobs are not final yet (the run's jobs less those a resumed run finished).
    init(capacity: Int, remaining: Int) {
        states.reserveCapacity(capacity)
        self.remaining = remaining
    }

    var count: Int { states.count }

    subscript(index: Int) -> JobState {
        get { states[index] }
        set { states[index] = newValue }
    }

    /// Adds the next job: of capability `c`, with `failures` earlier failed attempts, final already if `finished`.
    mutating func add(capability c: Int, failures: Int, finished: JobOutcome?) {
        var state = JobState(capability: Int32(c))
        state.failures = Int16(clamping: failures)
        if let finished {
            state.phase = .done
            outcomeCounts[finished, default: 0] += 1
        }
        states.append(state)
    }

    /// Marks job `index` done with `outcome`; nil if it was done already.
    mutating func decide(_ index: Int, _ outcome: JobOutcome, reason: String?) -> JobEnd? {
        guard states[index].phase != .done else { return nil }
        states[index].phase = .done
        remaining -= 1
        outcomeCounts[outcome, default: 0] += 1
        return JobEnd(outcome: outcome, attempts: Int(states[index].attempts), reason: reason)
    }

    /// True once, when every job is done.
    mutating func announceCompletion() -> Bool {
        guard remaining == 0, !completionAnnounced else { return false }
        completionAnnounced = true
        return true
    }

    /// Job `index`'s live attempt ended with `status`: counts the failure or loss and says what that means for the
    /// job. `stoppedByFailFast` and `dispatchStopped` are the scheduler's state at that moment.
    mutating func settle(
        _ index: Int, status: AttemptStatus, settings: SchedulerSettings, stoppedByFailFast: Bool, dispatchStopped: Bool
    ) -> Settlement {
        // A real result ends a streak of losses; a reported loss continues it.
        if status != .lost { states[index].lostStreak = 0 }
        switch status {
        case .passed:
            return Settlement(outcome: states[index].failures > 0 ? .flaky : .passed)
        case .failed, .timedOut:
            states[index].failures += 1
            states[index].lastFailure = status
            if Int(states[index].failures) > settings.retries || stoppedByFailFast {
                return Settlement(outcome: status == .timedOut ? .timedOut : .failed, stopsDispatch: settings.failFast)
            }
            if dispatchStopped {
                // An interrupt stopped the run with a retry due: the drain does not spend the job's retry budget.
                // The failed attempt stays (it counts on resume), and the resumed run retries the job as an
                // uninterrupted run would have.
                return Settlement(outcome: .notRun, reason:
                    "its attempt failed while the interrupted run drained; it runs again when the run is resumed")
            }
            return Settlement()
        case .lost:
            // The worker said its machinery died (a browser, a device): like a lost worker, no retry is used, and a
            // job that loses 3 in a row is quarantined.
            states[index].lostStreak += 1
            if Int(states[index].lostStreak) >= settings.quarantineAfterWorkerLosses {
                return Settlement(outcome: .quarantined, reason:
                    "its attempts were lost \(states[index].lostStreak) times in a row (infrastructure faults)")
            }
            if dispatchStopped { return Settlement(outcome: .notRun, reason: "dispatch stopped before it could run again") }
            return Settlement()
        case .revoked:
            return Settlement()
        case .cancelled:
            return Settlement(outcome: .cancelled, reason: "cancelled")
        }
    }
}
