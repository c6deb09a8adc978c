/// Second faults (pure; docs/ISOLATE.md, "The algorithm", step 9): a failing configuration a confirmed combination
/// explains may hold another failure-inducing combination that no other failing configuration shows (overlapping
/// faults: the plan ran the second only beside the first). With every failure explained and budget left, its best
/// untried candidate that shares a value with the confirmation (a value in one interaction is the likeliest in
/// another) is tried too.
enum SecondFaults {
    /// Per deterministic failing configuration that a confirmed combination explains: its best candidate (in rank
    /// order) that `untried` allows, that shares a value with such a confirmation, and is neither a part nor a whole
    /// of one.
    static func candidates(failing: [[String: String]], confirmed: [Combination], ranking: SuspicionRanking,
                           untried: (Combination) -> Bool) -> [Combination]
    {
        var out: [Combination] = []
        for configuration in failing {
            let holding = confirmed.filter { $0.isContained(in: configuration) }
            guard !holding.isEmpty else { continue }
            let next = ranking.suspects(in: configuration).first { s in
                let c = s.combination
                return untried(c)
                    && holding.allSatisfy { h in !h.isSubset(of: c) && !c.isSubset(of: h) }
                    && holding.contains { h in h.pairs.contains { c.pairs.contains($0) } }
            }
            if let next { out.append(next.combination) }
        }
        return out
    }
}
