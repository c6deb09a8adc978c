/// The seam between a scenario and the thing it drives: one registry per UI (a headless model, a device).
///
/// Implementation requirements:
/// - `execute(_:)` performs exactly one step against the UI and returns when the step's effect is done.
///   It throws to fail the step; the runner stops the scenario at the first failure.
/// - A `verb:target` the registry does not wire must throw `StepError.unknownStep(step)` — never pass
///   silently, so a scenario cannot reference machinery that does not exist.
/// - `wait` and `assert` must wait for a condition, never sleep for a fixed time: use `ConditionWaiter` with
///   the registry's `WaitClock`, and call `ChangeSignal.notify()` whenever observable state changes, so a
///   wait resumes when something changed rather than on a poll.
/// - Honour task cancellation (the runner cancels a step that exceeds its timeout or when a job is cancelled):
///   long waits must be cancellable (every wait in this module is).
/// - A registry instance serves one scenario run at a time; build a fresh one per job (its state is the app's).
public protocol AsyncStepRegistry: Sendable {
    /// Performs one step.
    /// - Throws: `StepError` (or any error) to fail the step.
    func execute(_ step: Step) async throws

    /// The clock the registry's waits run on; the runner measures step durations on it.
    /// Headless registries return a `VirtualClock`, so waits cost no wall time. Default: the system clock.
    var waitClock: any WaitClock { get }
}

extension AsyncStepRegistry {
    public var waitClock: any WaitClock { SystemWaitClock.shared }
}

/// Why a step failed.
public enum StepError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The registry does not wire this `verb:target`.
    case unknownStep(Step)
    /// A wait or assert did not see its condition before the deadline.
    case conditionTimedOut(description: String, after: Duration)
    /// An assertion about the UI's state did not hold.
    case assertionFailed(String)
    /// The step's argument cannot be used.
    case invalidArgument(String)
    /// Any other failure the registry reports.
    case failed(String)
    /// The machinery under the registry failed (its browser or device died): not a result of the scenario. The
    /// worker reports the attempt as lost; the coordinator runs it again, preferably elsewhere, without using a
    /// retry, and quarantines a job whose attempts are lost 3 times in a row.
    case infrastructure(String)

    public var description: String {
        switch self {
        case .unknownStep(let step): "unknown step '\(step.key)': the registry does not wire it"
        case .conditionTimedOut(let what, let after): "timed out after \(after.secondsText) waiting for \(what)"
        case .assertionFailed(let message): "assertion failed: \(message)"
        case .invalidArgument(let message): "invalid argument: \(message)"
        case .failed(let message): message
        case .infrastructure(let message): "infrastructure fault: \(message)"
        }
    }
}
