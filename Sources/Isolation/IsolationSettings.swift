/// The tunables of an ``IsolationSession``, with their defaults.
public struct IsolationSettings: Sendable {
    /// The largest candidate (the plan's strength + 1; 3 for full plans).
    public var maxSize: Int
    /// Follow-up jobs at most (repeats included).
    public var budget: Int
    /// Repeats of a flaky job no other job corroborates before its failure counts: a repeat that fails an attempt
    /// makes it an intermittent failure to explain; passing repeats make it noise (its passes still count).
    public var flakyRepeats = 1
    /// Tries of one deterministic candidate whose follow-up failed while holding other candidates.
    public var triesPerCandidate = 2
    /// Follow-ups of one intermittent suspect before it is dropped: a fault failing half its jobs passes all four one
    /// time in sixteen (with three, one in eight, and its pairs were confirmed in its place; docs/ISOLATE.md).
    public var intermittentTries = 4
    public var seed: UInt64

    public init(maxSize: Int, budget: Int, seed: UInt64) {
        self.maxSize = max(1, maxSize)
        self.budget = max(0, budget)
        self.seed = seed
    }
}
