/// Second faults (pure; docs/ISOLATE.md, "The algorithm", step 9): a failing configuration a confirmed combination
/// explains may hold another failure-inducing combination that no other failing configuration shows (overlapping
/// faults: the plan ran the second only beside the first). With every failure explained and budget left, each such
/// configuration is **probed** (in at most half the budget left a round: ``IsolationSession/nextRound()``): one
/// follow-up keeps all of it but one value of the confirmation (moved to a safe value), so it asks of every candidate
/// left at once whether a second fault is there. A passing probe clears them
/// all; a failing one is a new failure to explain. Where no probe can be made, its best untried candidate that shares
/// a value with the confirmation (a value in one interaction is the likeliest in another) is tried alone.
enum SecondFaults {
    /// What to try next for an explained failing configuration.
    struct Next: Equatable {
        /// The combination the follow-up keeps: most of `probed`, or one candidate.
        var keep: Combination
        /// The failing configuration a probe breaks the confirmations of; nil for a single candidate.
        var probed: [String: String]?
    }

    /// Per deterministic failing configuration that a confirmed combination explains and that still holds a live
    /// candidate no confirmation holds whole: when a confirmation of two or more values explains it (a single value
    /// fails every job it is in, and probing each of its configurations spends the budget for nothing) — a
    /// deterministic one of `confirmed` or, since 7 December 2026, an intermittent one of `intermittent` (a flaky
    /// pair's failing job also held a deterministic pair that no other job showed: pairwise system 2020866) — a probe
    /// that keeps it all but an axis of each confirmation it holds
    /// (the axes chosen so that the probe keeps the most such candidates, among keeps `untried` allows); else its best
    /// candidate (in rank order) that `untried` allows, that shares a value with a deterministic such confirmation (a
    /// single candidate beside a flaky fault proves little by failing), and is neither a part nor a whole of one.
    static func next(failing: [[String: String]], confirmed: [Combination], intermittent: [Combination] = [],
                     ranking: SuspicionRanking, untried: (Combination) -> Bool) -> [Next]
    {
        var out: [Next] = []
        for configuration in failing {
            let held = confirmed.filter { $0.isContained(in: configuration) }
            // An intermittent confirmation of two values or more explains a configuration that failed every attempt
            // one time in four: the rest of it is probed too. Not beside a single value, which fails wherever it is.
            let flaky = intermittent.filter { $0.isContained(in: configuration) }
            let holding = (held + flaky).contains { $0.count == 1 } ? held : held + flaky
            guard !holding.isEmpty else { continue }
            let open = ranking.suspects(in: configuration).map(\.combination).filter { c in
                holding.allSatisfy { h in !h.isSubset(of: c) && !c.isSubset(of: h) }
            }
            guard !open.isEmpty else { continue }
            if holding.contains(where: { $0.count > 1 }),
               let keep = probe(configuration, breaking: holding, open: open, untried: untried) {
                out.append(Next(keep: keep, probed: configuration))
                continue
            }
            let next = open.first { c in untried(c) && held.contains { h in h.pairs.contains { c.pairs.contains($0) } } }
            if let next { out.append(Next(keep: next, probed: nil)) }
        }
        return out
    }

    /// The part of `configuration` a probe keeps: without one axis of each combination of `holding` (so none is
    /// held), chosen among each axis of the first one (the others broken greedily) to keep the most of `open`.
    static func probe(_ configuration: [String: String], breaking holding: [Combination], open: [Combination],
                      untried: (Combination) -> Bool) -> Combination?
    {
        var best: (keep: Combination, kept: Int)?
        for first in holding[0].pairs.map(\.axis) {
            var moved: Set<String> = [first]
            for h in holding.dropFirst() where !h.pairs.contains(where: { moved.contains($0.axis) }) {
                // The axis of `h` that touches the fewest open candidates.
                let axis = h.pairs.map(\.axis).min { a, b in
                    let (na, nb) = (open.filter { $0[axis: a] != nil }.count, open.filter { $0[axis: b] != nil }.count)
                    return na != nb ? na < nb : a < b
                }
                if let axis { moved.insert(axis) }
            }
            let keep = Combination(configuration.filter { !moved.contains($0.key) })
            let kept = open.filter { !$0.pairs.contains { moved.contains($0.axis) } }.count
            guard kept > 0, !keep.values.isEmpty, untried(keep) else { continue }
            if best.map({ kept > $0.kept }) ?? true { best = (keep, kept) }
        }
        return best?.keep
    }
}
