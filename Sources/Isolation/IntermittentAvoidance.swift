/// What a follow-up of an intermittent suspect moves besides what every follow-up moves (docs/ISOLATE.md, "The
/// algorithm", step 6): a failing one confirms the suspect only when nothing else in it is suspect.
extension IsolationEvidence {
    /// The failing source jobs that hold intermittent suspect `target`, when it has two values or more: their other
    /// values come late in its follow-up, since a larger combination of theirs holding `target` may be what failed (a
    /// flaky three-value fault fails its pair's follow-up whenever that holds the third value). Not for a single
    /// value: its failing jobs hold nearly every value, and with them moved too the shipped nightly left a planted
    /// pair unconfirmed (docs/ISOLATE.md, "Figures of 6 December 2026, late").
    static func confounding(_ target: Combination, subject: Subject, in observations: [Observation]) -> [[String: String]] {
        guard target.count > 1 else { return [] }
        return observations.filter { $0.subject == subject && !$0.followUp && $0.verdict != .passed && target.isContained(in: $0.configuration) }
            .map(\.configuration)
    }
}
