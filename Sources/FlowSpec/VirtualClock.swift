import Synchronization

/// Simulated time for headless registries: a discrete-event clock.
///
/// The app model schedules its asynchronous work (a network completion after 400 ms, a timer refresh) as events
/// on the clock. A wait runs the due events in time order until its condition holds or its deadline is reached,
/// then jumps to the deadline: no wall time passes, and a rerun replays the same events in the same order.
///
/// Requirement: everything that can change a headless model's state while a step waits must be scheduled here.
public final class VirtualClock: WaitClock, Sendable {
    /// An action that runs when simulated time reaches it.
    public typealias Action = @Sendable () async -> Void

    private struct Event {
        var time: Duration
        var sequence: UInt64
        var action: Action
    }

    private struct State {
        var now: Duration = .zero
        var sequence: UInt64 = 0
        /// Kept sorted by (time, sequence): events at the same time run in the order scheduled.
        var events: [Event] = []
    }

    private let state = Mutex(State())

    public init() {}

    public func now() -> Duration { state.withLock { $0.now } }

    /// How many events are waiting to run.
    public var pendingEventCount: Int { state.withLock { $0.events.count } }

    /// Schedules `action` to run `delay` after now (a negative delay runs it at the next wait).
    public func schedule(after delay: Duration, _ action: @escaping Action) {
        state.withLock { s in
            s.sequence &+= 1
            let event = Event(time: s.now + max(delay, .zero), sequence: s.sequence, action: action)
            let index = s.events.firstIndex { ($0.time, $0.sequence) > (event.time, event.sequence) } ?? s.events.count
            s.events.insert(event, at: index)
        }
    }

    /// Moves time forward by `delta`, running every event that falls due, in order.
    public func advance(by delta: Duration) async {
        await advance(to: now() + delta)
    }

    /// Moves time forward to `target`, running every event due by then, in order.
    public func advance(to target: Duration) async {
        while let action = popEvent(notAfter: target) { await action() }
        state.withLock { s in s.now = max(s.now, target) }
    }

    /// Runs events due no later than `deadline` one at a time, returning as soon as `signal` changes;
    /// with nothing left to run before the deadline, time jumps to the deadline.
    public func waitForChange(of signal: ChangeSignal, after generation: UInt64, deadline: Duration) async throws {
        while signal.generation == generation {
            try Task.checkCancellation()
            guard let action = popEvent(notAfter: deadline) else {
                state.withLock { s in s.now = max(s.now, deadline) }
                return
            }
            await action()
        }
    }

    private func popEvent(notAfter limit: Duration) -> Action? {
        state.withLock { s -> Action? in
            guard let first = s.events.first, first.time <= limit else { return nil }
            s.events.removeFirst()
            s.now = max(s.now, first.time)
            return first.action
        }
    }
}
