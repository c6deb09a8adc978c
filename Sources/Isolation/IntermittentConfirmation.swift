/// Deciding a failing follow-up that kept an intermittent suspect (docs/ISOLATE.md, "The algorithm", step 7): does it
/// confirm the suspect, a part of it, or nothing? On a session's evidence.
struct IntermittentConfirmation {
    let session: IsolationSession

    /// The part of intermittent suspect `target` that explains its failing follow-up: one tried already as a suspect,
    /// whose jobs without `target` still fail (``IsolationEvidence/Record/stillFails(_:without:)``), isolated as in
    /// ``isolatesIntermittent(_:in:subject:ranking:)`` (a flaky value whose follow-ups passed left only its pairs).
    func intermittentPart(of target: Combination, in configuration: [String: String], subject: Subject,
                          ranking: SuspicionRanking) -> Combination?
    {
        Combination.subsets(of: target.values, maxSize: target.count - 1).sorted().first { part in
            (session.tries[subject]?[IsolationTrial(combination: part, intermittent: true)] ?? 0) > 0
                && session.record(subject).stillFails(part, without: target)
                && isolatesIntermittent(part, in: configuration, subject: subject, ranking: ranking)
        }
    }

    /// The intermittent candidate one value larger that a follow-up of intermittent suspect `target` must not hold to
    /// decide it (``LargerCandidates/ambiguous``), under a 3-wise plan; nil otherwise.
    func ambiguousPair(of target: Combination, subject: Subject, ranking: SuspicionRanking) -> Combination? {
        guard IsolationEvidence.overlapRules(candidates: session.settings.maxSize), target.count == 1 else { return nil }
        let record = session.record(subject)
        return LargerCandidates(of: target, ranking: ranking, record: record, background: record.background(without: target)).ambiguous
    }

    /// Whether a failing follow-up that kept intermittent suspect `target` holds nothing else suspect (step 7): no
    /// deterministic candidate that a failure `target` cannot explain needs (a live candidate made only of failures
    /// that hold `target`, or that a confirmation explains, is no rival: an intermittent fault's outright failures
    /// leave theirs live too), and no other combination most of whose other jobs failed and whose failures also stand
    /// out from the other jobs' (``IsolationEvidence/standsOut(_:background:smoothed:)``); and, under a 3-wise plan,
    /// `target`'s failures are not its deterministic candidates' one value larger (``LargerCandidates``).
    func isolatesIntermittent(_ target: Combination, in configuration: [String: String], subject: Subject,
                              ranking: SuspicionRanking) -> Bool
    {
        let record = session.record(subject)
        let tally = record.tallies { !target.isContained(in: $0) }
        let elsewhere = session.configurations(subject) { session.isDeterministic($0) }.filter { !target.isContained(in: $0) && !session.explained($0, subject) }
        let overlap = IsolationEvidence.overlapRules(candidates: session.settings.maxSize)
        let background = record.background(without: target)
        let larger = overlap ? LargerCandidates(of: target, ranking: ranking, record: record, background: background) : LargerCandidates()
        if larger.explain { return false } // no intermittent fault, whatever this follow-up holds
        if let s = larger.ambiguous, s.isContained(in: configuration) { return false } // the pair may be what failed
        // A larger suspect holding `target` that never passed explains the failure better, unless `target`'s jobs
        // without it (and `larger`'s) fail too, intermittently — or one does, when the larger one's jobs show
        // intermittency: two flaky jobs of a flaky value share some other value more often than not.
        return Combination.subsets(of: configuration, maxSize: session.settings.maxSize).allSatisfy { s in
            if target.isSubset(of: s) {
                guard s != target else { return true }
                guard let t = session.tallies[subject]?[s], IsolationEvidence.suspicious(t), t.passing == 0 else { return true }
                return record.failsWithout(target, s, besides: larger.candidates)
                    || t.intermittent > 0 && (record.tally(of: target, without: s)?.failing ?? 0) > 0
            }
            let rival = ranking.live.contains(s) && elsewhere.contains { s.isContained(in: $0) }
            guard !rival, let t = tally[s], IsolationEvidence.suspicious(t) else { return !rival }
            return !IsolationEvidence.standsOut(t, background: background.without(t), smoothed: false)
        }
    }

    /// The smallest proper part of `combination` that is an intermittent suspect not yet tried out, if any
    /// (``IsolationEvidence/Record/suspectPart(of:untried:)``).
    func suspectPart(of combination: Combination, subject: Subject) -> Combination? {
        session.record(subject).suspectPart(of: combination) {
            (session.tries[subject]?[IsolationTrial(combination: $0, intermittent: true)] ?? 0) < session.settings.intermittentTries
        }
    }
}
