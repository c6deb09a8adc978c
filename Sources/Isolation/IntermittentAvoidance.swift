/// What a follow-up of an intermittent suspect moves besides what every follow-up moves (docs/ISOLATE.md, "The
/// algorithm", step 6): a failing one confirms the suspect only when nothing else in it is suspect.
extension IsolationEvidence {
    /// The failing source jobs that hold intermittent suspect `target`: their other values come late in its
    /// follow-up, since a larger combination of theirs holding `target` may be what failed (a flaky three-value fault
    /// fails its pair's follow-up whenever that holds the third value). For a single value, only the values whose pair
    /// with it no job passed: its failing jobs hold nearly every value, and with all of them moved the shipped nightly
    /// left planted pairs unconfirmed (docs/ISOLATE-FIGURES.md, "Figures of 6 December 2026, late", and of 7 December 2026,
    /// afternoon); without any, a flaky pair's follow-up of its value held the pair's other value, failed, and
    /// confirmed the value (pairwise system 2020836). And the values every source job of it that shows intermittency
    /// holds (``sharedByIntermittentJobs(_:subject:in:)``).
    static func confounding(_ target: Combination, subject: Subject, in observations: [Observation]) -> [[String: String]] {
        let failing = observations.filter { $0.subject == subject && !$0.followUp && $0.verdict != .passed && target.isContained(in: $0.configuration) }
            .map(\.configuration)
        guard target.count == 1 else { return failing }
        let passing = observations.filter { $0.subject == subject && $0.verdict == .passed && target.isContained(in: $0.configuration) }
            .map(\.configuration)
        let shared = sharedByIntermittentJobs(target, subject: subject, in: observations)
        return failing.map { c in
            c.filter { axis, value in target[axis: axis] != nil || !passing.contains { $0[axis] == value } || shared[axis] == value }
        }
    }

    /// The values (other than `target`'s) that every source job holding `target` that shows intermittency holds — a
    /// flaky job, or a failing one whose configuration also passed — when there are two such jobs or more: a flaky
    /// pair whose jobs passed now and then is such a value with it. Pairwise system 2020831: `a1=v3 + a2=v1` flaky,
    /// six of `a1=v3`'s seven jobs held `a2=v1` (two of them passed, so the pair was no confounding pair), its three
    /// flaky jobs all did; the value's first follow-up held `a2=v1` too, failed, and confirmed `a1=v3`.
    static func sharedByIntermittentJobs(_ target: Combination, subject: Subject, in observations: [Observation]) -> [String: String] {
        let own = observations.filter { $0.subject == subject && target.isContained(in: $0.configuration) }
        // A configuration that passed in one job and failed in another is mixed (`mixed` of ``showsIntermittency``).
        let passed = Set(own.filter { $0.verdict == .passed }.map(\.configuration))
        let showing = own.filter { !$0.followUp && showsIntermittency($0.verdict, $0.configuration, mixed: passed) }
            .map(\.configuration)
        guard var shared = showing.first, showing.count >= 2 else { return [:] }
        for c in showing.dropFirst() { shared = shared.filter { c[$0.key] == $0.value } }
        return shared.filter { target[axis: $0.key] == nil }
    }
}
