import FlowSpec

/// The coordinator's scheduling core: a pure state machine with no I/O and no clock.
///
/// Workers pull: they grant credits (free capacity) and the scheduler assigns batches within them, matching each
/// job's registry and required labels to what the worker advertised. Jobs go longest-expected-first. Every
/// assignment is a lease with a deadline; a worker that misses heartbeats or disconnects has its in-flight jobs
/// re-queued (preferably to another worker). Failed attempts are retried up to `retries` times, preferably on
/// another worker; fail-then-pass is `flaky`. A job whose attempts kill `quarantineAfterWorkerLosses` workers in a
/// row is quarantined; to make that attribution fair, a job that was on a lost worker ("suspect") runs alone on its
/// next worker, so innocent jobs that shared a crashing worker are not quarantined with the culprit. Results of
/// superseded attempts are reported as such and never counted twice.
///
/// Time arrives as a `Duration` since the run began (`now`), so tests drive it tick by tick.
public struct Scheduler: Sendable {
    private struct Live: Sendable {
        var worker: WorkerID
        var attempt: Int32
        var deadline: Duration
    }

    private enum Phase: UInt8, Sendable { case queued, running, done }

    private struct JobState: Sendable {
        var capability: Int32
        var phase: Phase = .queued
        var attempts: Int32 = 0
        var failures: Int16 = 0
        var lostStreak: Int16 = 0
        var lastFailure: AttemptStatus = .failed
        var live: Live?
        var avoid: WorkerID?
    }

    private struct Capability: Sendable, Hashable {
        var registry: String
        var labels: [String: String]
    }

    private struct Queue: Sendable {
        /// Fresh jobs sorted longest-expected-first, consumed from `head`.
        var fresh: [Int32] = []
        var head = 0
        /// Re-queued jobs (retries, jobs of lost workers), served before fresh ones, oldest first.
        var retry: [Int32] = []
        var retryHead = 0
        var isEmpty: Bool { head == fresh.count && retryHead == retry.count }
    }

    private struct WorkerState: Sendable {
        var name: String
        var capabilities: [Int]
        var slots: Int
        var credit: Int = 0
        var inFlight: Set<Int32> = []
        /// In-flight jobs that were on a worker when it was lost: they run alone, so the next loss is theirs.
        var suspects: Set<Int32> = []
        var lastSeen: Duration
    }

    public let settings: SchedulerSettings
    private var jobs: [JobState]
    private var expected: [Duration]
    private var capabilities: [Capability] = []
    private var queues: [Queue] = []
    private var workers: [WorkerID: WorkerState] = [:]
    private var remaining: Int
    private var completionAnnounced = false
    public private(set) var isDispatchStopped = false
    public private(set) var outcomeCounts: [JobOutcome: Int] = [:]

    /// - Parameters:
    ///   - jobs: the run's jobs, indexed as the shell indexes them.
    ///   - finished: outcomes of jobs already final (a resumed run): they are not scheduled again.
    public init(jobs: [SchedulableJob], finished: [Int: JobOutcome] = [:], settings: SchedulerSettings = SchedulerSettings()) {
        self.settings = settings
        self.jobs = []
        self.jobs.reserveCapacity(jobs.count)
        self.expected = jobs.map(\.expectedDuration)
        var capabilityIndex: [Capability: Int] = [:]
        for (index, job) in jobs.enumerated() {
            let cap = Capability(registry: job.registry, labels: job.requiredLabels)
            let c: Int
            if let existing = capabilityIndex[cap] { c = existing } else {
                c = capabilities.count
                capabilityIndex[cap] = c
                capabilities.append(cap)
                queues.append(Queue())
            }
            var state = JobState(capability: Int32(c))
            if let outcome = finished[index] {
                state.phase = .done
                outcomeCounts[outcome, default: 0] += 1
            } else {
                queues[c].fresh.append(Int32(index))
            }
            self.jobs.append(state)
        }
        let expected = self.expected
        for c in queues.indices {
            // Longest expected first; ties keep plan order so dispatch is deterministic.
            queues[c].fresh.sort { a, b in
                let (x, y) = (expected[Int(a)], expected[Int(b)])
                return x != y ? x > y : a < b
            }
        }
        remaining = jobs.count - finished.count
    }

    // MARK: - Queries

    public var jobCount: Int { jobs.count }
    public var remainingCount: Int { remaining }
    public var isComplete: Bool { remaining == 0 }
    public var connectedWorkers: [WorkerID] { workers.keys.sorted() }
    public var inFlightCount: Int { workers.values.reduce(0) { $0 + $1.inFlight.count } }
    public func inFlight(on worker: WorkerID) -> [Int] { workers[worker].map { $0.inFlight.map(Int.init).sorted() } ?? [] }
    public func workerName(_ worker: WorkerID) -> String? { workers[worker]?.name }

    /// Jobs waiting for a worker that no connected worker can run (missing registry or labels).
    public var unservableQueuedJobs: Int {
        var count = 0
        for (c, queue) in queues.enumerated() where !queue.isEmpty {
            if !workers.values.contains(where: { $0.capabilities.contains(c) }) {
                count += (queue.fresh.count - queue.head) + (queue.retry.count - queue.retryHead)
            }
        }
        return count
    }

    // MARK: - Events

    /// A worker authenticated and advertised what it can run.
    public mutating func onWorkerJoined(
        _ worker: WorkerID, name: String, registries: Set<String>, labels: [String: String], slots: Int, now: Duration
    ) -> [SchedulerDirective] {
        let eligible = capabilities.indices.filter { c in
            let cap = capabilities[c]
            return registries.contains(cap.registry) && cap.labels.allSatisfy { labels[$0.key] == $0.value }
        }
        workers[worker] = WorkerState(name: name, capabilities: eligible, slots: max(1, slots), lastSeen: now)
        return announceCompletionIfDone()
    }

    /// The worker grants `count` more jobs of capacity.
    public mutating func onCredit(_ worker: WorkerID, count: Int, now: Duration) -> [SchedulerDirective] {
        guard let state = workers[worker] else { return [] }
        // A worker may not hoard the queue: its credit is capped at `maximumCreditPerSlot` per advertised slot.
        let cap = state.slots * settings.maximumCreditPerSlot
        workers[worker]?.credit = min(cap, state.credit + max(0, count))
        workers[worker]?.lastSeen = now
        var directives: [SchedulerDirective] = []
        dispatch(to: worker, now: now, into: &directives)
        return directives
    }

    /// Any frame from the worker proves it alive.
    public mutating func onHeartbeat(_ worker: WorkerID, now: Duration) {
        workers[worker]?.lastSeen = now
    }

    /// A worker reported the end of an attempt.
    public mutating func onResult(
        _ worker: WorkerID, _ assignment: Assignment, status: AttemptStatus, now: Duration
    ) -> [SchedulerDirective] {
        var directives: [SchedulerDirective] = []
        handleResult(worker, assignment, status: status, now: now, into: &directives)
        dispatchAll(now: now, into: &directives)
        return directives
    }

    /// Many results at once (one read batch): one dispatch pass after all of them.
    public mutating func onResults(
        _ worker: WorkerID, _ results: [(Assignment, AttemptStatus)], now: Duration
    ) -> [SchedulerDirective] {
        var directives: [SchedulerDirective] = []
        directives.reserveCapacity(results.count + 1)
        for (assignment, status) in results { handleResult(worker, assignment, status: status, now: now, into: &directives) }
        dispatchAll(now: now, into: &directives)
        return directives
    }

    /// The worker's connection closed or it was declared dead: its in-flight jobs run again elsewhere.
    public mutating func onWorkerLost(_ worker: WorkerID, now: Duration) -> [SchedulerDirective] {
        guard let state = workers.removeValue(forKey: worker) else { return [] }
        var directives: [SchedulerDirective] = []
        for job in state.inFlight.sorted() {
            let index = Int(job)
            guard let live = jobs[index].live, live.worker == worker else { continue }
            let assignment = Assignment(job: index, attempt: Int(live.attempt))
            directives.append(.attemptEnded(assignment, worker: worker, status: .lost, superseded: false))
            jobs[index].live = nil
            jobs[index].lostStreak += 1
            if Int(jobs[index].lostStreak) >= settings.quarantineAfterWorkerLosses {
                finish(index, .quarantined,
                       reason: "its attempts lost \(jobs[index].lostStreak) workers in a row (crash or hang)", into: &directives)
            } else if isDispatchStopped {
                finish(index, .notRun, reason: "dispatch stopped before it could run again", into: &directives)
            } else {
                requeue(index, avoiding: worker)
            }
        }
        dispatchAll(now: now, into: &directives)
        directives += announceCompletionIfDone()
        return directives
    }

    /// Periodic check: silent workers are declared dead, expired leases are cancelled and time out.
    public mutating func onTick(now: Duration) -> [SchedulerDirective] {
        var directives: [SchedulerDirective] = []
        for (id, worker) in workers.sorted(by: { $0.key < $1.key }) where now - worker.lastSeen > settings.heartbeatTimeout {
            directives.append(.disconnect(id, reason: "no heartbeat for \((now - worker.lastSeen).secondsText)"))
            directives += onWorkerLost(id, now: now)
        }
        for (id, worker) in workers.sorted(by: { $0.key < $1.key }) {
            for job in worker.inFlight.sorted() {
                let index = Int(job)
                guard let live = jobs[index].live, live.worker == id, now >= live.deadline else { continue }
                let assignment = Assignment(job: index, attempt: Int(live.attempt))
                directives.append(.cancel(id, assignment, reason: "lease expired: the job exceeded its timeout"))
                handleResult(id, assignment, status: .timedOut, now: now, into: &directives)
            }
        }
        dispatchAll(now: now, into: &directives)
        return directives
    }

    /// Stop dispatching (fail-fast, or Ctrl-C once): queued jobs become `notRun`; in-flight jobs finish.
    public mutating func onStopDispatching(reason: String) -> [SchedulerDirective] {
        guard !isDispatchStopped else { return [] }
        isDispatchStopped = true
        var directives: [SchedulerDirective] = []
        for c in queues.indices {
            let queue = queues[c]
            queues[c] = Queue()
            for job in queue.retry[queue.retryHead...] + queue.fresh[queue.head...] {
                finish(Int(job), .notRun, reason: reason, into: &directives)
            }
        }
        directives += announceCompletionIfDone()
        return directives
    }

    /// Abort (Ctrl-C twice): stop dispatching and cancel every in-flight attempt.
    public mutating func onAbort(reason: String) -> [SchedulerDirective] {
        var directives = onStopDispatching(reason: reason)
        for (id, worker) in workers.sorted(by: { $0.key < $1.key }) {
            for job in worker.inFlight.sorted() {
                let index = Int(job)
                guard let live = jobs[index].live else { continue }
                let assignment = Assignment(job: index, attempt: Int(live.attempt))
                directives.append(.cancel(id, assignment, reason: reason))
                directives.append(.attemptEnded(assignment, worker: id, status: .cancelled, superseded: false))
                jobs[index].live = nil
                finish(index, .cancelled, reason: reason, into: &directives)
            }
            workers[id]?.inFlight.removeAll()
            workers[id]?.suspects.removeAll()
        }
        directives += announceCompletionIfDone()
        return directives
    }

    // MARK: - Internals

    private mutating func handleResult(
        _ worker: WorkerID, _ assignment: Assignment, status: AttemptStatus, now: Duration,
        into directives: inout [SchedulerDirective]
    ) {
        workers[worker]?.lastSeen = now
        let index = assignment.job
        guard index >= 0, index < jobs.count,
            let live = jobs[index].live, live.worker == worker, Int(live.attempt) == assignment.attempt,
            jobs[index].phase == .running
        else {
            directives.append(.attemptEnded(assignment, worker: worker, status: status, superseded: true))
            return
        }
        workers[worker]?.inFlight.remove(Int32(index))
        workers[worker]?.suspects.remove(Int32(index))
        jobs[index].live = nil
        jobs[index].lostStreak = 0
        directives.append(.attemptEnded(assignment, worker: worker, status: status, superseded: false))
        switch status {
        case .passed:
            finish(index, jobs[index].failures > 0 ? .flaky : .passed, reason: nil, into: &directives)
        case .failed, .timedOut:
            jobs[index].failures += 1
            jobs[index].lastFailure = status
            if Int(jobs[index].failures) <= settings.retries && !isDispatchStopped {
                requeue(index, avoiding: worker)
            } else {
                finish(index, status == .timedOut ? .timedOut : .failed, reason: nil, into: &directives)
                if settings.failFast {
                    directives += onStopDispatching(reason: "fail-fast: a job failed")
                }
            }
        case .lost:
            jobs[index].lostStreak += 1
            requeue(index, avoiding: worker)
        case .cancelled:
            finish(index, .cancelled, reason: "cancelled", into: &directives)
        }
        directives += announceCompletionIfDone()
    }

    private mutating func requeue(_ index: Int, avoiding worker: WorkerID) {
        jobs[index].phase = .queued
        jobs[index].avoid = worker
        queues[Int(jobs[index].capability)].retry.append(Int32(index))
    }

    private mutating func finish(_ index: Int, _ outcome: JobOutcome, reason: String?, into directives: inout [SchedulerDirective]) {
        guard jobs[index].phase != .done else { return }
        jobs[index].phase = .done
        remaining -= 1
        outcomeCounts[outcome, default: 0] += 1
        directives.append(.jobFinished(job: index, outcome: outcome, attempts: Int(jobs[index].attempts), reason: reason))
    }

    private mutating func announceCompletionIfDone() -> [SchedulerDirective] {
        guard remaining == 0, !completionAnnounced else { return [] }
        completionAnnounced = true
        return [.runComplete]
    }

    private mutating func dispatchAll(now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped else { return }
        for id in workers.keys.sorted() where (workers[id]?.credit ?? 0) > 0 {
            dispatch(to: id, now: now, into: &directives)
        }
    }

    private mutating func dispatch(to worker: WorkerID, now: Duration, into directives: inout [SchedulerDirective]) {
        guard !isDispatchStopped, let credit = workers[worker]?.credit, credit > 0,
            workers[worker]?.suspects.isEmpty == true
        else { return }
        // Taken out of the dictionary while it changes, so its sets are uniquely referenced (not copied on write);
        // what remains are the other workers, which `nextJob` consults for retries.
        guard var state = workers.removeValue(forKey: worker) else { return }
        defer { workers[worker] = state }
        var batch: [Assignment] = []
        while state.credit > 0, batch.count < settings.maximumBatch {
            guard let index = nextJob(for: worker, state: state) else { break }
            jobs[index].attempts += 1
            jobs[index].phase = .running
            // A worker runs `slots` jobs at once; jobs queued behind others on it get proportionally longer leases.
            let rounds = Int64(state.inFlight.count / state.slots + 1)
            let deadline = now + settings.jobTimeout * rounds + settings.leaseGrace
            jobs[index].live = Live(worker: worker, attempt: jobs[index].attempts, deadline: deadline)
            state.inFlight.insert(Int32(index))
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

    /// The next job for `worker`: retries first (skipping those that prefer another capable worker), then the
    /// fresh job with the longest expected duration among the capabilities the worker serves.
    /// `worker`'s own state is out of `workers` while it dispatches: `workers` holds the others.
    private mutating func nextJob(for worker: WorkerID, state: WorkerState) -> Int? {
        for c in state.capabilities where queues[c].retryHead < queues[c].retry.count {
            var queue = queues[c]
            let anotherCanRunIt = workers.values.contains { $0.capabilities.contains(c) }
            let pending = queue.retry[queue.retryHead...]
            let idle = state.inFlight.isEmpty
            guard let position = pending.firstIndex(where: {
                !(anotherCanRunIt && jobs[Int($0)].avoid == worker) && (idle || jobs[Int($0)].lostStreak == 0)
            }) else {
                continue
            }
            let job = queue.retry[position]
            if position == queue.retryHead { queue.retryHead += 1 } else { queue.retry.remove(at: position) }
            if queue.retryHead == queue.retry.count {
                queue.retry.removeAll(keepingCapacity: true)
                queue.retryHead = 0
            }
            queues[c] = queue
            return Int(job)
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
        let job = queues[c].fresh[queues[c].head]
        queues[c].head += 1
        return Int(job)
    }
}
