import Foundation

/// Which failing configurations a round works on when the budget left cannot isolate them all (pure; docs/ISOLATE.md,
/// "The algorithm", step 8). Isolating a deterministic failure among `n` live candidates takes about log₂ n follow-ups
/// (each narrowing halves them, step 5) and one more to confirm; a round asks one follow-up per failing configuration,
/// so with the budget short of their sum every configuration got a few follow-ups and none was isolated (pairwise
/// system 2030015: three three-value faults in four failing configurations of eight values, a budget of 13, none
/// found). The cheapest configurations whose costs fit the budget left go first; the others wait for a later round.
enum BudgetFocus {
    /// The follow-ups a deterministic failure with `candidates` live candidates still to try is likely to need.
    static func cost(candidates n: Int) -> Int {
        n <= 1 ? 1 : Int(log2(Double(n)).rounded(.up)) + 1
    }

    /// The indices of `groups` to work on with `budget` follow-ups left: every one when their costs fit, else the
    /// cheapest (of equal costs, those with more failing configurations, then in order) while they fit, at least one.
    /// A group is the failing configurations one trial decides for; a nil cost (a failure no deterministic candidate
    /// is being isolated for) is always worked on and counts one follow-up.
    static func admitted(_ groups: [(cost: Int?, configurations: Int)], budget: Int) -> Set<Int> {
        let open = groups.filter { $0.cost == nil }.count
        let known = groups.enumerated().compactMap { i, g in g.cost.map { (index: i, cost: $0, size: g.configurations) } }
        var left = budget - open
        guard known.map(\.cost).reduce(0, +) > left else { return Set(groups.indices) }
        var out = Set(groups.indices.filter { groups[$0].cost == nil })
        let order = known.sorted { a, b in
            a.cost != b.cost ? a.cost < b.cost : a.size != b.size ? a.size > b.size : a.index < b.index
        }
        for g in order {
            guard g.cost <= left || out.count == open else { break }
            out.insert(g.index)
            left -= g.cost
        }
        return out
    }

    /// The unexplained failing configurations of `session` its next round works on, with `left` follow-ups left: a
    /// deterministic failure costs about log₂ of its best-ranked live candidates still to try (those held by as many
    /// failing configurations as its best), plus one, and configurations whose best candidate is the same share that
    /// cost.
    static func focused(_ session: IsolationSession, left: Int) -> Set<IsolationKey> {
        typealias Trial = IsolationTrial
        var groups: [(keys: [IsolationKey], cost: Int?)] = []
        var place: [Combination: Int] = [:]
        for key in session.subjects.flatMap({ s in session.unexplained(s).map { IsolationKey(subject: s, configuration: $0) } }) {
            let done = session.tries[key.subject] ?? [:]
            let open = session.isDeterministic(key) ? session.ranking(key.subject).suspects(in: key.configuration).filter {
                (done[Trial(combination: $0.combination, intermittent: false)] ?? 0) < session.settings.triesPerCandidate
            } : []
            guard let best = open.first else { groups.append(([key], nil)); continue }
            if let i = place[best.combination] { groups[i].keys.append(key); continue }
            place[best.combination] = groups.count
            groups.append(([key], cost(candidates: open.prefix { $0.failing == best.failing }.count)))
        }
        return Set(admitted(groups.map { ($0.cost, $0.keys.count) }, budget: left).flatMap { groups[$0].keys })
    }
}
