import FlowSpec
import Foundation
import Synchronization
import UVTransport
import Wire

/// One connection's worth of work: the scenario cache, the queue of assigned jobs, and up to `slots` runners.
///
/// A runner is a long-lived task that runs queued jobs one after another: creating a task per job cost more than a
/// no-op job itself. When the queue runs dry a runner *parks* (waits on a continuation) and the next ASSIGN hands
/// it a job directly, so a session creates at most `slots` tasks while nothing is cancelled. A running job is
/// cancelled by cancelling its runner's task (CANCEL, the watchdog at the job's deadline, the connection closing).
/// Cancellation cannot be undone, so the runner is then *retired*: it finishes that job and exits, and a fresh
/// runner takes the rest of the queue. Closing the session wakes the parked runners with no job: they exit.
final class WorkerSession: Sendable {
    private struct Key: Equatable {
        var job: String
        var attempt: UInt32
    }

    /// A job taken off the queue for a runner: a class, so that handing it from the queue to a runner (through the
    /// lock, a parked runner's continuation, `Next`) retains one object instead of copying the assignment's and
    /// the scenario's fields one by one.
    private final class Start: Sendable {
        let job: JobAssignment
        let scenario: Scenario?
        let deadline: ContinuousClock.Instant

        init(job: JobAssignment, scenario: Scenario?, deadline: ContinuousClock.Instant) {
            self.job = job
            self.scenario = scenario
            self.deadline = deadline
        }
    }

    /// A runner's bookkeeping, touched only under the session's lock; a class, so that taking the next job updates
    /// it in place instead of copying it out of the array and back.
    private final class Runner {
        /// Unique in the session: a slot is reused by later runners.
        let id: UInt64
        /// Nil until the task is created (the runner may already be running by then).
        var task: Task<Void, Never>?
        var job: Key
        var deadline: ContinuousClock.Instant
        /// Its task was (or is about to be) cancelled: it takes no further job.
        var retired = false
        /// The frames of its job, not yet handed to the outbox.
        let output: RunnerOutput
        /// It finished its job and holds no other (parking or parked): `job` and `deadline` are stale.
        var idle = false
        /// Set while the runner is parked; resumed with its next job, or nil to exit.
        var parked: CheckedContinuation<Start?, Never>?

        init(id: UInt64, job: Key, deadline: ContinuousClock.Instant, output: RunnerOutput) {
            self.id = id
            self.job = job
            self.deadline = deadline
            self.output = output
        }
    }

    private struct State {
        var scenarios: [Bytes32: Scenario] = [:]
        /// The scenario of the last job taken: consecutive jobs mostly share one (no hashing of the 32 bytes).
        var lastScenario: (hash: Bytes32, scenario: Scenario)?
        var queue: [JobAssignment] = []
        var head = 0
        /// One entry per slot, nil when the slot has no runner.
        var runners: [Runner?]
        /// Runners whose task has not exited (busy or parked).
        var liveRunners = 0
        /// Runners holding a job (live and not parked).
        var busyRunners = 0
        /// Slots of parked runners, most recently parked last.
        var parkedSlots: [Int] = []
        /// Runner tasks started in this session (a parked runner taking a job is not a new one).
        var runnersStarted = 0
        var nextRunnerID: UInt64 = 0
        var draining = false
        var closed = false
        var finished = 0
        /// Credit earned by finished jobs and not yet granted (see `creditBatch`).
        var heldCredit: UInt32 = 0
        var byeSent = false
        /// `finish()`, waiting for the last runner to exit.
        var idleWaiter: CheckedContinuation<Void, Never>?

        init(slots: Int) { runners = Array(repeating: nil, count: slots) }

        /// Takes the next queued job (and its scenario), or nil when the queue is empty.
        mutating func takeJob(now: ContinuousClock.Instant) -> Start? {
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
            return Start(job: job, scenario: scenario, deadline: now + limit)
        }

        var queueIsEmpty: Bool { head == queue.count }

        /// Counts a finished job's credit; returns what to grant now: the held credit once it reaches `batch`, or
        /// at once when the jobs in hand no longer exceed the slots (the prefetch ran out).
        mutating func earnCredit(batch: UInt32, slots: Int) -> UInt32 {
            heldCredit += 1
            guard heldCredit >= batch || queue.count - head + busyRunners <= slots else { return 0 }
            defer { heldCredit = 0 }
            return heldCredit
        }

        /// True (once) when the coordinator drained this worker and nothing is queued or running.
        mutating func byeDue() -> Bool {
            guard draining, !byeSent, busyRunners == 0, queueIsEmpty else { return false }
            byeSent = true
            return true
        }
    }

    /// Jobs a runner runs before it yields its thread, so that the session's inbound frames (ASSIGN, CANCEL) and
    /// the other runners get their turn even when jobs never suspend.
    static let jobsPerYield = 16

    /// Finished jobs' credits are granted in batches of this many while the worker still holds prefetched jobs: a
    /// quarter of the window (slots + prefetch). Fewer, larger CREDIT and ASSIGN frames mean fewer wake-ups on both
    /// sides; with few slots it is 1 (every finished job is granted at once).
    private let creditBatch: UInt32

    private let client: AsyncFramedClient
    private let executor: JobExecutor
    private let outbox: Outbox
    private let uploader: ArtifactUploader
    private let slots: Int
    private let prefetch: Int
    /// The version agreed in the handshake (1 when the client has no WELCOME, as in tests of the session alone).
    private let protocolVersion: UInt16
    private let state: Mutex<State>
    private let watchdog = Mutex<ScheduledTimer?>(nil)

    /// Receives the coordinator's NOTICE sentences.
    private let onNotice: (@Sendable (String) -> Void)?

    init(client: AsyncFramedClient, executor: JobExecutor, slots: Int, prefetch: Int,
         onNotice: (@Sendable (String) -> Void)? = nil) {
        self.onNotice = onNotice
        self.client = client
        self.executor = executor
        let outbox = Outbox(client: client)
        self.outbox = outbox
        self.uploader = ArtifactUploader(outbox: outbox)
        self.slots = slots
        self.prefetch = prefetch
        protocolVersion = client.welcome?.version ?? 1
        creditBatch = UInt32(max(1, (slots + prefetch) / 4))
        state = Mutex(State(slots: slots))
    }

    var jobsFinished: Int { state.withLock { $0.finished } }

    /// Runner tasks started so far (parked runners are reused, a retired one is replaced).
    var runnersStarted: Int { state.withLock { $0.runnersStarted } }

    /// Grants the first credits (every slot plus the prefetch) and starts the one watchdog that cancels jobs past
    /// their deadline (cheaper than a timer per job) and streams what longer jobs emitted.
    func start() {
        outbox.grant(UInt32(slots + prefetch))
        let timer = client.loop.scheduleRepeating(every: .milliseconds(50)) { [weak self] in self?.onTick() }
        watchdog.withLock { $0 = timer }
    }

    private func onTick() {
        let now = ContinuousClock.now
        let (overdue, outputs) = state.withLock { s -> ([Task<Void, Never>], [RunnerOutput]) in
            var tasks: [Task<Void, Never>] = []
            var outputs: [RunnerOutput] = []
            for slot in s.runners.indices {
                guard let runner = s.runners[slot], !runner.idle else { continue }
                outputs.append(runner.output)
                guard !runner.retired, runner.deadline <= now else { continue }
                runner.retired = true
                if let task = runner.task { tasks.append(task) }
            }
            return (tasks, outputs)
        }
        for output in outputs { output.flush() }
        for task in overdue { task.cancel() }
    }

    /// Handles one read batch. - Returns: true when the connection should be closed (protocol error, BYE).
    func onFrames(_ frames: FrameBatch) -> Bool {
        var stop = false
        for frame in frames {
            let message: Message
            do {
                message = try Message(frame: frame)
            } catch let error as WireError {
                outbox.emit([.error(ErrorMessage(error))])
                return true
            } catch {
                return true
            }
            switch message {
            case .scenario(let body):
                do {
                    let scenario = try JSONDecoder().decode(Scenario.self, from: Data(body.bytes))
                    state.withLock { $0.scenarios[body.hash] = scenario }
                } catch {
                    outbox.emit([.error(ErrorMessage(WireError(.invalidValue, "SCENARIO body is not a scenario: \(error)")))])
                }
            case .assign(let jobs):
                state.withLock { $0.queue += jobs }
            case .cancel(let cancel):
                cancelJob(Key(job: cancel.job, attempt: cancel.attempt), reason: cancel.reason)
            case .revoke(let attempts):
                revoke(attempts)
            case .notice(let text):
                onNotice?(text)
            case .drain:
                state.withLock { $0.draining = true }
            case .artifactAck(let ack):
                uploader.onAck(ack)
            case .heartbeat, .credit:
                break
            case .bye, .error:
                stop = true
            default:
                outbox.emit([.error(ErrorMessage(WireError(.unexpectedMessage, "a coordinator may not send \(message.type)")))])
                stop = true
            }
        }
        pump()
        return stop
    }

    /// The connection closed: cancel what still runs (the coordinator re-queues it) and wait for it.
    /// - Returns: true when the coordinator had drained this worker.
    func finish() async -> Bool {
        watchdog.withLock { $0?.cancel(); $0 = nil }
        uploader.close()
        let (tasks, parked) = state.withLock { s -> ([Task<Void, Never>], [CheckedContinuation<Start?, Never>]) in
            s.closed = true
            s.queue.removeAll()
            s.head = 0
            var tasks: [Task<Void, Never>] = []
            var parked: [CheckedContinuation<Start?, Never>] = []
            for case let runner? in s.runners {
                runner.retired = true
                if let continuation = runner.parked {
                    runner.parked = nil
                    parked.append(continuation)
                } else if let task = runner.task {
                    tasks.append(task)
                }
            }
            s.parkedSlots.removeAll()
            return (tasks, parked)
        }
        for task in tasks { task.cancel() }
        for continuation in parked { continuation.resume(returning: nil) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.liveRunners == 0 { return true }
                s.idleWaiter = continuation
                return false
            }
            if idle { continuation.resume() }
        }
        return state.withLock { $0.draining }
    }

    private func cancelJob(_ key: Key, reason: String) {
        let (task, queued) = state.withLock { s -> (Task<Void, Never>?, JobAssignment?) in
            if let runner = s.runners.first(where: { $0?.idle == false && $0?.job == key }) ?? nil {
                runner.retired = true
                return (runner.task, nil)
            }
            if let i = s.queue[s.head...].firstIndex(where: { $0.job == key.job && $0.attempt == key.attempt }) {
                return (nil, s.queue.remove(at: i))
            }
            return (nil, nil)
        }
        // Safe outside the lock: a retired runner takes no other job, so this reaches the job or the runner's exit.
        task?.cancel()
        if let queued {
            outbox.emit([.result(JobResult(job: queued.job, attempt: queued.attempt, status: .cancelled,
                                           failure: Failure(step: 0, message: "cancelled before it started: \(reason)"),
                                           durationMicros: 0))])
            outbox.grant(1)
        }
    }

    /// REVOKE: gives back the named attempts that have not started (they leave the queue and never run here), and
    /// says which had started (those finish and report as usual). Their credit returns to the coordinator.
    private func revoke(_ attempts: [AttemptRef]) {
        let answers = state.withLock { s -> [RevokeAnswer] in
            attempts.map { ref in
                guard let i = s.queue[s.head...].firstIndex(where: { $0.job == ref.job && $0.attempt == ref.attempt }) else {
                    return RevokeAnswer(job: ref.job, attempt: ref.attempt, taken: false)
                }
                s.queue.remove(at: i)
                return RevokeAnswer(job: ref.job, attempt: ref.attempt, taken: true)
            }
        }
        outbox.emit([.revoked(answers)])
        let taken = answers.reduce(0) { $0 + ($1.taken ? 1 : 0) }
        if taken > 0 { outbox.grant(UInt32(taken)) }
    }

    /// Hands queued jobs to parked runners, then starts runners while slots are free; says BYE once drained and idle.
    private func pump() {
        var spawns: [(slot: Int, id: UInt64, start: Start, output: RunnerOutput)] = []
        var wakes: [(CheckedContinuation<Start?, Never>, Start)] = []
        let sayBye = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            guard !s.queueIsEmpty else { return s.byeDue() }
            let now = ContinuousClock.now
            while let slot = s.parkedSlots.last, let runner = s.runners[slot], let continuation = runner.parked,
                  let start = s.takeJob(now: now) {
                s.parkedSlots.removeLast()
                runner.parked = nil
                runner.idle = false
                runner.job = Key(job: start.job.job, attempt: start.job.attempt)
                runner.deadline = start.deadline
                s.busyRunners += 1
                wakes.append((continuation, start))
            }
            var slot = 0
            while s.liveRunners < slots, !s.queueIsEmpty {
                while s.runners[slot] != nil { slot += 1 }
                guard let start = s.takeJob(now: now) else { break }
                s.nextRunnerID += 1
                let output = RunnerOutput(outbox: outbox, protocolVersion: protocolVersion)
                s.runners[slot] = Runner(id: s.nextRunnerID, job: Key(job: start.job.job, attempt: start.job.attempt),
                                         deadline: start.deadline, output: output)
                s.liveRunners += 1
                s.busyRunners += 1
                s.runnersStarted += 1
                spawns.append((slot, s.nextRunnerID, start, output))
            }
            return s.byeDue()
        }
        if sayBye { outbox.emit([.bye]) }
        for (continuation, start) in wakes { continuation.resume(returning: start) }
        for (slot, id, start, output) in spawns {
            let task = Task { [self] in await runJobs(slot: slot, first: start, output: output) }
            let retired = state.withLock { s -> Bool in
                guard let runner = s.runners[slot], runner.id == id else { return false }
                runner.task = task
                return runner.retired
            }
            // Cancelled before its task existed: deliver it now (it can only reach that job, see `cancelJob`).
            if retired { task.cancel() }
        }
    }

    /// What a runner does after a job.
    private enum Next {
        case run(Start)
        case park
        case exit
    }

    /// A runner: runs `first`, then queued jobs; parks while the queue is empty; exits once retired or closed.
    private func runJobs(slot: Int, first: Start, output: RunnerOutput) async {
        var start = first
        var ran = 0
        while true {
            await run(start, output: output)
            // The job's frames, in one lock of the shared outbox; before the job counts as done, so that a BYE (said
            // once the last job is done) follows every RESULT.
            output.flush()
            ran += 1
            let (grant, next, bye, refill, idle) = state.withLock {
                s -> (UInt32, Next, Bool, Bool, CheckedContinuation<Void, Never>?) in
                s.finished += 1
                let grant = s.draining || s.closed ? 0 : s.earnCredit(batch: creditBatch, slots: slots)
                guard let runner = s.runners[slot], !runner.retired, !s.closed else {
                    s.runners[slot] = nil
                    s.liveRunners -= 1
                    s.busyRunners -= 1
                    var idle: CheckedContinuation<Void, Never>?
                    if s.liveRunners == 0 {
                        idle = s.idleWaiter
                        s.idleWaiter = nil
                    }
                    // A retired runner leaves queued jobs behind: a fresh runner takes them.
                    return (grant, .exit, s.byeDue(), !s.closed && !s.queueIsEmpty, idle)
                }
                if let next = s.takeJob(now: .now) {
                    runner.job = Key(job: next.job.job, attempt: next.job.attempt)
                    runner.deadline = next.deadline
                    return (grant, .run(next), false, false, nil)
                }
                s.busyRunners -= 1
                runner.idle = true
                return (grant, .park, s.byeDue(), false, nil)
            }
            if grant > 0 { outbox.grant(grant) }
            if bye { outbox.emit([.bye]) }
            switch next {
            case .run(let next):
                start = next
                if ran % Self.jobsPerYield == 0 { await Task.yield() }
            case .park:
                guard let next = await park(slot: slot) else { return }
                start = next
            case .exit:
                if refill { pump() }
                idle?.resume()
                return
            }
        }
    }

    /// Waits until `pump` hands this runner a job (or the session closes: nil, and the runner has left its slot).
    private func park(slot: Int) async -> Start? {
        let start = await withCheckedContinuation { (continuation: CheckedContinuation<Start?, Never>) in
            let immediate = state.withLock { s -> Start?? in
                guard let runner = s.runners[slot], !s.closed else { return .some(nil) }
                // A job queued between the runner's last look and now: take it instead of parking.
                if let next = s.takeJob(now: .now) {
                    runner.job = Key(job: next.job.job, attempt: next.job.attempt)
                    runner.deadline = next.deadline
                    runner.idle = false
                    s.busyRunners += 1
                    return .some(next)
                }
                runner.parked = continuation
                s.parkedSlots.append(slot)
                return .none
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        if start != nil { return start }
        // Woken by `finish` (or the session was already closed): leave the slot.
        let idle = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.runners[slot] = nil
            s.liveRunners -= 1
            guard s.liveRunners == 0 else { return nil }
            defer { s.idleWaiter = nil }
            return s.idleWaiter
        }
        idle?.resume()
        return nil
    }

    nonisolated(nonsending) private func run(_ start: Start, output: RunnerOutput) async {
        let job = start.job
        guard let scenario = start.scenario else {
            output.result(JobResult(job: job.job, attempt: job.attempt, status: .errored,
                                    failure: Failure(step: 0, message: "ASSIGN named a scenario this worker never received"),
                                    durationMicros: 0))
            return
        }
        await executor.run(job, scenario: scenario, deadline: start.deadline, upload: {
            [uploader, jobID = job.job, attempt = job.attempt] artifacts in
            // The job's STEP frames go first: its artifacts stream straight through the outbox.
            output.flush()
            for artifact in artifacts {
                guard await uploader.upload(artifact, job: jobID, attempt: attempt) else { return }
            }
        }, reports: output)
    }
}
