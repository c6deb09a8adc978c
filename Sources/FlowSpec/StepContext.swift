import Synchronization

/// What happened during one step besides its outcome: interruptions handled and log lines.
/// The runner creates one per step and binds it to `StepContext.current` while the step runs.
public final class StepRecorder: Sendable {
    private struct State {
        var interruptions: [String] = []
        var log: [String] = []
    }

    private let state = Mutex(State())

    public init() {}

    public func recordInterruption(_ name: String) { state.withLock { $0.interruptions.append(name) } }
    public func log(_ line: String) { state.withLock { $0.log.append(line) } }

    public var interruptions: [String] { state.withLock { $0.interruptions } }
    public var logLines: [String] { state.withLock { $0.log } }
}

/// The step being run, reachable from deep inside a registry without plumbing.
public enum StepContext {
    /// The recorder of the step running in this task, when a runner runs one.
    @TaskLocal public static var current: StepRecorder?

    /// The index of the step running in this task.
    @TaskLocal public static var stepIndex: Int?

    /// Appends a line to the running step's log (a no-op outside a step).
    public static func log(_ line: String) { current?.log(line) }
}
