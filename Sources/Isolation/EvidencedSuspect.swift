/// The evidenced intermittent suspect a failing configuration tries first (docs/ISOLATE.md, "The algorithm", step 4).
extension IsolationSession {
    /// The evidenced intermittent suspect of a failing configuration (``IsolationEvidence/evidencedSuspect(in:tally:intermittentJobs:maxSize:untried:)``):
    /// tried before the deterministic candidates, which cannot explain an intermittent fault and would spend the budget.
    /// A suspect with an evidenced part still to try is passed over when the part's jobs without the suspect's other
    /// values fail too (the part explains the same failures with fewer values), or when the suspect itself has only
    /// ``IsolationEvidence/minimumFailing`` failing jobs (``IsolationEvidence/fewFailing(_:)``: they share its other
    /// values by chance; under ``IsolationEvidence/overlapRules(candidates:)`` only, as is the rule that a suspect's
    /// failures stand out from the other jobs', ``IsolationEvidence/standsOut(_:background:smoothed:)``).
    func evidencedSuspect(_ subject: Subject, _ failing: [String: String], untried: (Trial) -> Bool) -> Trial? {
        let tally = tallies[subject] ?? [:]
        func open(_ c: Combination) -> Bool { untried(Trial(combination: c, intermittent: true)) }
        let overlap = IsolationEvidence.overlapRules(candidates: settings.maxSize)
        let record = self.record(subject)
        let background = overlap ? record.background() : IsolationEvidence.Tally()
        return IsolationEvidence.evidencedSuspect(in: failing, tally: tally, intermittentJobs: intermittentJobs[subject] ?? 0,
                                                  maxSize: settings.maxSize, size: settings.suspectSize) { c in
            open(c) && (!overlap || tally[c].map { IsolationEvidence.standsOut($0, background: background.without($0), smoothed: true) } ?? false)
                && !Combination.subsets(of: c.values, maxSize: c.count - 1).contains { part in
                IsolationEvidence.evidenced(tally[part]) && open(part)
                    && (record.failsWithout(part, c, evidenced: false) || overlap && IsolationEvidence.fewFailing(tally[c]))
            }
        }.map { Trial(combination: $0, intermittent: true) }
    }
}
