/// Waits for a condition up to a timeout on a registry's `WaitClock`, resuming when its `ChangeSignal` fires
/// rather than on a fixed poll, and handling registered interruptions that appear meanwhile.
public struct ConditionWaiter: Sendable {
    public var clock: any WaitClock
    public var signal: ChangeSignal
    public var monitors: InterruptionMonitors?
    /// How often one interruption may be handled in a single wait before the wait fails (a handler that does not
    /// dismiss its interruption would otherwise loop forever).
    public var maximumRepeatsOfOneInterruption = 8

    public init(clock: any WaitClock, signal: ChangeSignal, monitors: InterruptionMonitors? = nil) {
        self.clock = clock
        self.signal = signal
        self.monitors = monitors
    }

    /// Waits until `condition` holds.
    /// - Parameters:
    ///   - description: what is awaited, for the failure message (`"catalog.title to exist"`).
    ///   - element: the awaited element's identifier: an interruption on that same element is not handled.
    ///   - timeout: how long to wait, on `clock`.
    /// - Throws: `StepError.conditionTimedOut` at the deadline; `CancellationError` when cancelled.
    public func wait(
        for description: String, element: String? = nil, timeout: Duration,
        until condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = clock.now() + timeout
        var handledCounts: [String: Int] = [:]
        while true {
            try Task.checkCancellation()
            let generation = signal.generation
            if try await condition() { return }
            if let monitors, let handled = try await monitors.handleFirstPresent(excluding: element) {
                StepContext.current?.recordInterruption(handled)
                StepContext.log("handled interruption '\(handled)' while waiting for \(description)")
                handledCounts[handled, default: 0] += 1
                if handledCounts[handled, default: 0] > maximumRepeatsOfOneInterruption {
                    throw StepError.failed("interruption '\(handled)' is still present after its handler ran \(maximumRepeatsOfOneInterruption) times")
                }
                continue
            }
            if clock.now() >= deadline { throw StepError.conditionTimedOut(description: description, after: timeout) }
            try await clock.waitForChange(of: signal, after: generation, deadline: deadline)
        }
    }
}
