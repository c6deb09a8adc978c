import MatrixPlan

/// Builds a follow-up configuration (pure): it keeps one suspicious combination and moves every other axis to the
/// least suspicious value the matrix allows, so that — when it can — the configuration holds no other candidate (not
/// even a larger one holding the kept combination, unless fewer failing configurations hold that one).
/// The matrix's excludes and constraints are MatrixPlan's own (``MatrixSpace/canComplete(_:useConstraints:)``):
/// every partial assignment is checked to still extend to a valid configuration.
public struct FollowUpGenerator: Sendable {
    /// The matrix's axes with their values, in file order.
    public let axes: [Axis]
    public let space: MatrixSpace
    /// Full configurations the search may look at per follow-up before it keeps the best one found.
    public var searchLimit = 400
    /// What another candidate that an earlier follow-up of the same combination held (`avoiding`) counts for, against
    /// 1 for a new one: a second follow-up that holds the candidate that kept the first from deciding decides nothing
    /// more (what both hold besides `keep` still holds it), one holding a new candidate does (their common values no
    /// longer hold either). Before, the fewest candidates won outright and a matrix with few values gave the second
    /// follow-up the first one's configuration again (a made-up model of five axes, `c=true + e=e2` never confirmed).
    static let sharedOther = 1_000

    /// The axes every configuration of the matrix has the same value of (``constantAxes(of:)``): the session never
    /// sees them, follow-ups leave them out, and the job a follow-up becomes gets them back.
    public let constants: [String: String]

    public init(matrix: MatrixFile) {
        axes = matrix.axes
        space = MatrixSpace(matrix)
        constants = Self.constantAxes(of: matrix)
    }

    /// The axes with one value that no include gives another (`"direction": ["auto"]`), with that value. Every job of
    /// the run holds it, so it cannot tell one failure from another: kept as evidence, a web run's `header-mirrored`
    /// was confirmed to fail "intermittently with direction=auto" — in every configuration the matrix has, that is
    /// (7 December 2026, the web shop under a flaky network).
    public static func constantAxes(of matrix: MatrixFile) -> [String: String] {
        var out: [String: String] = [:]
        for axis in matrix.axes where axis.values.count == 1 {
            let value = axis.values[0]
            if !matrix.include.contains(where: { $0[axis.name].map { $0 != value } ?? false }) { out[axis.name] = value }
        }
        return out
    }

    /// Whether a configuration is one the matrix allows (its excludes and constraints); the constant axes may be left
    /// out.
    public func allows(_ configuration: [String: String]) -> Bool {
        let configuration = configuration.merging(constants) { own, _ in own }
        return space.canComplete(space.partial(configuration)) && axes.allSatisfy { a in
            configuration[a.name].map { a.values.contains($0) } ?? false
        }
    }

    /// A configuration that holds `keep`, with the other axes on the values `ranking` finds least suspicious (ties
    /// broken by `seed`), avoiding other candidates; nil when the matrix allows no configuration with `keep`.
    /// - Parameter maxSize: the largest candidate, to count the other candidates a configuration holds.
    ///   - avoiding: earlier follow-ups of the same combination: their other values come last, so a second follow-up
    ///     differs from the first wherever the matrix allows (what both hold besides `keep` is then all they share).
    ///   - confounding: the failing jobs that made `keep` an intermittent suspect: their other values come after those
    ///     of `avoiding` (a larger combination of theirs holding `keep` may be what failed).
    ///   - undecided: earlier follow-ups of the same intermittent suspect that failed and confirmed nothing: their
    ///     values among the confounding ones come after the other confounding values.
    ///   - wholes: count the larger candidates holding `keep` that `avoiding` held like any other they held, though
    ///     fewer failing configurations hold them: for the second try of a confirmation one of them may be what
    ///     failed (``SecondTries``).
    public func configuration(keeping keep: Combination, ranking: SuspicionRanking, maxSize: Int, seed: UInt64,
                              avoiding: [[String: String]] = [], confounding: [[String: String]] = [],
                              undecided: [[String: String]] = [], wholes: Bool = false) -> [String: String]?
    {
        var partial = keep.values.merging(constants) { own, _ in own }
        guard space.canComplete(space.partial(partial)) else { return nil }
        var rng = SplitMix64(seed: seed)
        let free = axes.filter { keep[axis: $0.name] == nil && constants[$0.name] == nil }
        // Per free axis, its values safest first (seeded ties); a value earlier follow-ups held comes after the others,
        // then a value the confounding jobs held (one an undecided follow-up held too after the others: an
        // intermittent suspect's follow-up that failed holding a confounding value, and so decided nothing, was made
        // again the same), and a value that is itself a candidate (every job holding it failed) comes last.
        let orders: [[String]] = free.map { axis in
            let jitter = Dictionary(uniqueKeysWithValues: axis.values.map { ($0, rng.next()) })
            func weight(_ v: String) -> Double {
                let tier = ranking.live.contains(Combination([axis.name: v])) ? 4
                    : confounding.contains { $0[axis.name] == v } ? (undecided.contains { $0[axis.name] == v } ? 3 : 2)
                    : avoiding.contains { $0[axis.name] == v } ? 1 : 0
                return ranking.weight(axis: axis.name, value: v) + Double(tier) * 1_000_000
            }
            return axis.values.sorted { a, b in
                let (wa, wb) = (weight(a), weight(b))
                return wa != wb ? wa < wb : (jitter[a] ?? 0) < (jitter[b] ?? 0)
            }
        }
        var best: (config: [String: String], others: Int)?
        var visited = 0
        let depth = Dictionary(uniqueKeysWithValues: free.enumerated().map { ($0.element.name, $0.offset) })
        // The other candidates `c` holds, counted up to `limit` (a count that reaches the best one's cannot win:
        // the search keeps the first configuration with the fewest, so stopping there changes nothing), with the
        // depths of the free axes they use: those values alone make any configuration that shares them no better.
        func others(_ c: [String: String], limit: Int) -> (count: Int, axes: Set<Int>) {
            var n = 0
            var axes: Set<Int> = []
            Combination.forEachSubset(of: c, maxSize: maxSize) { s in
                let shared = avoiding.contains { s.isContained(in: $0) }
                if ranking.live.contains(s) && !s.isSubset(of: keep)
                    && !(keep.isSubset(of: s) && ranking.failingCount(s) < ranking.failingCount(keep) && !(shared && wholes)) {
                    n += shared ? Self.sharedOther : 1
                    for p in s.pairs { if let d = depth[p.axis] { axes.insert(d) } }
                }
                return n < limit
            }
            return (n, axes)
        }
        // Depth-first, axis by axis, with conflict-directed backjumping (Prosser): a configuration that is no better
        // than the best one returns the depths of the axes its other candidates use, and the search goes back to the
        // deepest of them at once instead of trying every value of the axes after it, which change nothing. (Plain
        // depth-first search spent its 400 configurations on the last axes while the candidate it could not avoid sat
        // on an early one: a constraint on an early axis forced a fault's third value into a pair's follow-up, which
        // failed and confirmed the pair, a part of the fault.) Nil means stop: a configuration with no other candidate
        // was found, or the limit was reached.
        func search(_ i: Int) -> Set<Int>? {
            if i == free.count {
                visited += 1
                let (n, axes) = others(partial, limit: best?.others ?? Int.max)
                if n < (best?.others ?? Int.max) { best = (partial, n) }
                return n == 0 || visited >= searchLimit ? nil : axes
            }
            var conflict: Set<Int> = []
            for value in orders[i] {
                partial[free[i].name] = value
                guard space.canComplete(space.partial(partial)) else {
                    conflict.formUnion(0..<i)  // a constraint or an exclude: the culprit is some earlier axis
                    continue
                }
                guard let below = search(i + 1) else { return nil }
                if !below.contains(i) {
                    partial[free[i].name] = nil
                    return below  // this axis's value plays no part: jump back over it
                }
                conflict.formUnion(below.subtracting([i]))
            }
            partial[free[i].name] = nil
            return conflict
        }
        _ = search(0)
        return best?.config.filter { constants[$0.key] == nil }
    }
}
