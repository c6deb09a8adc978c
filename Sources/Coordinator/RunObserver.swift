import FlowVocabulary

/// A job that reached its final outcome, as a run's observers see it.
public struct FinishedJob: Sendable, Hashable {
    public var id: String
    public var outcome: JobOutcome

    public init(id: String, outcome: JobOutcome) {
        self.id = id
        self.outcome = outcome
    }
}

/// A connected worker and the jobs it holds (running or queued on it), for a live view.
public struct WorkerActivity: Sendable, Hashable {
    public var name: String
    /// Job ids, the first ``listLimit`` of them in plan order.
    public var jobs: [String]
    /// How many jobs it holds in all.
    public var held: Int

    /// The most job ids listed per worker.
    public static let listLimit = 16
}

/// What a `CoordinatorServer` tells an observer, one batch at a time.
public struct RunEvents: Sendable {
    /// Jobs that became final since the last batch, in the order they did.
    public var finished: [FinishedJob]
    public var progress: RunProgress
    /// The workers and their jobs: set on ticks (every `tickInterval`), nil in the other batches.
    public var workers: [WorkerActivity]?
    /// True once every job is final (sent once).
    public var complete: Bool

    public init(finished: [FinishedJob], progress: RunProgress, workers: [WorkerActivity]?, complete: Bool) {
        self.finished = finished
        self.progress = progress
        self.workers = workers
        self.complete = complete
    }
}

/// Watches a run from the coordinator's loop thread (a live view). Implementations must return at once and never
/// block: they are called on the loop that serves the workers. Keep the events and hand them to your own thread.
///
/// The server calls ``onRunEvents(_:)`` at most once per read batch and once per tick, never per job.
public protocol RunObserver: Sendable {
    func onRunEvents(_ events: RunEvents)
}
