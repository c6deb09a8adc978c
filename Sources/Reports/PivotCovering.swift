/// The pivot's patterns: sequential covering over the groups, where an **exact** pattern — every job it newly
/// covers failed, and no other job of its scope (its scenario, or the run when it names none) failed — may also be
/// a set of values of one axis (`scenario=search + network ∈ {edge, offline}`), and ranks above a partial pattern that
/// explains no more failures. Exact patterns as simple as the chosen one over the same jobs are its alternatives:
/// the run cannot tell them apart.
enum PivotCovering {
    typealias Tallies = AxisPivot.Tallies
    typealias Replay = AxisPivot.Replay
    typealias Explanation = AxisPivot.Explanation
    typealias Group = AxisPivot.Group
    typealias Key = AxisPivot.Key
    typealias Tally = AxisPivot.Tally

    /// A candidate pattern: per axis the value ids it accepts (one, or a set), the scenario's first.
    struct Pattern: Hashable {
        var clauses: [[Int32]]

        /// Whether a job's profile falls in the pattern: it has one of each clause's values.
        func matches(_ profile: ArraySlice<Int32>) -> Bool {
            clauses.allSatisfy { clause in clause.contains { profile.contains($0) } }
        }

        /// Fewer axes first, then fewer values (a single value before a set).
        var complexity: (Int, Int) { (clauses.count, clauses.reduce(0) { $0 + $1.count }) }
    }

    /// What the covering found: the patterns in order, and the exact set groups it met (for the ranked list).
    typealias Covering = (explanations: [Explanation], extra: [Group])

    /// Sequential covering on `tallies` (counted down as patterns take their jobs).
    /// - Parameters:
    ///   - initial: every group's run-wide tally (the figures a pattern's group shows).
    ///   - totals: jobs with a verdict and failures of the whole run.
    static func cover(
        tallies: inout Tallies, source: Tallies.Source, values: [AxisValue], axes: [Int32], initial: PivotGroupCounts,
        totals: (jobs: Int, failures: Int)
    ) throws -> Covering {
        var remaining = totals
        var explanations: [Explanation] = []
        var patterns: [Pattern] = []
        var extra: [Group] = []
        let space = PatternSpace(values: values, axes: axes)
        func runWide(_ p: Pattern) -> Group {
            AxisPivot.group(p.clauses.flatMap { $0 }.map { values[Int($0)] }, space.tally(of: p, in: initial), totalFailures: totals.failures)
        }
        while explanations.count < AxisPivot.maxExplanations + AxisPivot.maxExtraExact, remaining.failures >= 2 {
            let partial = bestPartial(tallies.groups, remaining: remaining, values: values)
            let exact = space.exactCandidates(tallies.groups, remaining: remaining)
            let chosen: (pattern: Pattern, exact: Bool)
            if let e = exact.first, exactFirst(e, over: partial, in: space) {
                chosen = (e.pattern, true)
            } else if explanations.count >= AxisPivot.maxExplanations {
                break
            } else if let p = partial {
                chosen = (Pattern(clauses: p.key.ids.map { [$0] }), false)
            } else {
                break
            }
            var alternatives: [Group] = []
            if chosen.exact, let first = exact.first {
                let scope = space.scenario(of: first.pattern)
                for other in exact.dropFirst()
                where other.failures == first.failures && other.pattern.complexity == first.pattern.complexity
                    && space.scenario(of: other.pattern) == scope {
                    alternatives.append(runWide(other.pattern))
                }
                for e in exact where e.pattern.clauses.contains(where: { $0.count > 1 }) { extra.append(runWide(e.pattern)) }
            }
            let earlier = patterns
            let pattern = chosen.pattern
            patterns.append(pattern)
            let covered = try tallies.add(source, sign: -1) { profile in
                pattern.matches(profile) && !earlier.contains { $0.matches(profile) }
            }
            remaining.jobs -= covered.jobs
            remaining.failures -= covered.failures
            explanations.append(Explanation(group: runWide(pattern), explains: covered.failures, exact: chosen.exact,
                                            alternatives: Array(alternatives.prefix(maxAlternatives))))
        }
        return (explanations, extra)
    }

    /// Whether the covering takes the exact pattern before the best partial one: when it explains as many failures,
    /// or when most of the partial pattern's jobs pass (its rate among the jobs left is below
    /// ``partialPreferredRate``): "network=lte + registry=web (24 of 240 jobs fail)" explains less than the exact
    /// "scenario=cart-quantity + registry=web (9 of 9)", however many more failures it holds. A partial pattern in
    /// which most jobs fail ("locale=ar, 95 of 100") still comes first — unless it names no scenario and the exact
    /// pattern is a scenario with a part of its values (``narrows(_:_:in:)``).
    static func exactFirst(_ exact: PatternSpace.Exact, over partial: (key: Key, tally: Tally)?, in space: PatternSpace) -> Bool {
        guard let partial, partial.tally.failures > exact.failures else { return true }
        if narrows(exact.pattern, partial.key.ids, in: space) { return true }
        return Double(partial.tally.failures) < partialPreferredRate * Double(partial.tally.jobs)
    }

    /// Whether an exact pattern of one scenario explains its failures with fewer of a run-wide partial pattern's
    /// values (`scenario=delivery-estimate + network=edge`, exact, against `direction=pseudo-accented + network=edge`,
    /// 17 of 24 jobs failing). A pairwise plan runs every pair of values, so the jobs of two values that each fail
    /// some scenario — `network=edge` fails the delivery estimate, `direction=pseudo-accented` the cart's sentences —
    /// fail more often than either value's jobs, and the pair looked like the run's first pattern though no scenario
    /// needs both (found on the web shop's defect scenarios under a pairwise plan of four axes, 7 December 2026).
    /// The exact pattern goes first; the partial one comes next only if what is left of it still holds.
    static func narrows(_ exact: Pattern, _ partial: [Int32], in space: PatternSpace) -> Bool {
        guard partial.count >= 2, !partial.contains(where: { space.axes[Int($0)] == -1 }),
              space.scenario(of: exact) != nil else { return false }
        let own = exact.clauses.filter { !($0.count == 1 && space.axes[Int($0[0])] == -1) }
        return !own.isEmpty && own.count < partial.count && own.allSatisfy { $0.count == 1 && partial.contains($0[0]) }
    }

    /// A partial pattern that holds more failures than the best exact one comes first only when at least this share
    /// of its jobs fail.
    static let partialPreferredRate = 0.5

    /// At most this many values in a pattern's set of one axis.
    static let maxSetSize = 4

    /// At most this many alternatives per pattern.
    static let maxAlternatives = 4

    /// The group with the most failures beyond what its size predicts (weighted relative accuracy,
    /// `failures − jobs × (failures left / jobs left)`); ties by ``AxisPivot/rankedBefore(_:_:_:_:)``.
    private static func bestPartial(_ groups: PivotGroupCounts, remaining: (jobs: Int, failures: Int), values: [AxisValue])
        -> (key: Key, tally: Tally)?
    {
        let base = Double(remaining.failures) / Double(max(1, remaining.jobs))
        var best: (gain: Double, group: Group, key: Key, tally: Tally)?
        for (key, t) in groups where t.failures >= 2 && Double(t.failures) / Double(t.jobs) >= AxisPivot.minimumExplanationRate {
            let gain = Double(t.failures) - Double(t.jobs) * base
            if let b = best, gain < b.gain { continue }
            let candidate = AxisPivot.group(key.ids.map { values[Int($0)] }, t, totalFailures: remaining.failures)
            if let b = best, gain == b.gain, !AxisPivot.rankedBefore(candidate, b.group) { continue }
            best = (gain, candidate, key, t)
        }
        return best.map { ($0.key, $0.tally) }
    }

    /// The ranked groups with the exact value-set groups the covering met, in rank order, each label once.
    static func mergeRanked(_ ranked: [Group], _ extra: [Group]) -> [Group] {
        guard !extra.isEmpty else { return ranked }
        var seen = Set(ranked.map(\.label))
        var all = ranked
        // A value that does not narrow a set group (the same jobs without it) adds nothing, as for plain groups.
        let kept = extra.filter { g in
            !extra.contains { o in o.jobs == g.jobs && o.values.count < g.values.count && Set(o.values).isSubset(of: g.values) }
        }
        for g in kept where seen.insert(g.label).inserted { all.append(g) }
        return all.sorted { AxisPivot.rankedBefore($0, $1) }
    }

    /// The pattern language over interned values: which axis a value id belongs to, how a pattern's groups are keyed.
    struct PatternSpace {
        let values: [AxisValue]
        /// Per value id, its axis id (the scenario pseudo-axis is -1).
        let axes: [Int32]

        /// A candidate that is exact within its scope.
        struct Exact {
            var pattern: Pattern
            var failures: Int
            var label: String
        }

        /// The scenario value id a pattern names, or nil.
        func scenario(of p: Pattern) -> Int32? {
            p.clauses.first { $0.count == 1 && axes[Int($0[0])] == -1 }?.first
        }

        /// The pattern's clauses in profile order: the scenario first, then by axis name.
        func ordered(_ p: Pattern) -> Pattern {
            Pattern(clauses: p.clauses.sorted { a, b in precedes(a[0], b[0]) })
        }

        /// Profile order of two value ids of different axes.
        func precedes(_ a: Int32, _ b: Int32) -> Bool {
            let (x, y) = (axes[Int(a)], axes[Int(b)])
            if x == -1 || y == -1 { return x == -1 && y != -1 }
            return values[Int(a)].axis < values[Int(b)].axis
        }

        /// The tally key of value ids on different axes: the scenario first, then by axis name (profile order).
        func key(_ ids: [Int32]) -> Key? {
            let sorted = ids.sorted(by: precedes)
            switch sorted.count {
            case 1: return Key(a: sorted[0])
            case 2: return Key(a: sorted[0], b: sorted[1])
            case 3: return Key(a: sorted[0], b: sorted[1], c: sorted[2])
            default: return nil
            }
        }

        /// A pattern's tally: its group's, or the sum over the groups of its set's values.
        func tally(of p: Pattern, in groups: PivotGroupCounts) -> Tally {
            guard let setIndex = p.clauses.firstIndex(where: { $0.count > 1 }) else {
                return key(p.clauses.map { $0[0] }).flatMap { groups[$0] } ?? Tally()
            }
            let fixed = p.clauses.enumerated().filter { $0.offset != setIndex }.map { $0.element[0] }
            var sum = Tally()
            for id in p.clauses[setIndex] { if let k = key(fixed + [id]), let t = groups[k] { sum.add(t) } }
            return sum
        }

        /// Every pattern that is exact within its scope on `groups` with at least 2 failures: most failures first,
        /// then the simplest, then by label.
        func exactCandidates(_ groups: PivotGroupCounts, remaining: (jobs: Int, failures: Int)) -> [Exact] {
            func scopeFailures(_ scenario: Int32?) -> Int {
                scenario.map { groups[Key(a: $0)]?.failures ?? 0 } ?? remaining.failures
            }
            var found: [Exact] = []
            // Per scope (fixed value ids) and axis, the failing values of that axis: a set is exact only when each of
            // its values fails in every job of the scope, so a value with failures and passes rules the bucket out,
            // and values without failures take no part.
            var buckets: [SetScope: SetBucket] = [:]
            for (key, t) in groups where t.failures > 0 {
                let ids = key.ids
                let scenario = axes[Int(ids[0])] == -1 ? ids[0] : nil
                if t.failures >= 2, t.failures == t.jobs, t.failures == scopeFailures(scenario) {
                    let p = Pattern(clauses: ids.map { [$0] })
                    found.append(Exact(pattern: p, failures: t.failures, label: PivotCovering.label(ids.map { values[Int($0)] })))
                }
                // The key as one value of an axis within the scope of its other values (never the scenario alone
                // varied: a set of scenarios is not a pattern).
                for (i, id) in ids.enumerated() where axes[Int(id)] != -1 {
                    var scope = ids
                    scope.remove(at: i)
                    buckets[SetScope(scope: scope, axis: axes[Int(id)]), default: SetBucket()].add(id, t)
                }
            }
            for (bucket, entries) in buckets where !entries.partial && entries.ids.count >= 2 && entries.ids.count <= maxSetSize {
                let scope = bucket.ids
                let scenario = scope.first.flatMap { axes[Int($0)] == -1 ? $0 : nil }
                let sum = entries.sum
                guard sum.failures >= 2, sum.failures == scopeFailures(scenario) else { continue }
                // A set that holds every job of its scope is the scope itself (a simpler pattern).
                let scopeJobs = scope.isEmpty ? remaining.jobs : key(scope).flatMap { groups[$0]?.jobs } ?? 0
                guard sum.jobs < scopeJobs else { continue }
                let set = entries.ids.sorted { values[Int($0)] < values[Int($1)] }
                let p = ordered(Pattern(clauses: scope.map { [$0] } + [set]))
                found.append(Exact(pattern: p, failures: sum.failures,
                                   label: PivotCovering.label(p.clauses.flatMap { $0 }.map { values[Int($0)] })))
            }
            return found.sorted { a, b in
                if a.failures != b.failures { return a.failures > b.failures }
                if a.pattern.complexity != b.pattern.complexity { return a.pattern.complexity < b.pattern.complexity }
                return a.label < b.label
            }
        }
    }

    /// The scope of a value set: the values it keeps fixed (none, or one or two ids in profile order) and the axis
    /// whose values form the set.
    struct SetScope: Hashable {
        var scope: Key
        var axis: Int32

        init(scope: [Int32], axis: Int32) {
            self.scope = scope.isEmpty ? Key(a: -1) : scope.count == 1 ? Key(a: scope[0]) : Key(a: scope[0], b: scope[1])
            self.axis = axis
        }

        /// The fixed value ids, in profile order.
        var ids: [Int32] { scope.a < 0 ? [] : scope.ids }
    }

    /// The failing values of one axis within a scope: their ids (kept up to one more than a set may hold), their
    /// summed tally, and whether one of them also passed somewhere (then no set of them is exact).
    struct SetBucket {
        var ids: [Int32] = []
        var sum = Tally()
        var partial = false

        mutating func add(_ id: Int32, _ t: Tally) {
            guard !partial else { return }
            if t.failures < t.jobs { partial = true; return }
            if ids.count <= PivotCovering.maxSetSize { ids.append(id) }
            sum.add(t)
        }
    }

    /// `a=x + b ∈ {y, z}`: values in the given order, consecutive values of one axis as a set.
    static func label(_ values: [AxisValue]) -> String {
        var parts: [String] = []
        var i = values.startIndex
        while i < values.endIndex {
            var j = i + 1
            while j < values.endIndex, values[j].axis == values[i].axis { j += 1 }
            parts.append(j - i == 1 ? values[i].description
                : "\(values[i].axis) ∈ {" + values[i..<j].map(\.value).joined(separator: ", ") + "}")
            i = j
        }
        return parts.joined(separator: " + ")
    }
}
