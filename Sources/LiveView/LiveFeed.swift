import Coordinator
import Synchronization
import UVTransport

/// The coordinator's side of the live view: a `RunObserver` that only appends what it is told to a
/// `Mutex`-protected inbox (one lock per batch or tick, no allocation per job beyond the array's growth, no wake-up).
/// The live server's loop takes the inbox every ``LiveSettings/flushInterval``, so however many results arrive,
/// clients get one coalesced event per interval, and nothing the HTTP side does can slow the coordinator's loop.
public final class LiveFeed: RunObserver {
    struct Inbox {
        var finished: [FinishedJob] = []
        var progress: RunProgress?
        var workers: [WorkerActivity]?
        var complete = false
    }

    private let inbox = Mutex(Inbox())

    public init() {}

    public func onRunEvents(_ events: RunEvents) {
        inbox.withLock { inbox in
            inbox.finished.append(contentsOf: events.finished)
            inbox.progress = events.progress
            if let workers = events.workers { inbox.workers = workers }
            if events.complete { inbox.complete = true }
        }
    }

    /// Everything since the last call (finished jobs in order; the latest progress and workers).
    func take() -> Inbox {
        inbox.withLock { inbox in
            let taken = inbox
            inbox.finished.removeAll(keepingCapacity: true)
            inbox.progress = nil
            inbox.workers = nil
            return taken
        }
    }
}

/// Tunables of the live view, with documented defaults.
public struct LiveSettings: Sendable {
    /// How often new results, progress and workers go out to clients, coalesced (default 100 ms).
    public var flushInterval: Duration = .milliseconds(100)
    /// The shortest time between two recomputations of the failures by axis (default 2 s), done off the loop.
    public var pivotInterval: Duration = .seconds(2)
    /// Request bounds and the per-client outbound bound (``HTTPLimits``; 1 MiB, 64 connections, 10 s to send a head).
    public var limits = HTTPLimits()

    public init() {}
}
