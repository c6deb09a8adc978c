import Artifacts
import FlowSpec
import Foundation
import Synchronization
import UVTransport
import Wire

/// Messages bound for the coordinator, coalesced: tasks append, and one hop to the event loop sends everything
/// queued so far (per LIBUV-NOTES: batches out, never one hop per frame on the hot path). Credits granted between
/// two sends travel as one CREDIT frame.
final class Outbox: Sendable {
    private struct State {
        var frames: [Frame] = []
        var credit: UInt32 = 0
        var scheduled = false
    }

    private let state = Mutex(State())
    private let client: AsyncFramedClient

    init(client: AsyncFramedClient) { self.client = client }

    func emit(_ messages: [Message]) {
        let schedule = state.withLock { s -> Bool in
            for m in messages { s.frames.append(m.frame()) }
            defer { s.scheduled = true }
            return !s.scheduled
        }
        if schedule { scheduleFlush() }
    }

    func grant(_ credit: UInt32) {
        let schedule = state.withLock { s -> Bool in
            s.credit += credit
            defer { s.scheduled = true }
            return !s.scheduled
        }
        if schedule { scheduleFlush() }
    }

    private func scheduleFlush() {
        let accepted = client.loop.execute { [self] in
            let frames = state.withLock { s -> [Frame] in
                var out = s.frames
                if s.credit > 0 { out.append(Message.credit(s.credit).frame()) }
                s.frames.removeAll(keepingCapacity: true)
                s.credit = 0
                s.scheduled = false
                return out
            }
            if !frames.isEmpty { client.send(frames) }
        }
        if !accepted { state.withLock { $0.scheduled = false } }
    }
}

/// One connection's worth of work: the scenario cache, the queue of assigned jobs, the running ones.
final class WorkerSession: Sendable {
    private struct Key: Hashable { var job: String; var attempt: UInt32 }

    private struct Running {
        var task: Task<Void, Never>?
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var scenarios: [Bytes32: Scenario] = [:]
        var queue: [JobAssignment] = []
        var head = 0
        /// Running jobs: their task (nil until it is created) and deadline.
        var running: [Key: Running] = [:]
        var draining = false
        var closed = false
        var finished = 0
        var byeSent = false
    }

    private let client: AsyncFramedClient
    private let executor: JobExecutor
    private let outbox: Outbox
    private let uploader: ArtifactUploader
    private let slots: Int
    private let prefetch: Int
    private let state = Mutex(State())
    private let watchdog = Mutex<ScheduledTimer?>(nil)

    init(client: AsyncFramedClient, executor: JobExecutor, slots: Int, prefetch: Int) {
        self.client = client
        self.executor = executor
        self.outbox = Outbox(client: client)
        self.uploader = ArtifactUploader(outbox: outbox)
        self.slots = slots
        self.prefetch = prefetch
    }

    var jobsFinished: Int { state.withLock { $0.finished } }

    /// Grants the first credits (every slot plus the prefetch) and starts the one watchdog that cancels jobs past
    /// their deadline (cheaper than a timer per job).
    func start() {
        outbox.grant(UInt32(slots + prefetch))
        let timer = client.loop.scheduleRepeating(every: .milliseconds(50)) { [weak self] in self?.cancelOverdue() }
        watchdog.withLock { $0 = timer }
    }

    private func cancelOverdue() {
        let now = ContinuousClock.now
        let overdue = state.withLock { s in s.running.values.filter { $0.deadline <= now }.compactMap(\.task) }
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
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            s.closed = true
            s.queue.removeAll()
            s.head = 0
            return s.running.values.compactMap(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        return state.withLock { $0.draining }
    }

    private func cancelJob(_ key: Key, reason: String) {
        let (task, queued) = state.withLock { s -> (Task<Void, Never>?, JobAssignment?) in
            if let running = s.running[key] { return (running.task, nil) }
            if let i = s.queue[s.head...].firstIndex(where: { $0.job == key.job && $0.attempt == key.attempt }) {
                let job = s.queue.remove(at: i)
                return (nil, job)
            }
            return (nil, nil)
        }
        task?.cancel()
        if let queued {
            outbox.emit([.result(JobResult(job: queued.job, attempt: queued.attempt, status: .cancelled,
                                           failure: Failure(step: 0, message: "cancelled before it started: \(reason)"),
                                           durationMicros: 0))])
            outbox.grant(1)
        }
    }

    /// Starts queued jobs while slots are free; says BYE once drained and idle.
    private func pump() {
        var starts: [(JobAssignment, Scenario?)] = []
        var sayBye = false
        state.withLock { s in
            guard !s.closed else { return }
            while s.running.count + starts.count < slots, s.head < s.queue.count {
                let job = s.queue[s.head]
                s.head += 1
                starts.append((job, s.scenarios[job.scenarioHash]))
            }
            if s.head == s.queue.count { s.queue.removeAll(keepingCapacity: true); s.head = 0 }
            if s.draining, !s.byeSent, s.running.isEmpty, starts.isEmpty, s.head == s.queue.count {
                s.byeSent = true
                sayBye = true
            }
            let now = ContinuousClock.now
            for (job, _) in starts {
                // Reserve the slot now; the task is filled in below.
                let limit = Duration.milliseconds(Int64(clamping: max(job.timeoutMillis, 1)))
                s.running[Key(job: job.job, attempt: job.attempt)] = Running(task: nil, deadline: now + limit)
            }
        }
        if sayBye { outbox.emit([.bye]) }
        for (job, scenario) in starts {
            let key = Key(job: job.job, attempt: job.attempt)
            let deadline = state.withLock { $0.running[key]?.deadline }
            let task = Task { [self] in
                if let scenario {
                    await executor.run(job, scenario: scenario, deadline: deadline, upload: { [uploader] artifacts in
                        for artifact in artifacts {
                            guard await uploader.upload(artifact, job: job.job, attempt: job.attempt) else { return }
                        }
                    }, emit: { [outbox] in outbox.emit($0) })
                } else {
                    outbox.emit([.result(JobResult(job: job.job, attempt: job.attempt, status: .errored,
                                                   failure: Failure(step: 0, message: "ASSIGN named a scenario this worker never received"),
                                                   durationMicros: 0))])
                }
                jobDone(key)
            }
            // Unless the job already finished (and removed its slot), keep its task so CANCEL can reach it.
            state.withLock { s in
                if s.running[key] != nil { s.running[key]?.task = task }
            }
        }
    }

    private func jobDone(_ key: Key) {
        let grant = state.withLock { s -> Bool in
            s.running[key] = nil
            s.finished += 1
            return !s.draining && !s.closed
        }
        if grant { outbox.grant(1) }
        pump()
    }
}
