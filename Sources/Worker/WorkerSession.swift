import FlowSpec
import Foundation
import Synchronization
import Wire

/// The shell around `WorkerSessionCore` for one connection: it decodes frames into the core's events and carries
/// out its directives — runner tasks, the continuations parked runners wait on, the watchdog timer, the outbox.
///
/// Everything the core decides happens under one lock together with the shell's own per-slot state (tasks,
/// outputs, continuations), so a directive always finds the slot it names as the core left it; directives are
/// carried out after the lock is released (resuming a continuation, cancelling a task, emitting frames).
package final class WorkerSession: Sendable {
    /// The shell's side of a slot; the core keeps the bookkeeping.
    private struct Slot {
        /// Nil until the task is created (the runner may already be running by then).
        var task: Task<Void, Never>?
        /// The frames of its job, not yet handed to the outbox.
        var output: RunnerOutput?
        /// Set while the runner is parked; resumed with its next job, or nil to exit.
        var parked: CheckedContinuation<WorkerJobStart?, Never>?
    }

    private struct State {
        var core: WorkerSessionCore
        var slots: [Slot]
        /// `finish()`, waiting for the last runner to exit.
        var idleWaiter: CheckedContinuation<Void, Never>?
    }

    /// The shell's effects of a batch of directives, collected under the lock and carried out after it.
    private struct Effects {
        var messages: [Message] = []
        var grant: UInt32 = 0
        var starts: [(slot: Int, id: UInt64, start: WorkerJobStart, output: RunnerOutput)] = []
        var resumes: [(CheckedContinuation<WorkerJobStart?, Never>, WorkerJobStart?)] = []
        var cancels: [Task<Void, Never>] = []
        var flushes: [RunnerOutput] = []
        var idle: CheckedContinuation<Void, Never>?
    }

    /// Jobs a runner runs before it yields its thread, so that the session's inbound frames (ASSIGN, CANCEL) and
    /// the other runners get their turn even when jobs never suspend.
    static let jobsPerYield = 16


    private let transport: any WorkerTransport
    private let executor: JobExecutor
    private let outbox: Outbox
    private let uploader: ArtifactUploader
    private let protocolVersion: UInt16
    /// The session's clock: time since the session began (`ContinuousClock` in production, a manual one in tests).
    private let clock: @Sendable () -> Duration
    /// The instant the clock counts from, to give the executor its deadlines.
    private let epoch: ContinuousClock.Instant
    private let state: Mutex<State>
    private let watchdog = Mutex<(any WorkerTimer)?>(nil)
    /// The watchdog's period: jobs past their deadline are cancelled and longer jobs' steps streamed this often.
    private let tickInterval: Duration

    /// Receives the coordinator's NOTICE sentences.
    private let onNotice: (@Sendable (String) -> Void)?

    /// - Parameters:
    ///   - clock: time since the session began; nil reads `ContinuousClock` (tests pass a manual clock).
    package init(transport: any WorkerTransport, executor: JobExecutor, slots: Int, prefetch: Int,
                tickInterval: Duration = .milliseconds(50),
                clock: (@Sendable () -> Duration)? = nil, onNotice: (@Sendable (String) -> Void)? = nil) {
        self.onNotice = onNotice
        self.tickInterval = tickInterval
        self.transport = transport
        self.executor = executor
        let outbox = Outbox(transport: transport)
        self.outbox = outbox
        self.uploader = ArtifactUploader(outbox: outbox)
        protocolVersion = transport.protocolVersion
        let epoch = ContinuousClock.now
        self.epoch = epoch
        self.clock = clock ?? { ContinuousClock.now - epoch }
        let core = WorkerSessionCore(slots: slots, prefetch: prefetch)
        state = Mutex(State(core: core, slots: Array(repeating: Slot(), count: core.slots)))
    }

    package var jobsFinished: Int { state.withLock { $0.core.jobsFinished } }

    /// Runner tasks started so far (parked runners are reused, a retired one is replaced).
    package var runnersStarted: Int { state.withLock { $0.core.runnersStarted } }

    /// Grants the first credits (every slot plus the prefetch) and starts the one watchdog that cancels jobs past
    /// their deadline (cheaper than a timer per job) and streams what longer jobs emitted.
    package func start() {
        perform { $0.core.onStart() }
        let timer = transport.scheduleRepeating(every: tickInterval) { [weak self] in self?.onTick() }
        watchdog.withLock { $0 = timer }
    }

    /// The watchdog's tick (the transport's timer calls it; tests with a manual clock may call it themselves).
    package func onTick() {
        let now = clock()
        perform { $0.core.onTick(now: now) }
    }

    /// Handles one read batch. - Returns: true when the connection should be closed (protocol error, BYE).
    func onFrames(_ frames: FrameBatch) -> Bool {
        var messages: [Message] = []
        messages.reserveCapacity(frames.count)
        for frame in frames {
            do {
                messages.append(try Message(frame: frame))
            } catch let error as WireError {
                _ = handle(messages)
                outbox.emit([.error(ErrorMessage(error))])
                return true
            } catch {
                _ = handle(messages)
                return true
            }
        }
        return onMessages(messages)
    }

    /// Handles one batch of decoded messages, then lets runners take the jobs it queued.
    /// - Returns: true when the connection should be closed (protocol error, BYE).
    package func onMessages(_ messages: [Message]) -> Bool {
        let stop = handle(messages)
        let now = clock()
        perform { $0.core.onBatchEnd(now: now) }
        return stop
    }

    private func handle(_ messages: [Message]) -> Bool {
        var stop = false
        for message in messages {
            switch message {
            case .scenario(let body):
                do {
                    let scenario = try JSONDecoder().decode(Scenario.self, from: Data(body.bytes))
                    state.withLock { $0.core.onScenario(body.hash, scenario) }
                } catch {
                    outbox.emit([.error(ErrorMessage(WireError(.invalidValue, "SCENARIO body is not a scenario: \(error)")))])
                }
            case .assign(let jobs):
                state.withLock { $0.core.onAssign(jobs) }
            case .cancel(let cancel):
                perform { $0.core.onCancel(AttemptKey(job: cancel.job, attempt: cancel.attempt), reason: cancel.reason) }
            case .revoke(let attempts):
                perform { $0.core.onRevoke(attempts) }
            case .notice(let text):
                onNotice?(text)
            case .drain:
                state.withLock { $0.core.onDrain() }
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
        return stop
    }

    /// The connection closed: cancel what still runs (the coordinator re-queues it) and wait for it.
    /// - Returns: true when the coordinator had drained this worker.
    package func finish() async -> Bool {
        watchdog.withLock { $0?.cancel(); $0 = nil }
        uploader.close()
        perform { $0.core.onClose() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.core.liveRunners == 0 { return true }
                s.idleWaiter = continuation
                return false
            }
            if idle { continuation.resume() }
        }
        return state.withLock { $0.core.draining }
    }

    // MARK: - Directives

    /// Runs `event` (an event of the core) under the lock and carries out the directives it returns.
    private func perform(_ event: (inout State) -> [WorkerDirective]) {
        let effects = state.withLock { s -> Effects in
            let directives = event(&s)
            if directives.isEmpty { return Effects() }
            var effects = Effects()
            collect(directives, in: &s, into: &effects)
            return effects
        }
        apply(effects)
    }

    /// Turns directives into effects; the per-slot state changes here, under the lock.
    private func collect(_ directives: [WorkerDirective], in s: inout State, into effects: inout Effects) {
        for directive in directives {
            switch directive {
            case .send(let messages):
                effects.messages += messages
            case .grant(let credit):
                effects.grant += credit
            case .startRunner(let slot, let id, let start):
                let output = RunnerOutput(outbox: outbox, protocolVersion: protocolVersion)
                s.slots[slot] = Slot(task: nil, output: output, parked: nil)
                effects.starts.append((slot, id, start, output))
            case .wakeRunner(let slot, let start):
                if let continuation = s.slots[slot].parked {
                    s.slots[slot].parked = nil
                    effects.resumes.append((continuation, start))
                }
            case .releaseRunner(let slot):
                if let continuation = s.slots[slot].parked {
                    s.slots[slot].parked = nil
                    effects.resumes.append((continuation, nil))
                }
            case .cancelRunner(let slot):
                // A runner cancelled before its task exists gets it when the task is stored (see `apply`).
                if let task = s.slots[slot].task { effects.cancels.append(task) }
            case .flushRunner(let slot):
                if let output = s.slots[slot].output { effects.flushes.append(output) }
            case .idle:
                effects.idle = s.idleWaiter
                s.idleWaiter = nil
            }
        }
    }

    /// Carries out effects, outside the lock: the order is that of the directives that asked for them, by kind.
    private func apply(_ effects: Effects) {
        for output in effects.flushes { output.flush() }
        if !effects.messages.isEmpty { outbox.emit(effects.messages) }
        if effects.grant > 0 { outbox.grant(effects.grant) }
        for (continuation, start) in effects.resumes { continuation.resume(returning: start) }
        for (slot, id, start, output) in effects.starts {
            let task = Task { [self] in await runJobs(slot: slot, first: start, output: output) }
            let retired = state.withLock { s -> Bool in
                guard let retired = s.core.isRetired(slot: slot, id: id) else { return false }
                s.slots[slot].task = task
                return retired
            }
            // Cancelled before its task existed: deliver it now (it can only reach that job, see `onCancel`).
            if retired { task.cancel() }
        }
        for task in effects.cancels { task.cancel() }
        effects.idle?.resume()
    }

    // MARK: - Runners

    /// A runner: runs `first`, then queued jobs; parks while the queue is empty; exits once retired or closed.
    private func runJobs(slot: Int, first: WorkerJobStart, output: RunnerOutput) async {
        var start = first
        var ran = 0
        while true {
            await run(start, output: output)
            // The job's frames, in one lock of the shared outbox; before the job counts as done, so that a BYE (said
            // once the last job is done) follows every RESULT.
            output.flush()
            ran += 1
            let now = clock()
            let (next, effects) = state.withLock { s -> (WorkerSessionCore.RunnerNext, Effects?) in
                let (next, directives) = s.core.onJobFinished(slot: slot, now: now)
                if case .exit = next { s.slots[slot] = Slot() }
                guard !directives.isEmpty else { return (next, nil) }
                var effects = Effects()
                collect(directives, in: &s, into: &effects)
                return (next, effects)
            }
            if let effects { apply(effects) }
            switch next {
            case .run(let next):
                start = next
                if ran % Self.jobsPerYield == 0 { await Task.yield() }
            case .park:
                guard let next = await park(slot: slot) else { return }
                start = next
            case .exit:
                return
            }
        }
    }

    /// Waits until the core hands this runner a job (or the session closes: nil, and the runner has left its slot).
    private func park(slot: Int) async -> WorkerJobStart? {
        let now = clock()
        let start = await withCheckedContinuation { (continuation: CheckedContinuation<WorkerJobStart?, Never>) in
            let immediate = state.withLock { s -> WorkerJobStart?? in
                switch s.core.onRunnerParking(slot: slot, now: now) {
                case .run(let next): return .some(next)
                case .exit: return .some(nil)
                case .wait:
                    s.slots[slot].parked = continuation
                    return .none
                }
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        if start != nil { return start }
        // Released on close (or the session was already closed): leave the slot.
        perform { s in
            s.slots[slot] = Slot()
            return s.core.onRunnerExited(slot: slot)
        }
        return nil
    }

    nonisolated(nonsending) private func run(_ start: WorkerJobStart, output: RunnerOutput) async {
        let job = start.job
        guard let scenario = start.scenario else {
            output.result(JobResult(job: job.job, attempt: job.attempt, status: .errored,
                                    failure: Failure(step: 0, message: "ASSIGN named a scenario this worker never received"),
                                    durationMicros: 0))
            return
        }
        await executor.run(job, scenario: scenario, deadline: epoch + start.deadline, upload: {
            [uploader, jobID = job.job, attempt = job.attempt] artifacts in
            // The job's STEP frames go first: its artifacts stream straight through the outbox.
            output.flush()
            for artifact in artifacts {
                guard await uploader.upload(artifact, job: jobID, attempt: attempt) else { return }
            }
        }, reports: output)
    }
}
