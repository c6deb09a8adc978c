/// An intermittent suspect's candidates one value larger, deterministic and (beside those) intermittent, under a
/// 3-wise plan (docs/ISOLATE.md, "A value with a set of another axis's values"): do they explain its failures?
///
/// A fault of a value with a set of another axis's values (`direction=pseudo-double` in each of three narrow windows
/// of seven, beside a flaky network) looks intermittent through the value, and fails without each pair: without this a
/// failing follow-up of the value (in a wide window, on the flaky network) confirmed it as intermittent, before its
/// pairs were confirmed or after. A flaky value's pairs are held by many jobs of a 3-wise plan and are rarely live, and
/// its jobs without them still fail half the time.
struct LargerCandidates: Sendable {
    /// The live candidates the suspect and one more value make, held by more than one failing configuration, whose
    /// added value is no live candidate on its own (beside a deterministic value, every pair of a flaky value with it
    /// never passes); the confirmed deterministic combinations holding the suspect; and, beside these, the
    /// intermittent candidates one value larger (``intermittentCandidate(of:in:among:record:split:)``).
    var candidates: Set<Combination> = []
    /// Whether they explain the suspect's failures: its jobs that hold none of them (nor a confirmed combination) do
    /// not stand out from the jobs without it (Laplace's rule, as for a suspect;
    /// ``IsolationEvidence/standsOut(_:background:smoothed:)``) — with intermittent candidates among them, those jobs
    /// are likelier the background's than a fault's.
    var explain = false
    /// Without deterministic candidates, the intermittent candidate one value larger whose jobs stand out from the
    /// suspect's others (``intermittentCandidate(of:in:among:record:split:)``), if any: it explains nothing away (a
    /// flaky value's jobs split by an axis fail more on one side by chance), but a follow-up of the suspect that holds
    /// it cannot tell the two apart, so it moves that value (``IsolationEvidence/confounding(_:subject:in:)``) and
    /// confirms nothing when it fails holding it. A flaky pair with no deterministic pair beside its value (system
    /// 3020797: `a1=v0 + a2=v4`) was confirmed as the value by a follow-up that held the pair.
    var ambiguous: Combination?

    /// None: the rule applies under 3-wise plans only (``IsolationEvidence/overlapRules(candidates:)``).
    init() {}

    /// `target`'s larger candidates in `ranking` and `record`; `background` is the tally of the jobs without `target`
    /// (``IsolationEvidence/Record/background(without:)``).
    init(of target: Combination, ranking: SuspicionRanking, record: IsolationEvidence.Record, background: IsolationEvidence.Tally) {
        var larger = record.deterministic.filter { target.isSubset(of: $0) && $0 != target }, ruledOut = Set<Combination>()
        var rest: [(configuration: [String: String], verdict: Verdict)] = []
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
            if !held { rest.append(job) }
        }
        // The axes on which a deterministic candidate holds `target` with one of their values.
        let split = Set(larger.flatMap { $0.pairs.filter { target[axis: $0.axis] == nil }.map(\.axis) })
        let start = rest
        var picked = false
        // Only beside a deterministic candidate: a flaky value's jobs split by an axis fail more on one side by chance
        // (system 3010833: its pair with `a11=v1` was picked, and the value was explained away while a second flaky
        // value and a deterministic one made every job fail a third of the time).
        while !larger.isEmpty, let s = Self.intermittentCandidate(of: target, in: rest, among: start, record: record, split: split) {
            larger.insert(s)
            rest.removeAll { s.isContained(in: $0.configuration) }
            picked = true
        }
        if larger.isEmpty && target.count == 1 {
            ambiguous = Self.intermittentCandidate(of: target, in: rest, among: start, record: record, split: [])
        }
        var tally = IsolationEvidence.Tally()
        for job in rest { tally.count(job.verdict) }
        candidates = larger
        // With intermittent candidates picked, the jobs left must look likelier background than fault: a flaky value
        // whose jobs on one value of an axis happened to fail more than on the other still fails on the other.
        explain = !larger.isEmpty && (picked ? IsolationEvidence.evidence(tally, background: background, smoothed: true) <= 0
            : !IsolationEvidence.standsOut(tally, background: background, smoothed: true))
    }

    /// Jobs of a suspect's that its deterministic larger candidates leave, all holding one more value of an axis one of
    /// them splits the suspect on, at which that value with the suspect is an intermittent candidate
    /// (``intermittentCandidate(of:in:among:record:split:)``).
    static let leftOver = 6

    /// The intermittent candidate one value larger than `target` whose jobs among `rest` (`target`'s jobs no larger
    /// candidate holds yet) stand out most from the others of `start` (those no deterministic candidate holds: a fixed
    /// background, for the rest left after each pick fails less and less, and a flaky value's pairs that happened to
    /// fail more were picked one after another until it was explained away), showing intermittency, and need `target`:
    /// the added value's jobs without `target` are no suspect, and their failures with it stand out from theirs too;
    /// or, when every job left holds one more value of an axis in `split` (on which a deterministic candidate holds
    /// `target`), that value with `target`. Nil when none does. A flaky pair beside two deterministic ones of the same
    /// value (`a2=v1` with `a6=v3` flaky, `a3=v0` and `a6=v2` not) left the value failing in most of its jobs, and a
    /// follow-up of it holding the flaky pair confirmed it. A flaky value's pairs fail as often as its other jobs, and none stands out; beside another flaky
    /// value its pairs with that value fail more often, but that value fails without it too.
    private static func intermittentCandidate(of target: Combination, in rest: [(configuration: [String: String], verdict: Verdict)],
                                              among start: [(configuration: [String: String], verdict: Verdict)],
                                              record: IsolationEvidence.Record, split: Set<String>) -> Combination?
    {
        var all = IsolationEvidence.Tally(), left = IsolationEvidence.Tally(), by: [Combination: IsolationEvidence.Tally] = [:]
        for job in start { all.count(job.verdict) }
        for job in rest {
            let shows = IsolationEvidence.showsIntermittency(job.verdict, job.configuration, mixed: record.mixed)
            left.count(job.verdict)
            for (axis, value) in job.configuration where target[axis: axis] == nil {
                let s = target.adding(axis: axis, value: value)
                by[s, default: .init()].count(job.verdict)
                if shows { by[s]?.intermittent += 1 }
            }
        }
        var best: (combination: Combination, evidence: Double)?
        for (s, t) in by.sorted(by: { $0.key < $1.key })
        where IsolationEvidence.evidenced(t) && (IsolationEvidence.standsOut(t, background: all.without(t), smoothed: true)
            || t.failing == left.failing && t.passing == left.passing && t.failing + t.passing >= Self.leftOver
                && s.pairs.contains { target[axis: $0.axis] == nil && split.contains($0.axis) }) {
            let e = IsolationEvidence.evidence(t, background: all.without(t), smoothed: true)
            guard e > best?.evidence ?? -.infinity else { continue }
            let added = Combination(sorted: s.pairs.filter { target[axis: $0.axis] == nil })
            var alone = IsolationEvidence.Tally()
            for job in record.jobs where added.isContained(in: job.configuration) && !target.isContained(in: job.configuration)
                && !record.isExplained(job.configuration) { alone.count(job.verdict) }
            if !IsolationEvidence.suspicious(alone) && IsolationEvidence.standsOut(t, background: alone, smoothed: true) { best = (s, e) }
        }
        return best?.combination
    }
}
