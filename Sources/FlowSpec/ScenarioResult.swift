import FlowVocabulary

/// The record of one step that ran.
public struct StepRecord: Sendable, Hashable {
    public var index: Int
    /// `"verb:target"`.
    public var key: String
    public var outcome: StepOutcome
    /// Measured on the registry's wait clock (simulated time for headless registries).
    public var duration: Duration
    /// The failure message, when the step did not pass; when it passed, what the registry noted
    /// (`StepContext.note`), if anything.
    public var message: String?
    /// Names of interruptions handled while the step ran, in order.
    public var interruptions: [String]
    /// Log lines the registry wrote during the step.
    public var log: [String]

    public init(
        index: Int, key: String, outcome: StepOutcome, duration: Duration, message: String? = nil,
        interruptions: [String] = [], log: [String] = []
    ) {
        self.index = index
        self.key = key
        self.outcome = outcome
        self.duration = duration
        self.message = message
        self.interruptions = interruptions
        self.log = log
    }
}

/// A scenario stopped at a step: which scenario, which step, and why.
public struct ScenarioFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var scenarioID: String
    public var stepIndex: Int
    public var stepKey: String
    public var outcome: StepOutcome
    public var message: String
    /// The registry's error, when it was a `StepError`.
    public var stepError: StepError?

    public var description: String { "\(scenarioID) step \(stepIndex + 1) (\(stepKey)): \(message)" }
}

/// The outcome of running one scenario.
public struct ScenarioResult: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        case passed
        case failed(ScenarioFailure)
        case cancelled
    }

    public var scenarioID: String
    public var outcome: Outcome
    /// One record per step that ran (steps after the first failure do not run).
    public var steps: [StepRecord]
    /// Sum of the step durations, on the registry's clock.
    public var duration: Duration

    public var passed: Bool {
        if case .passed = outcome { return true }
        return false
    }

    public var failure: ScenarioFailure? {
        if case .failed(let f) = outcome { return f }
        return nil
    }
}
