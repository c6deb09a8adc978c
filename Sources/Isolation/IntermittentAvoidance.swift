/// What a follow-up of an intermittent suspect moves besides what every follow-up moves (docs/ISOLATE.md, "The
/// algorithm", step 6): a failing one confirms the suspect only when nothing else in it is suspect.
extension IsolationEvidence {
    /// The failing source jobs that hold intermittent suspect `target`: their other values come late in its
    /// follow-up, since a larger combination of theirs holding `target` may be what failed (a flaky three-value fault
    /// fails its pair's follow-up whenever that holds the third value). For a single value, only the values whose pair
    /// with it no job passed: its failing jobs hold nearly every value, and with all of them moved the shipped nightly
    /// left planted pairs unconfirmed (docs/ISOLATE.md, "Figures of 6 December 2026, late", and of 7 December 2026,
    /// afternoon); without any, a flaky pair's follow-up of its value held the pair's other value, failed, and
    /// confirmed the value (pairwise system 2020836).
    static func confounding(_ target: Combination, subject: Subject, in observations: [Observation]) -> [[String: String]] {
        let failing = observations.filter { $0.subject == subject && !$0.followUp && $0.verdict != .passed && target.isContained(in: $0.configuration) }
            .map(\.configuration)
        guard target.count == 1 else { return failing }
        let passing = observations.filter { $0.subject == subject && $0.verdict == .passed && target.isContained(in: $0.configuration) }
            .map(\.configuration)
        return failing.map { c in c.filter { axis, value in target[axis: axis] != nil || !passing.contains { $0[axis] == value } } }
    }
}
