/// Deciding a failing follow-up that kept an intermittent suspect (docs/ISOLATE.md, "The algorithm", step 7): does it
/// confirm the suspect, a part of it, or nothing?
extension IsolationSession {
    /// The proper part of intermittent suspect `target` that explains a failing follow-up which kept `target`:
    /// a part already tried as an intermittent suspect, whose jobs without `target` still fail intermittently
    /// (``IsolationEvidence/Record/stillFails(_:without:)``), and nothing else in `configuration` is suspect (the part
    /// isolated as in ``isolatesIntermittent(_:in:subject:ranking:)``). A flaky value whose own follow-ups happened to
    /// pass left only pairs holding it to try, and their failing follow-ups confirmed nothing, or the pair.
    func intermittentPart(of target: Combination, in configuration: [String: String], subject: Subject,
                          ranking: SuspicionRanking) -> Combination?
    {
        Combination.subsets(of: target.values, maxSize: target.count - 1).sorted().first { part in
            (tries[subject]?[Trial(combination: part, intermittent: true)] ?? 0) > 0
                && record(subject).stillFails(part, without: target)
                && isolatesIntermittent(part, in: configuration, subject: subject, ranking: ranking)
        }
    }

    /// Whether a failing follow-up that kept intermittent suspect `target` holds nothing else suspect: no
    /// deterministic candidate that a failure `target` cannot explain needs, and no other combination most of whose
    /// other jobs failed (jobs holding `target` left out: their failures may be its own) — under a 3-wise plan, one
    /// whose failures also stand out from the other jobs' (``IsolationEvidence/Record/standsOut(_:without:smoothed:)``).
    ///
    /// A live candidate made only of failures that hold `target`, or that a confirmed combination explains, is no
    /// rival: the candidates of the configurations an intermittent fault failed outright (every attempt) are live
    /// too, and one of them in each follow-up blocked every confirmation of a flaky value.
    func isolatesIntermittent(_ target: Combination, in configuration: [String: String], subject: Subject,
                              ranking: SuspicionRanking) -> Bool
    {
        let record = self.record(subject)
        let tally = record.tallies { !target.isContained(in: $0) }
        let elsewhere = configurations(subject) { isDeterministic($0) }.filter { !target.isContained(in: $0) && !explained($0, subject) }
        // A larger suspect holding `target` that never passed (a deterministic pair seen through one of its values)
        // explains the failure better, unless `target`'s jobs without it fail too, intermittently. When the larger
        // one's jobs show intermittency (it is no deterministic fault), one failing job of `target` without it is
        // enough: two flaky jobs of a flaky value share some other value more often than not.
        return Combination.subsets(of: configuration, maxSize: settings.maxSize).allSatisfy { s in
            if target.isSubset(of: s) {
                guard s != target, let t = tallies[subject]?[s], IsolationEvidence.suspicious(t), t.passing == 0 else { return true }
                return record.failsWithout(target, s) || t.intermittent > 0 && (record.tally(of: target, without: s)?.failing ?? 0) > 0
            }
            let rival = ranking.live.contains(s) && elsewhere.contains { s.isContained(in: $0) }
            guard !rival, let t = tally[s], IsolationEvidence.suspicious(t) else { return !rival }
            return IsolationEvidence.overlapRules(candidates: settings.maxSize) && !record.standsOut(t, without: target, smoothed: false)
        }
    }
}
