/// What a follow-up of an intermittent suspect moves besides what every follow-up moves (docs/ISOLATE.md, "The
/// algorithm", step 6): a failing one confirms the suspect only when nothing else in it is suspect.
extension IsolationEvidence {
    /// The failing source jobs that hold intermittent suspect `target`: their other values come late in its
    /// follow-up, since a larger combination of theirs holding `target` may be what failed (a flaky three-value fault
    /// fails its pair's follow-up whenever that holds the third value).
    static func confounding(_ target: Combination, subject: Subject, in observations: [Observation]) -> [[String: String]] {
        observations.filter { $0.subject == subject && !$0.followUp && $0.verdict != .passed && target.isContained(in: $0.configuration) }
            .map(\.configuration)
    }

    /// The single values besides `target` that are intermittent suspects themselves: a failing follow-up that holds
    /// one confirms nothing, and moving only the confounding jobs' values pushed one flaky value's follow-up onto
    /// another flaky value.
    static func suspectValues(besides target: Combination, tally: [Combination: Tally]) -> Set<Combination> {
        Set(tally.filter { c, t in c.count == 1 && suspicious(t) && !c.isSubset(of: target) }.keys)
    }
}
