import FlowVocabulary

/// A worker connection, as the scheduler knows it (the shell maps connections to these ids).
public struct WorkerID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: WorkerID, b: WorkerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "w\(rawValue)" }
}

/// What the scheduler needs to know of a job: what can run it and how long it is expected to take.
public struct SchedulableJob: Sendable, Hashable {
    /// The registry that runs the job; only workers that advertise it receive it.
    public var registry: String
    /// Labels a worker must carry (`os=linux`, `gpu=yes`).
    public var requiredLabels: [String: String]
    /// From history (median of past durations); new jobs get the median over known jobs.
    public var expectedDuration: Duration

    public init(registry: String, requiredLabels: [String: String] = [:], expectedDuration: Duration = .zero) {
        self.registry = registry
        self.requiredLabels = requiredLabels
        self.expectedDuration = expectedDuration
    }
}

/// Tunables of the scheduler, with their defaults.
public struct SchedulerSettings: Sendable, Hashable {
    /// Extra attempts after a failed or timed-out one (the matrix's `retries`). Default 0.
    public var retries: Int = 0
    /// Stop dispatching after the first job fails for good. Default false.
    public var failFast: Bool = false
    /// A job's time limit on a worker. Default 5 minutes.
    public var jobTimeout: Duration = .seconds(300)
    /// Extra time on a lease beyond the job timeout before the coordinator cancels it. Default 5 s.
    public var leaseGrace: Duration = .seconds(5)
    /// A worker silent for this long is considered dead. Default 15 s.
    public var heartbeatTimeout: Duration = .seconds(15)
    /// A job whose attempts killed this many workers in a row is quarantined. Default 3.
    public var quarantineAfterWorkerLosses: Int = 3
    /// Most jobs in one ASSIGN batch. Default 512.
    public var maximumBatch: Int = 512
    /// Most outstanding credit per advertised slot, so a buggy or hostile worker cannot take the whole queue.
    /// Default 64.
    public var maximumCreditPerSlot: Int = 64
    /// How much expected work a worker may hold queued per slot beyond the job each slot runs. Short jobs are
    /// pipelined deeply (up to `maximumCreditPerSlot` per slot); jobs longer than this get none queued (a slot
    /// pulls its next job when it frees), so a worker never sits on work another could start. Default 50 ms.
    public var queuedWorkPerSlot: Duration = .milliseconds(50)
    /// Jobs expected to take at least this long are taken back from a worker that has not started them when
    /// another capable worker has a free slot (work stealing, protocol version 3). Default 20 ms.
    public var stealingThreshold: Duration = .milliseconds(20)
    /// Whether the depth follows expected durations (`queuedWorkPerSlot`) and idle workers steal. False feeds
    /// every worker as deep as its credit allows (up to `maximumCreditPerSlot`) and never takes jobs back: the
    /// previous release's behaviour, kept for comparison benchmarks. Default true.
    public var adaptiveFeeding = true
    /// Most advertised slots per worker that the scheduler believes (a larger HELLO is clamped). Default 1,024.
    public var maximumSlots: Int = 1024

    public init(
        retries: Int = 0, failFast: Bool = false, jobTimeout: Duration = .seconds(300), leaseGrace: Duration = .seconds(5),
        heartbeatTimeout: Duration = .seconds(15), quarantineAfterWorkerLosses: Int = 3, maximumBatch: Int = 512,
        maximumCreditPerSlot: Int = 64, queuedWorkPerSlot: Duration = .milliseconds(50)
    ) {
        self.queuedWorkPerSlot = queuedWorkPerSlot
        self.maximumCreditPerSlot = max(1, maximumCreditPerSlot)
        self.retries = retries
        self.failFast = failFast
        self.jobTimeout = jobTimeout
        self.leaseGrace = leaseGrace
        self.heartbeatTimeout = heartbeatTimeout
        self.quarantineAfterWorkerLosses = quarantineAfterWorkerLosses
        self.maximumBatch = maximumBatch
    }
}

/// One job handed to a worker: the job's index in the run's job list and the attempt number (1-based).
public struct Assignment: Sendable, Hashable {
    public var job: Int
    public var attempt: Int

    public init(job: Int, attempt: Int) {
        self.job = job
        self.attempt = attempt
    }
}

/// A job's final outcome, as the scheduler decided it.
public struct JobEnd: Sendable, Hashable {
    public var outcome: JobOutcome
    /// Attempts made in this session (the shell adds attempts of an earlier session on resume).
    public var attempts: Int
    /// Why the scheduler decided it without a deciding result (quarantine, dispatch stopped, abort), if so.
    public var reason: String?

    public init(outcome: JobOutcome, attempts: Int, reason: String? = nil) {
        self.outcome = outcome
        self.attempts = attempts
        self.reason = reason
    }
}

/// What the scheduler asks its shell to do.
public enum SchedulerDirective: Sendable, Hashable {
    /// Send these jobs to the worker (one ASSIGN frame).
    case assign(WorkerID, [Assignment])
    /// Tell the worker to stop an attempt (lease expired, fail-fast, abort).
    case cancel(WorkerID, Assignment, reason: String)
    /// Ask the worker to give back these attempts if they have not started (REVOKE): an idle worker can run them.
    case revoke(WorkerID, [Assignment])
    /// Record an attempt's end. `superseded`: a duplicate or late result of an attempt that no longer counts.
    /// `decided`: the job's final outcome when this attempt's end decided it (no separate `jobFinished` follows).
    case attemptEnded(Assignment, worker: WorkerID?, status: AttemptStatus, superseded: Bool, decided: JobEnd?)
    /// A job reached its final outcome without an attempt ending now (queued when dispatch stopped, or its
    /// retry was queued when fail-fast stopped it).
    case jobFinished(job: Int, JobEnd)
    /// Close a worker's connection (missed heartbeats).
    case disconnect(WorkerID, reason: String)
    /// Every job has its final outcome.
    case runComplete
}
