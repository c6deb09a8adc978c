import FlowSpec
import FlowVocabulary
import Wire

/// One result a registry's step stands for (a test of a command job's JUnit files).
public struct NamedResult: Sendable, Hashable {
    /// The result's name, the step key it is journaled under (`test:<classname>.<name>` for JUnit tests).
    public var name: String
    /// `passed`, `failed`, `skipped`, `errored` or `timedOut`.
    public var status: StepOutcome
    public var duration: Duration
    /// Why it did not pass.
    public var message: String?

    public init(name: String, status: StepOutcome, duration: Duration, message: String? = nil) {
        self.name = name
        self.status = status
        self.duration = duration
        self.message = message
    }
}

/// A registry whose one step stands for many results: after the scenario ran, `JobExecutor` reports them as further
/// steps (indices after the declared ones), each carrying its name (`Wire.NamedStep`), so the journal, `show`, the
/// report and `diff` see each result as a step; a step that failed in one attempt and passed in the next is why a job
/// is flaky.
///
/// Implementation requirements: `namedResults()` is called once per attempt, after the last step, from the job's task;
/// it returns the results in a stable order. A step that throws `StepError.conditionTimedOut` makes the attempt
/// `timedOut` (the registry enforced a time limit of its own), not `failed`.
public protocol NamedResultsProviding: Sendable {
    func namedResults() async -> [NamedResult]
}
