import Synchronization

/// What happened during the running step besides its outcome: interruptions handled and log lines.
///
/// The runner binds one recorder to `StepContext.current` for a whole scenario run (one task-local binding per
/// run, not one per step) and takes each step's record from it when the step ends (`endStep()`), so what a step
/// records never leaks into the next step's record.
public final class StepRecorder: Sendable {
    private struct State {
        var stepIndex: Int?
        var interruptions: [String] = []
        var log: [String] = []
        var notes: [String] = []
    }

    private let state: Mutex<State>

    /// - Parameter stepIndex: the step being recorded, when known.
    public init(stepIndex: Int? = nil) { state = Mutex(State(stepIndex: stepIndex)) }

    public func recordInterruption(_ name: String) { state.withLock { $0.interruptions.append(name) } }
    public func log(_ line: String) { state.withLock { $0.log.append(line) } }
    /// A sentence the step's record carries as its message even when the step passes (a failing step's message is
    /// its failure; the registry puts what matters of its notes there itself).
    public func note(_ sentence: String) { state.withLock { $0.notes.append(sentence) } }

    public var interruptions: [String] { state.withLock { $0.interruptions } }
    public var logLines: [String] { state.withLock { $0.log } }

    /// The index of the step being recorded.
    public var stepIndex: Int? { state.withLock { $0.stepIndex } }

    /// Starts recording step `index` (what was recorded before is dropped).
    public func beginStep(_ index: Int) {
        state.withLock { s in
            s.stepIndex = index
            if !s.interruptions.isEmpty { s.interruptions = [] }
            if !s.log.isEmpty { s.log = [] }
            if !s.notes.isEmpty { s.notes = [] }
        }
    }

    /// Ends the running step: returns what it recorded and starts empty for the next one.
    public func endStep() -> (interruptions: [String], log: [String], notes: [String]) {
        state.withLock { s in
            defer {
                s.interruptions = []
                s.log = []
                s.notes = []
            }
            return (s.interruptions, s.log, s.notes)
        }
    }
}

/// The step being run, reachable from deep inside a registry without plumbing.
public enum StepContext {
    /// The recorder of the scenario run in this task, when a runner runs one.
    @TaskLocal public static var current: StepRecorder?

    /// The index of the step running in this task.
    public static var stepIndex: Int? { current?.stepIndex }

    /// Appends a line to the running step's log (a no-op outside a step).
    public static func log(_ line: String) { current?.log(line) }

    /// Gives the running step a message even if it passes (a no-op outside a step; `StepRecorder.note`).
    public static func note(_ sentence: String) { current?.note(sentence) }
}
