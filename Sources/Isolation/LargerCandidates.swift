/// An intermittent suspect's deterministic candidates one value larger, under a 3-wise plan (docs/ISOLATE.md, "A value
/// with a set of another axis's values"): do they explain its failures?
///
/// A fault of a value with a set of another axis's values (`direction=pseudo-double` in each of three narrow windows
/// of seven, beside a flaky network) looks intermittent through the value, and fails without each pair: without this a
/// failing follow-up of the value (in a wide window, on the flaky network) confirmed it as intermittent, before its
/// pairs were confirmed or after. A flaky value's pairs are held by many jobs of a 3-wise plan and are rarely live, and
/// its jobs without them still fail half the time.
struct LargerCandidates: Sendable {
    /// The live candidates the suspect and one more value make, held by more than one failing configuration, whose
    /// added value is no live candidate on its own (beside a deterministic value, every pair of a flaky value with it
    /// never passes); and the confirmed deterministic combinations holding the suspect.
    var candidates: Set<Combination> = []
    /// Whether they explain the suspect's failures: its jobs that hold none of them (nor a confirmed combination) do
    /// not stand out from the jobs without it (Laplace's rule, as for a suspect;
    /// ``IsolationEvidence/standsOut(_:background:smoothed:)``).
    var explain = false

    /// None: the rule applies under 3-wise plans only (``IsolationEvidence/overlapRules(candidates:)``).
    init() {}

    /// `target`'s larger candidates in `ranking` and `record`; `background` is the tally of the jobs without `target`
    /// (``IsolationEvidence/Record/background(without:)``).
    init(of target: Combination, ranking: SuspicionRanking, record: IsolationEvidence.Record, background: IsolationEvidence.Tally) {
        var larger = record.deterministic.filter { target.isSubset(of: $0) && $0 != target }, ruledOut = Set<Combination>()
        var rest = IsolationEvidence.Tally()
        for job in record.jobs where target.isContained(in: job.configuration) && !record.isExplained(job.configuration) {
            var held = false
            for (axis, value) in job.configuration where target[axis: axis] == nil {
                let s = target.adding(axis: axis, value: value)
                if larger.contains(s) { held = true } else if !ruledOut.contains(s) {
                    if ranking.live.contains(s) && ranking.failingCount(s) > 1
                        && !ranking.live.contains(Combination(sorted: [Combination.Pair(axis: axis, value: value)]))
                    {
                        larger.insert(s)
                        held = true
                    } else {
                        ruledOut.insert(s)
                    }
                }
            }
            if !held { rest.count(job.verdict) }
        }
        candidates = larger
        explain = !larger.isEmpty && !IsolationEvidence.standsOut(rest, background: background, smoothed: true)
    }
}
