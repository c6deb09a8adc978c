/// What to try next for a failing configuration, on a session's evidence (docs/ISOLATE.md, "The algorithm", steps 4–6):
/// the evidenced intermittent suspect, the best deterministic candidate (or the part of it held back), or the best
/// intermittent suspect.
struct TrialChoice {
    typealias Trial = IsolationTrial
    let session: IsolationSession

    /// What to try for a failing configuration: its best deterministic candidate (or the intermittent part holding it
    /// back), else its best intermittent suspect; nil when everything has been tried.
    func next(_ subject: Subject, _ failing: [String: String], ranking: SuspicionRanking) -> Trial? {
        let done = session.tries[subject] ?? [:]
        func untried(_ t: Trial) -> Bool {
            (done[t] ?? 0) < (t.intermittent ? session.settings.intermittentTries : session.settings.triesPerCandidate)
        }
        // A value that fails intermittently across the run (``RunNoise``) is tried first once every failure of the
        // subject left to explain holds one: its failure in this configuration, every attempt or not, is then likeliest
        // its noise. (Tried first while other failures are left, it explained the one job of a planted pair of the
        // nightly that ran on the flaky network, and the pair was lost.)
        if let noisy = session.noise.value(in: failing),
           session.unexplained(subject).allSatisfy({ session.noise.value(in: $0) != nil }) {
            let t = Trial(combination: noisy, intermittent: true)
            if untried(t) { return t }
        }
        let deterministic = session.isDeterministic(IsolationKey(subject: subject, configuration: failing))
        let suspects = deterministic ? ranking.suspects(in: failing) : []
        // An evidenced intermittent suspect goes first unless a deterministic candidate explains more failures, or holds
        // it, fails in several configurations, never intermittently, and leaves it no suspect without its other values.
        if let evidenced = evidencedSuspect(subject, failing, untried: untried),
           (session.tallies[subject]?[evidenced.combination]?.failing ?? 0) >= (suspects.first?.failing ?? 0),
           !(suspects.first.map { d in d.failing > 1 && (session.tallies[subject]?[d.combination]?.intermittent ?? 0) == 0
               && session.record(subject).outranks(d.combination, evidenced.combination) } ?? false) { return evidenced }
        if deterministic {
            if let keep = TieNarrowing.keep(failing, suspects) {
                let t = Trial(combination: keep, intermittent: false)
                if untried(t) { return t }
            }
            for s in suspects where session.noise.value(in: s.combination.values) == nil {
                if let part = session.heldBack[subject]?[s.combination] {
                    let t = Trial(combination: part, intermittent: true)
                    if untried(t) { return t }
                    continue
                }
                let t = Trial(combination: s.combination, intermittent: false)
                if untried(t) { return t }
            }
        }
        return IsolationEvidence.bestSuspect(in: failing, tally: session.tallies[subject] ?? [:], size: session.settings.suspectSize) {
            untried(Trial(combination: $0, intermittent: true))
        }.map { Trial(combination: $0, intermittent: true) }
    }

    /// The evidenced intermittent suspect of a failing configuration (``IsolationEvidence/evidencedSuspect(in:tally:intermittentJobs:maxSize:untried:)``):
    /// tried before the deterministic candidates, which cannot explain an intermittent fault and would spend the budget.
    /// A suspect with an evidenced part still to try is passed over when the part's jobs without the suspect's other
    /// values fail too (the part explains the same failures with fewer values), or when the suspect itself has only
    /// ``IsolationEvidence/minimumFailing`` failing jobs (``IsolationEvidence/fewFailing(_:)``: they share its other
    /// values by chance; under ``IsolationEvidence/overlapRules(candidates:)`` only, as is the rule that a suspect's
    /// failures stand out from the other jobs', ``IsolationEvidence/standsOut(_:background:smoothed:)``).
    func evidencedSuspect(_ subject: Subject, _ failing: [String: String], untried: (Trial) -> Bool) -> Trial? {
        let tally = session.tallies[subject] ?? [:]
        func open(_ c: Combination) -> Bool { untried(Trial(combination: c, intermittent: true)) }
        let overlap = IsolationEvidence.overlapRules(candidates: session.settings.maxSize)
        let record = session.record(subject)
        let background = overlap ? record.background() : IsolationEvidence.Tally()
        return IsolationEvidence.evidencedSuspect(in: failing, tally: tally, intermittentJobs: session.intermittentJobs[subject] ?? 0,
                                                  maxSize: session.settings.maxSize, size: session.settings.suspectSize) { c in
            open(c) && (!overlap || tally[c].map { IsolationEvidence.standsOut($0, background: background.without($0), smoothed: true) } ?? false)
                && !Combination.subsets(of: c.values, maxSize: c.count - 1).contains { part in
                IsolationEvidence.evidenced(tally[part]) && open(part)
                    && (record.failsWithout(part, c, evidenced: false) || overlap && IsolationEvidence.fewFailing(tally[c]))
            }
        }.map { Trial(combination: $0, intermittent: true) }
    }
}
