import Synchronization

/// A clock that moves only when a test says so: hand `now` to a pure core or a shell as its time source.
package final class ManualClock: Sendable {
    private let current: Mutex<Duration>

    package init(_ start: Duration = .zero) { current = Mutex(start) }

    /// The time now.
    package var now: Duration { current.withLock { $0 } }

    /// The clock as the closure shells take (`WorkerSession(clock:)`, `CoordinatorEngine(now:)`).
    package var reading: @Sendable () -> Duration { { [self] in now } }

    /// Moves the clock forward by `step`.
    package func advance(by step: Duration) { current.withLock { $0 += step } }
}
