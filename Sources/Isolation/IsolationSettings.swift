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
    /// The largest intermittent suspect; nil for the default of the plan's strength
    /// (``IsolationEvidence/maximumSize(candidates:)``). A full plan runs every three values in many jobs, so there a
    /// flaky three-value fault can be told apart from its pairs by failure shares, and `flowmatrix isolate` sets 3.
    public var intermittentSize: Int?
    public var seed: UInt64

    public init(maxSize: Int, budget: Int, seed: UInt64) {
        self.maxSize = max(1, maxSize)
        self.budget = max(0, budget)
        self.seed = seed
    }
}

extension IsolationSettings {
    /// The largest intermittent suspect: ``intermittentSize``, or the default for candidates of ``maxSize`` values.
    var suspectSize: Int { min(maxSize, intermittentSize ?? IsolationEvidence.maximumSize(candidates: maxSize)) }
}
