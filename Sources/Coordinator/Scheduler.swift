import FlowVocabulary

/// The coordinator's scheduling core: a pure state machine with no I/O and no clock.
///
/// Workers pull: they grant credits (free capacity) and the scheduler assigns batches within them, matching each
/// job's registry and required labels to what the worker advertised. Jobs go longest-expected-first. How many jobs a
/// worker may hold beyond its slots follows the work: deep pipelining for sub-millisecond jobs, one queued job per
/// slot for long ones (`SchedulerSettings.queuedWorkPerSlot`, from history or durations measured in this run). When a
/// worker has a free slot and nothing is queued for it, jobs another worker holds but has not started are taken back
/// (`revoke`) and given to it: work stealing. Every
/// assignment is a lease with a deadline; a worker that misses heartbeats or disconnects has its in-flight jobs
/// re-queued (preferably to another worker). Failed attempts are retried up to `retries` times, preferably on
/// another worker; fail-then-pass is `flaky`. A job whose attempts kill `quarantineAfterWorkerLosses` workers in a
/// row is quarantined; to make that attribution fair, a job that was on a lost worker ("suspect") runs alone on its
/// next worker, so innocent jobs that shared a crashing worker are not quarantined with the culprit. Results of
/// superseded attempts are reported as such and never counted twice.
///
/// Time arrives as a `Duration` since the run began (`now`), so tests drive it tick by tick.
public struct Scheduler: Sendable {
    public let settings: SchedulerSettings
    /// Every job's state and the run's tally of outcomes.
    var jobs: JobLedger
    /// The dispatch pass, with the ready queues and the durations that set how deep workers are fed.
    var dispatcher: Dispatcher
    /// Jobs being taken back (REVOKE): for whom, and which answers count.
    var revocations = Revocations()
    /// What becomes of a lost worker's jobs, and which jobs recently lost workers held.
    var losses: WorkerLosses
    /// Lease deadlines, and who is overdue at a tick.
    let leases: LeaseWatch
    /// The connected workers, indexed for dispatch and stealing.
    var workers = SchedulerWorkers(capabilityCount: 0)
    public internal(set) var isDispatchStopped = false
    /// Fail-fast stopped dispatching (not an interrupt): a failed attempt with a retry due then fails its job, as
    /// fail-fast means. After an interrupt the job ends `notRun` instead and its retry runs on resume.
    public internal(set) var isStoppedByFailFast = false
    public var outcomeCounts: [JobOutcome: Int] { jobs.outcomeCounts }
    /// For tests: every pass offers jobs to every worker with credit, as before the workers were indexed. The
    /// indexed dispatch must decide exactly as this exhaustive one does (Tests/CoordinatorTests/SchedulerIndexTests).
    package var exhaustiveDispatch: Bool {
        get { dispatcher.exhaustive }
        set { dispatcher.exhaustive = newValue }
    }
    /// For tests: how many times a worker was offered jobs (what a dispatch pass costs).
    package var dispatchVisits: Int { dispatcher.visits }

    /// - Parameters:
    ///   - jobs: the run's jobs, indexed as the shell indexes them.
    ///   - finished: outcomes of jobs already final (a resumed run): they are not scheduled again.
    ///   - failures: failed or timed-out attempts that jobs not yet final already made (a resumed run): they count
    ///     against the retry budget and make a later pass `flaky`, exactly as in an uninterrupted run.
    public init(
        jobs: [SchedulableJob], finished: [Int: JobOutcome] = [:], failures: [Int: Int] = [:],
        settings: SchedulerSettings = SchedulerSettings()
    ) {
        self.settings = settings
        losses = WorkerLosses(quarantineAfter: settings.quarantineAfterWorkerLosses)
        leases = LeaseWatch(settings: settings)
        self.jobs = JobLedger(capacity: jobs.count, remaining: jobs.count - finished.count)
        var ready = ReadyQueues()
        for (index, job) in jobs.enumerated() {
            let c = ready.capability(of: job)
            self.jobs.add(capability: c, failures: failures[index] ?? 0, finished: finished[index])
            if finished[index] == nil { ready.addFresh(Int32(index), capability: c) }
        }
        let durations = JobDurations(jobs: jobs, capabilityCount: ready.capabilities.count,
                                     queuedWorkPerSlot: settings.queuedWorkPerSlot)
        ready.sortFresh(expected: durations.expected)
        dispatcher = Dispatcher(settings: settings, ready: ready, durations: durations)
        workers = SchedulerWorkers(capabilityCount: ready.capabilities.count)
    }

    // MARK: - Queries

    public var jobCount: Int { jobs.count }
    public var remainingCount: Int { jobs.remaining }
    public var isComplete: Bool { jobs.remaining == 0 }
    public var connectedWorkers: [WorkerID] { workers.ids.sorted() }
    public var inFlightCount: Int { workers.inFlightCount }
    public func inFlight(on worker: WorkerID) -> [Int] { workers[worker].map { $0.inFlight.map(Int.init).sorted() } ?? [] }
    public func workerName(_ worker: WorkerID) -> String? { workers[worker]?.name }

    /// How many earlier attempts of job `index` used a retry (failed or timed out). Attempts lost with a worker or
    /// taken back do not count, so the number is the same however often workers or the coordinator died: the
    /// attempt's seed derives from it.
    public func retryIndex(ofJob index: Int) -> Int {
        guard index >= 0, index < jobs.count else { return 0 }
        return Int(jobs[index].failures)
    }

    /// Attempts assigned so far to job `index` in this session (taken back and lost ones included).
    public func attemptsMade(ofJob index: Int) -> Int {
        guard index >= 0, index < jobs.count else { return 0 }
        return Int(jobs[index].attempts)
    }

    /// The duration the scheduler expects of job `index`: its history, else what this run measured of jobs like it.
    public func expectedDuration(ofJob index: Int) -> Duration? {
        guard index >= 0, index < jobs.count else { return nil }
        return dispatcher.durations.expectedDuration(ofJob: index, capability: Int(jobs[index].capability))
    }

    /// What the queued jobs need that no connected worker offers: registry and labels per capability, with counts.
    public var unservedNeeds: [(registry: String, labels: [String: String], jobs: Int)] {
        dispatcher.ready.unserved { c in workers.serves(c) }
    }

    /// The registries and labels the run's jobs need, whatever their state.
    public var neededRegistries: [String] { Array(Set(dispatcher.ready.capabilities.map(\.registry))).sorted() }

    /// Whether `worker` can run any of the run's jobs.
    public func canServe(_ worker: WorkerID) -> Bool { !(workers[worker]?.capabilities.isEmpty ?? true) }

    /// Jobs waiting for a worker that no connected worker can run (missing registry or labels).
    public var unservableQueuedJobs: Int {
        unservedNeeds.reduce(0) { $0 + $1.jobs }
    }

    // MARK: - Events

    /// A worker authenticated and advertised what it can run.
    /// - Parameter canRevoke: it speaks protocol version 3 (REVOKE), so its unstarted jobs can be taken back.
    public mutating func onWorkerJoined(
        _ worker: WorkerID, name: String, registries: Set<String>, labels: [String: String], slots: Int,
        canRevoke: Bool = false, now: Duration
    ) -> [SchedulerDirective] {
        let eligible = dispatcher.ready.eligible(registries: registries, labels: labels)
        workers[worker] = SchedulerWorker(name: name, capabilities: eligible, slots: min(max(1, slots), settings.maximumSlots),
                                      canRevoke: canRevoke, lastSeen: now)
        // A retry that avoided a worker runs there only when no other can: with one more, those waiting look again.
        for c in eligible where dispatcher.ready.hasRetries(c) { workers.wake(capability: c) }
        var directives = announceCompletionIfDone()
        // A late joiner gets work at once: jobs other workers hold but have not started.
        steal(now: now, into: &directives)
        return directives
    }

    /// The worker grants `count` more jobs of capacity.
    public mutating func onCredit(_ worker: WorkerID, count: Int, now: Duration) -> [SchedulerDirective] {
        guard workers[worker] != nil else { return [] }
        workers[worker]?.grant(count, maximumPerSlot: settings.maximumCreditPerSlot)
        workers.sawAlive(worker, at: now)
        var directives: [SchedulerDirective] = []
        dispatch(to: worker, now: now, into: &directives)
        steal(now: now, into: &directives)
        return directives
    }

    /// A worker measured how long an attempt of job `index` took: it tunes how deep workers are fed.
    public mutating func onMeasured(job index: Int, duration: Duration) {
        onMeasured(job: index, nanoseconds: JobDurations.nanoseconds(duration))
    }

    /// `onMeasured(job:duration:)` in nanoseconds: integer arithmetic only, as it runs once per result.
    public mutating func onMeasured(job index: Int, nanoseconds: Int64) {
        guard index >= 0, index < jobs.count, nanoseconds >= 0 else { return }
        let c = Int(jobs[index].capability)
        // Shorter measurements feed jobs of unknown length deeper: workers at their depth there look again.
        if dispatcher.durations.measure(capability: c, nanoseconds: nanoseconds, maximumCreditPerSlot: settings.maximumCreditPerSlot) {
            workers.wakeForDepth(capability: c)
        }
    }

    /// Whether job `index`'s live attempt is on `worker` with a REVOKE out for it: only then is an answer taken.
    public func isRevoking(job index: Int, on worker: WorkerID) -> Bool {
        Revocations.isOut(job: index, on: worker, jobs: jobs)
    }

    /// The worker answered a REVOKE: attempts it took back run elsewhere (or not at all once dispatch stopped);
    /// those it had started go on.
    public mutating func onRevoked(_ worker: WorkerID, _ answers: [(Assignment, taken: Bool)], now: Duration) -> [SchedulerDirective] {
        var directives: [SchedulerDirective] = []
        workers.sawAlive(worker, at: now)
        for assignment in revocations.answer(answers, from: worker, jobs: &jobs, workers: &workers) {
            if isDispatchStopped {
                endAttempt(assignment, worker: worker, status: .revoked, deciding: .notRun,
                           reason: "dispatch stopped before it started", into: &directives)
            } else {
                requeue(assignment.job, avoiding: worker)
                endAttempt(assignment, worker: worker, status: .revoked, into: &directives)
            }
        }
        dispatchAll(now: now, into: &directives)
        directives += announceCompletionIfDone()
        return directives
    }

    /// Any frame from the worker proves it alive.
    public mutating func onHeartbeat(_ worker: WorkerID, now: Duration) {
        workers.sawAlive(worker, at: now)
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
    /// - Parameter faultless: the coordinator itself closed the connection (a protocol violation, BYE, an ERROR from
    ///   the worker): the jobs it held did not crash anything, so their loss neither counts toward quarantine nor makes
    ///   them suspects. They run again like any lost attempt.
    public mutating func onWorkerLost(_ worker: WorkerID, now: Duration, faultless: Bool = false) -> [SchedulerDirective] {
        guard let state = workers.removeValue(forKey: worker) else { return [] }
        // Jobs that avoided it may now run on the workers left: those waiting on its capabilities look again.
        for c in state.capabilities { workers.wake(capability: c) }
        var directives: [SchedulerDirective] = []
        let fates = losses.lose(worker, inFlight: state.inFlight, faultless: faultless, dispatchStopped: isDispatchStopped,
                                jobs: &jobs, revocations: &revocations)
        for (assignment, fate) in fates {
            switch fate {
            case .ends(let outcome, let reason):
                endAttempt(assignment, worker: worker, status: .lost, deciding: outcome, reason: reason, into: &directives)
            case .again:
                requeue(assignment.job, avoiding: worker)
                endAttempt(assignment, worker: worker, status: .lost, into: &directives)
            }
        }
        dispatchAll(now: now, into: &directives)
        directives += announceCompletionIfDone()
        return directives
    }

    /// A lost worker is back (the same process, reconnected): its connection broke, it did not crash, so the jobs
    /// lost with it were not at fault. Their loss no longer counts toward quarantine and they need not run alone.
    public mutating func onWorkerReturned(lost worker: WorkerID, now: Duration) -> [SchedulerDirective] {
        guard let cleared = losses.returned(worker, jobs: &jobs) else { return [] }
        for (job, holder) in cleared { workers[holder]?.suspects.remove(job) }
        // Suspects that ran alone may now share a worker: every waiting worker looks again.
        workers.wakeAll()
        var directives: [SchedulerDirective] = []
        dispatchAll(now: now, into: &directives)
        return directives
    }

    /// Periodic check: silent workers are declared dead, expired leases are cancelled and time out.
    public mutating func onTick(now: Duration) -> [SchedulerDirective] {
        var directives: [SchedulerDirective] = []
        let (silent, expiring) = leases.overdue(workers: workers, jobs: jobs, now: now)
        for id in silent {
            guard let worker = workers[id] else { continue }
            directives.append(.disconnect(id, reason: "no heartbeat for \((now - worker.lastSeen).secondsText)"))
            directives += onWorkerLost(id, now: now)
        }
        for id in expiring {
            guard let worker = workers[id] else { continue }
            for assignment in leases.expired(worker.inFlight, on: id, jobs: jobs, now: now) {
                directives.append(.cancel(id, assignment, reason: "lease expired: the job exceeded its timeout"))
                handleResult(id, assignment, status: .timedOut, now: now, into: &directives)
            }
        }
        dispatchAll(now: now, into: &directives)
        return directives
    }

    /// Stop dispatching (fail-fast, or Ctrl-C once): queued jobs become `notRun`; in-flight jobs finish. After a
    /// Ctrl-C, an in-flight attempt that fails with a retry due ends its job `notRun` too (the retry runs on resume),
    /// so the interrupt never spends a job's retry budget.
    public mutating func onStopDispatching(reason: String) -> [SchedulerDirective] {
        guard !isDispatchStopped else { return [] }
        isDispatchStopped = true
        var directives: [SchedulerDirective] = []
        for job in dispatcher.ready.drain() { finish(Int(job), .notRun, reason: reason, into: &directives) }
        // Jobs workers hold but have not started need not run either: take them back.
        for id in workers.ids.sorted() {
            guard let worker = workers[id], worker.canRevoke else { continue }
            revokeNewest(from: id, count: worker.inFlight.count - worker.revoking - worker.slots, into: &directives)
        }
        directives += announceCompletionIfDone()
        return directives
    }

    /// Abort (Ctrl-C twice): stop dispatching and cancel every in-flight attempt.
    public mutating func onAbort(reason: String) -> [SchedulerDirective] {
        var directives = onStopDispatching(reason: reason)
        for (id, worker) in workers.sorted {
            for job in worker.inFlight.sorted() {
                let index = Int(job)
                guard let live = jobs[index].live else { continue }
                let assignment = Assignment(job: index, attempt: Int(live.attempt))
                directives.append(.cancel(id, assignment, reason: reason))
                jobs[index].live = nil
                endAttempt(assignment, worker: id, status: .cancelled, deciding: .cancelled, reason: reason,
                           into: &directives)
            }
            workers[id]?.inFlight.removeAll()
            workers[id]?.suspects.removeAll()
        }
        directives += announceCompletionIfDone()
        return directives
    }
}
