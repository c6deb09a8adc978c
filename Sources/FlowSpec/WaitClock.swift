/// The time source of a registry's waits and of step durations.
///
/// `ClockWaitClock` adapts any Swift `Clock` (the system's continuous clock by default; a test may inject its
/// own); `VirtualClock` runs simulated time for headless registries so a 15-second timeout costs no wall time.
public protocol WaitClock: Sendable {
    /// Time elapsed on this clock since its origin.
    func now() -> Duration

    /// Suspends until `signal`'s generation moves past `generation` or this clock reaches `deadline`,
    /// whichever comes first. Returns early without error; throws only on cancellation.
    func waitForChange(of signal: ChangeSignal, after generation: UInt64, deadline: Duration) async throws
}

/// A `WaitClock` over an injected Swift `Clock` whose durations are `Duration`.
public struct ClockWaitClock<C: Clock>: WaitClock where C.Duration == Duration {
    private let clock: C
    private let origin: C.Instant

    public init(_ clock: C) {
        self.clock = clock
        self.origin = clock.now
    }

    public func now() -> Duration { origin.duration(to: clock.now) }

    public func waitForChange(of signal: ChangeSignal, after generation: UInt64, deadline: Duration) async throws {
        let until = origin.advanced(by: deadline)
        let clock = self.clock
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await signal.waitForChange(after: generation) }
            group.addTask {
                // A timeout is the one place a timed sleep is right: it bounds the wait, it does not replace it.
                try? await clock.sleep(until: until, tolerance: nil)
            }
            _ = try await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }
}

/// The default wait clock: the system's continuous clock.
public enum SystemWaitClock {
    public static let shared: any WaitClock = ClockWaitClock(ContinuousClock())
}
