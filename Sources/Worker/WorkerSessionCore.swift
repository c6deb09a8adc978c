import FlowSpec
import Wire

/// One attempt, as CANCEL and REVOKE name it.
package struct AttemptKey: Hashable, Sendable {
    package var job: String
    package var attempt: UInt32

    package init(job: String, attempt: UInt32) {
        self.job = job
        self.attempt = attempt
    }
}

/// A job taken off the queue for a runner: a class, so that handing it from the queue to a runner (through the
/// session's lock, a parked runner's continuation) retains one object instead of copying the assignment's and the
/// scenario's fields one by one.
package final class WorkerJobStart: Sendable {
    package let job: JobAssignment
    /// Nil when the coordinator never sent the scenario the job names (the runner reports it as errored).
    package let scenario: Scenario?
    /// When the watchdog cancels the job, on the session's clock.
    package let deadline: Duration

    package init(job: JobAssignment, scenario: Scenario?, deadline: Duration) {
        self.job = job
        self.scenario = scenario
        self.deadline = deadline
    }
}

/// What the worker-session core asks its shell to do.
package enum WorkerDirective: Sendable {
    /// Send these messages to the coordinator.
    case send([Message])
    /// Grant this much credit (the outbox coalesces grants into one CREDIT).
    case grant(UInt32)
    /// Start a runner task in `slot` that runs `start` first.
    case startRunner(slot: Int, id: UInt64, WorkerJobStart)
    /// Hand `start` to the runner parked in `slot`.
    case wakeRunner(slot: Int, WorkerJobStart)
    /// Wake the runner parked in `slot` with no job: it leaves its slot.
    case releaseRunner(slot: Int)
    /// Cancel the task of the runner in `slot` (CANCEL, the watchdog, closing).
    case cancelRunner(slot: Int)
    /// Hand what the job in `slot` reported so far to the outbox (the tick streams longer jobs' steps).
    case flushRunner(slot: Int)
    /// The last runner left: whoever waits for the session to go idle may go on.
    case idle
}

/// The worker side of one connection as a pure state machine: the scenario cache, the queue of assigned jobs,
/// credit, and the bookkeeping of up to `slots` runners. Events in, `WorkerDirective`s out; time arrives as
/// `now: Duration`. It starts no task, reads no clock and touches no socket: `WorkerSession` is its shell.
///
/// A runner is a long-lived task that runs queued jobs one after another. When the queue runs dry it *parks*,
/// and the next ASSIGN hands it a job (`wakeRunner`), so a session starts at most `slots` runners while nothing is
/// cancelled. A cancelled runner is *retired*: it finishes that job and exits, and a fresh runner takes the rest of
/// the queue. Closing releases the parked runners (`releaseRunner`) and cancels the busy ones.
package struct WorkerSessionCore: Sendable {
    /// What a runner does after a job.
    package enum RunnerNext: Sendable {
        case run(WorkerJobStart)
        case park
        case exit
    }

    /// What a runner that found the queue empty does.
    package enum ParkOutcome: Sendable {
        /// A job was queued meanwhile: run it.
        case run(WorkerJobStart)
        /// Wait (the shell keeps the continuation) until `wakeRunner` or `releaseRunner` names this slot.
        case wait
        /// The session closed (or the slot is gone): leave.
        case exit
    }

    private struct Runner: Sendable {
        /// Unique in the session: a slot is reused by later runners.
        var id: UInt64
        var job: AttemptKey
        var deadline: Duration
        /// Its task was (or is about to be) cancelled: it takes no further job.
        var retired = false
        /// It finished its job and holds no other (parking or parked): `job` and `deadline` are stale.
        var idle = false
        /// It waits for `wakeRunner` / `releaseRunner`.
        var parked = false
    }

    package let slots: Int
    package let prefetch: Int
    /// Finished jobs' credits are granted in batches of this many while the worker still holds prefetched jobs: a
    /// quarter of the window (slots + prefetch). Fewer, larger CREDIT and ASSIGN frames mean fewer wake-ups on
    /// both sides; with few slots it is 1 (every finished job is granted at once).
    package let creditBatch: UInt32

    private var scenarios: [Bytes32: Scenario] = [:]
    /// The scenario of the last job taken: consecutive jobs mostly share one (no hashing of the 32 bytes).
    private var lastScenario: (hash: Bytes32, scenario: Scenario)?
    private var queue: [JobAssignment] = []
    private var head = 0
    /// One entry per slot, nil when the slot has no runner.
    private var runners: [Runner?]
    /// Runners whose task has not exited (busy or parked).
    package private(set) var liveRunners = 0
    /// Runners holding a job (live and not parked).
    private var busyRunners = 0
    /// Slots of parked runners, most recently parked last.
    private var parkedSlots: [Int] = []
    /// Runner tasks started in this session (a parked runner taking a job is not a new one).
    package private(set) var runnersStarted = 0
    private var nextRunnerID: UInt64 = 0
    package private(set) var draining = false
    package private(set) var closed = false
    package private(set) var jobsFinished = 0
    /// Credit earned by finished jobs and not yet granted (see `creditBatch`).
    private var heldCredit: UInt32 = 0
    private var byeSent = false

    package init(slots: Int, prefetch: Int) {
        self.slots = max(1, slots)
        self.prefetch = max(0, prefetch)
        creditBatch = UInt32(max(1, (self.slots + self.prefetch) / 4))
        runners = Array(repeating: nil, count: self.slots)
    }

    /// Jobs assigned and not yet taken by a runner.
    package var queuedJobs: Int { queue.count - head }

    /// The job the runner in `slot` holds, if it holds one.
    package func job(inSlot slot: Int) -> AttemptKey? {
        guard slot >= 0, slot < runners.count, let runner = runners[slot], !runner.idle else { return nil }
        return runner.job
    }

    /// Whether runner `id` in `slot` was retired before its task existed (the shell then cancels the new task);
    /// nil when that runner has left the slot already.
    package func isRetired(slot: Int, id: UInt64) -> Bool? {
        guard let runner = runners[slot], runner.id == id else { return nil }
        return runner.retired
    }

    // MARK: - Events from the coordinator

    /// The session starts: every slot plus the prefetch is granted.
    package mutating func onStart() -> [WorkerDirective] {
        [.grant(UInt32(slots + prefetch))]
    }

    /// SCENARIO: kept by hash for the jobs that name it.
    package mutating func onScenario(_ hash: Bytes32, _ scenario: Scenario) {
        scenarios[hash] = scenario
    }

    /// ASSIGN: the jobs join the queue; runners take them when the read batch ends (`onBatchEnd`), so a CANCEL or
    /// REVOKE later in the same batch still finds them queued.
    package mutating func onAssign(_ jobs: [JobAssignment]) {
        queue += jobs
    }

    /// DRAIN: no more credit; BYE once nothing is queued or running (said at the end of the batch, after every
    /// other answer to it).
    package mutating func onDrain() {
        draining = true
    }

    /// A read batch was handled: parked runners take queued jobs first, then new runners start in free slots; BYE
    /// once drained and idle.
    package mutating func onBatchEnd(now: Duration) -> [WorkerDirective] {
        guard !closed else { return [] }
        guard queuedJobs > 0 else { return byeDue() ? [.send([.bye])] : [] }
        var directives: [WorkerDirective] = []
        dispatch(now: now, into: &directives)
        return directives
    }

    /// CANCEL: a running job's runner is cancelled (and retired); a queued job leaves the queue and is reported
    /// cancelled, its credit returned.
    package mutating func onCancel(_ key: AttemptKey, reason: String) -> [WorkerDirective] {
        if let slot = runners.firstIndex(where: { $0?.idle == false && $0?.job == key }) {
            runners[slot]?.retired = true
            return [.cancelRunner(slot: slot)]
        }
        guard let i = queue[head...].firstIndex(where: { $0.job == key.job && $0.attempt == key.attempt }) else { return [] }
        let queued = queue.remove(at: i)
        let result = JobResult(job: queued.job, attempt: queued.attempt, status: .cancelled,
                               failure: Failure(step: 0, message: "cancelled before it started: \(reason)"),
                               durationMicros: 0)
        return [.send([.result(result)]), .grant(1)]
    }

    /// REVOKE: gives back the named attempts that have not started (they leave the queue and never run here), and
    /// says which had started (those finish and report as usual). The taken attempts' credit returns.
    package mutating func onRevoke(_ attempts: [AttemptRef]) -> [WorkerDirective] {
        let answers = attempts.map { ref -> RevokeAnswer in
            guard let i = queue[head...].firstIndex(where: { $0.job == ref.job && $0.attempt == ref.attempt }) else {
                return RevokeAnswer(job: ref.job, attempt: ref.attempt, taken: false)
            }
            queue.remove(at: i)
            return RevokeAnswer(job: ref.job, attempt: ref.attempt, taken: true)
        }
        var directives: [WorkerDirective] = [.send([.revoked(answers)])]
        let taken = answers.reduce(0) { $0 + ($1.taken ? 1 : 0) }
        if taken > 0 { directives.append(.grant(UInt32(taken))) }
        return directives
    }

    /// The watchdog's tick: every busy runner's output is handed over, and runners past their job's deadline are
    /// retired and cancelled (one timer for the session, not one per job).
    package mutating func onTick(now: Duration) -> [WorkerDirective] {
        var directives: [WorkerDirective] = []
        var cancels: [WorkerDirective] = []
        for slot in runners.indices {
            guard let runner = runners[slot], !runner.idle else { continue }
            directives.append(.flushRunner(slot: slot))
            guard !runner.retired, runner.deadline <= now else { continue }
            runners[slot]?.retired = true
            cancels.append(.cancelRunner(slot: slot))
        }
        return directives + cancels
    }

    /// The connection closed: nothing more is taken; busy runners are cancelled and parked ones released.
    package mutating func onClose() -> [WorkerDirective] {
        closed = true
        queue.removeAll()
        head = 0
        var cancels: [WorkerDirective] = []
        var releases: [WorkerDirective] = []
        for slot in runners.indices {
            guard let runner = runners[slot] else { continue }
            runners[slot]?.retired = true
            if runner.parked {
                runners[slot]?.parked = false
                releases.append(.releaseRunner(slot: slot))
            } else {
                cancels.append(.cancelRunner(slot: slot))
            }
        }
        parkedSlots.removeAll()
        return cancels + releases
    }

    // MARK: - Events from the runners

    /// The runner in `slot` finished its job (its frames are handed over already): the job's credit, and what the
    /// runner does next. The runner's path on every job: `directives` is empty unless credit is due, the worker
    /// says BYE, or the runner leaves.
    package mutating func onJobFinished(slot: Int, now: Duration) -> (next: RunnerNext, directives: [WorkerDirective]) {
        jobsFinished += 1
        var directives: [WorkerDirective] = []
        if !draining, !closed {
            let grant = earnCredit()
            if grant > 0 { directives.append(.grant(grant)) }
        }
        guard let runner = runners[slot], !runner.retired, !closed else {
            runners[slot] = nil
            liveRunners -= 1
            busyRunners -= 1
            if byeDue() { directives.append(.send([.bye])) }
            // A retired runner leaves queued jobs behind: a fresh runner takes them.
            if !closed, queuedJobs > 0 { dispatch(now: now, into: &directives) }
            if liveRunners == 0 { directives.append(.idle) }
            return (.exit, directives)
        }
        if let next = takeJob(now: now) {
            runners[slot]?.job = AttemptKey(job: next.job.job, attempt: next.job.attempt)
            runners[slot]?.deadline = next.deadline
            return (.run(next), directives)
        }
        busyRunners -= 1
        runners[slot]?.idle = true
        if byeDue() { directives.append(.send([.bye])) }
        return (.park, directives)
    }

    /// The idle runner in `slot` is about to wait for a job.
    package mutating func onRunnerParking(slot: Int, now: Duration) -> ParkOutcome {
        guard runners[slot] != nil, !closed else { return .exit }
        // A job queued between the runner's last look and now: take it instead of parking.
        if let next = takeJob(now: now) {
            runners[slot]?.job = AttemptKey(job: next.job.job, attempt: next.job.attempt)
            runners[slot]?.deadline = next.deadline
            runners[slot]?.idle = false
            busyRunners += 1
            return .run(next)
        }
        runners[slot]?.parked = true
        parkedSlots.append(slot)
        return .wait
    }

    /// The runner in `slot` left without a job (released on close, or it found the session closed).
    package mutating func onRunnerExited(slot: Int) -> [WorkerDirective] {
        runners[slot] = nil
        liveRunners -= 1
        return liveRunners == 0 ? [.idle] : []
    }

    // MARK: - Internals

    /// Hands queued jobs to parked runners, then starts runners while slots are free; BYE once drained and idle.
    private mutating func dispatch(now: Duration, into directives: inout [WorkerDirective]) {
        guard !closed else { return }
        while let slot = parkedSlots.last, runners[slot]?.parked == true, let start = takeJob(now: now) {
            parkedSlots.removeLast()
            runners[slot]?.parked = false
            runners[slot]?.idle = false
            runners[slot]?.job = AttemptKey(job: start.job.job, attempt: start.job.attempt)
            runners[slot]?.deadline = start.deadline
            busyRunners += 1
            directives.append(.wakeRunner(slot: slot, start))
        }
        var slot = 0
        while liveRunners < slots, queuedJobs > 0 {
            while runners[slot] != nil { slot += 1 }
            guard let start = takeJob(now: now) else { break }
            nextRunnerID += 1
            runners[slot] = Runner(id: nextRunnerID, job: AttemptKey(job: start.job.job, attempt: start.job.attempt),
                                   deadline: start.deadline)
            liveRunners += 1
            busyRunners += 1
            runnersStarted += 1
            directives.append(.startRunner(slot: slot, id: nextRunnerID, start))
        }
        if byeDue() { directives.append(.send([.bye])) }
    }

    /// Takes the next queued job (and its scenario), or nil when the queue is empty.
    private mutating func takeJob(now: Duration) -> WorkerJobStart? {
        guard head < queue.count else { return nil }
        let job = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= queue.count {
            // A queue that never runs dry would otherwise only grow.
            queue.removeFirst(head)
            head = 0
        }
        let limit = Duration.milliseconds(Int64(clamping: max(job.timeoutMillis, 1)))
        let scenario: Scenario?
        if let last = lastScenario, last.hash == job.scenarioHash {
            scenario = last.scenario
        } else {
            scenario = scenarios[job.scenarioHash]
            lastScenario = scenario.map { (job.scenarioHash, $0) }
        }
        return WorkerJobStart(job: job, scenario: scenario, deadline: now + limit)
    }

    /// Counts a finished job's credit; returns what to grant now: the held credit once it reaches `creditBatch`, or
    /// at once when the jobs in hand no longer exceed the slots (the prefetch ran out).
    private mutating func earnCredit() -> UInt32 {
        heldCredit += 1
        guard heldCredit >= creditBatch || queuedJobs + busyRunners <= slots else { return 0 }
        defer { heldCredit = 0 }
        return heldCredit
    }

    /// True (once) when the coordinator drained this worker and nothing is queued or running.
    private mutating func byeDue() -> Bool {
        guard draining, !byeSent, busyRunners == 0, queuedJobs == 0 else { return false }
        byeSent = true
        return true
    }
}
