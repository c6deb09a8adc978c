/// Second tries of deterministic confirmations, once every failure is explained and budget is left (pure;
/// docs/ISOLATE.md, "The algorithm", step 9). A pass retracts the confirmation, and its failures are to explain again.
///
/// - A **single value** tried once: it explains every failing configuration holding it at once, so it wins over the
///   pairs that may be what failed (a three-value Boolean model with `x + y` and `!y + z` planted: `z` fails three of
///   its four configurations, and its one follow-up held `!y + z`).
/// - A **larger confirmation** each of whose failing follow-ups held a live candidate that holds it: it was confirmed
///   for explaining more failing configurations than that one, which may be what failed (pairwise system 2030039: the
///   faults `a0=v0 + a6=v6 + a7=v0` and `a0=v0 + a2=v0 + a6=v6` failed two configurations; their pair, held by both,
///   was tried in a follow-up that held `a7=v0`, failed, and was confirmed). Its second follow-up avoids the larger
///   candidates the first held (``FollowUpGenerator``, `wholes`). Only where no job of the subject showed
///   intermittency: a flaky pair confirmed by a follow-up that failed both attempts passes its second try half the
///   time, which retracted it.
enum SecondTries {
    /// The confirmations of `subject` to try a second time.
    static func next(_ session: IsolationSession, _ subject: Subject, ranking: SuspicionRanking) -> [Combination] {
        let done = session.tries[subject] ?? [:]
        let steady = session.showsNoIntermittency(subject)
        return session.confirmed.filter { c in
            c.subject == subject && !c.intermittent
                && (done[IsolationTrial(combination: c.combination, intermittent: false)] ?? 0) == 1
                && (c.combination.count == 1 || steady && isPart(c, session.observations, ranking: ranking))
        }.map(\.combination)
    }

    /// Whether each failing follow-up of a confirmation held a live candidate that holds it.
    static func isPart(_ c: IsolationConfirmation, _ observations: [Observation], ranking: SuspicionRanking) -> Bool {
        observations.filter { c.jobs.contains($0.jobID) }.allSatisfy { o in
            ranking.suspects(in: o.configuration).contains { $0.combination != c.combination && c.combination.isSubset(of: $0.combination) }
        }
    }
}
