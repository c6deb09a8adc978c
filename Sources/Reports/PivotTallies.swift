extension AxisPivot {
    typealias Tallies = PivotTallies

    /// Interned axis values.
    struct ValueTable {
        var values: [AxisValue] = []
        var ids: [AxisValue: Int32] = [:]
        mutating func id(_ value: AxisValue) -> Int32 {
            if let id = ids[value] { return id }
            ids[value] = Int32(values.count)
            values.append(value)
            return Int32(values.count - 1)
        }
    }
}

/// The groups' counts, added to (or taken from) in passes over the jobs. Jobs with the same profile are combined
/// before their groups are counted — a job adds to each of its values, pairs and scenario triples, dozens of
/// groups — in a table of at most ``combineLimit`` profiles that is counted and emptied when full, so memory
/// holds the groups and a bounded table whatever the number of jobs.
struct PivotTallies {
    typealias Key = AxisPivot.Key
    typealias Tally = AxisPivot.Tally
    typealias Replay = AxisPivot.Replay

    /// Per value id, its axis id (the scenario pseudo-axis is -1).
    let axes: [Int32]
    /// Per value id, whether it occurs in a failing job: groups of several values are counted only then.
    let failing: [Bool]
    private(set) var groups = PivotGroupCounts()
    static let combineLimit = 1 << 16

    /// Jobs combined by profile: each distinct profile once, with what its jobs count.
    struct Combined {
        var profiles = InternedSlices()
        var sums: [Tally] = []
    }

    /// Where a pass reads its jobs: the run again, or the profiles the first pass combined.
    enum Source {
        case replay(Replay)
        case combined(Combined)
    }

    init(axes: [Int32], failing: [Bool]) {
        self.axes = axes
        self.failing = failing
    }

    /// One pass: adds (`sign` 1) or removes (-1) the groups of the jobs `include` picks by their profile.
    /// - Returns: what the picked jobs count (jobs, failures, flaky), positive.
    @discardableResult
    mutating func add(_ source: Source, sign: Int, include: @escaping (ArraySlice<Int32>) -> Bool) throws -> Tally {
        switch source {
        case .replay(let replay):
            return try add(replay, sign: sign, keepUpTo: 0, include: include).picked
        case .combined(let combined):
            var picked = Tally()
            for id in 0..<Int32(combined.profiles.count) {
                let profile = combined.profiles[id]
                guard include(profile) else { continue }
                let t = combined.sums[Int(id)]
                picked.add(t)
                addGroups(profile, Tally(jobs: sign * t.jobs, failures: sign * t.failures, flaky: sign * t.flaky))
            }
            return picked
        }
    }

    /// The first pass, over every job: adds their groups, and returns the jobs combined by profile when there are
    /// at most `limit` distinct profiles, so later passes read them instead of the run again (nil beyond it).
    mutating func addAll(_ replay: Replay, keepUpTo limit: Int) throws -> Combined? {
        try add(replay, sign: 1, keepUpTo: limit) { _ in true }.kept
    }

    /// A pass over `replay`. Distinct profiles are combined in a table that is counted and emptied when it holds
    /// ``combineLimit`` profiles — or `keepUpTo`, when larger: then a table that never had to be emptied is returned.
    private mutating func add(_ replay: Replay, sign: Int, keepUpTo: Int, include: @escaping (ArraySlice<Int32>) -> Bool) throws
        -> (picked: Tally, kept: Combined?)
    {
        var combined = Combined()
        var last: Int32 = -1
        var picked = Tally()
        var flushed = false
        let limit = max(Self.combineLimit, keepUpTo)
        func flush() {
            for id in 0..<Int32(combined.profiles.count) { addGroups(combined.profiles[id], combined.sums[Int(id)]) }
        }
        try replay { profile, failure, flaky in
            guard include(profile[...]) else { return }
            // Plan order often repeats a profile (a scenario's jobs of one configuration): no lookup then.
            if last < 0 || !combined.profiles[last].elementsEqual(profile) {
                last = combined.profiles.intern(profile)
                if Int(last) == combined.sums.count { combined.sums.append(Tally()) }
            }
            let job = Tally(jobs: 1, failures: failure ? 1 : 0, flaky: flaky ? 1 : 0)
            picked.add(job)
            combined.sums[Int(last)].add(Tally(jobs: sign * job.jobs, failures: sign * job.failures, flaky: sign * job.flaky))
            if combined.profiles.count >= limit {
                flush()
                flushed = true
                combined = Combined()
                last = -1
            }
        }
        flush()
        return (picked, !flushed && keepUpTo > 0 && sign == 1 ? combined : nil)
    }

    /// Adds a profile's groups: each value, each pair of values of two axes, and each scenario value with a pair
    /// of the other axes. A profile's values are sorted (scenario first, then by axis). Groups of several values
    /// only when each value is ``failing``.
    private mutating func addGroups(_ ids: ArraySlice<Int32>, _ t: Tally) {
        let scenarioAxisID: Int32 = -1
        let ids = Array(ids)
        for i in ids.indices {
            groups.add(t, to: Key(a: ids[i]))
            guard failing[Int(ids[i])] else { continue }
            for j in (i + 1)..<ids.endIndex where axes[Int(ids[j])] != axes[Int(ids[i])] && failing[Int(ids[j])] {
                groups.add(t, to: Key(a: ids[i], b: ids[j]))
                // Within one scenario, a pair of axis values: "checkout fails only with rtl + landscape".
                guard axes[Int(ids[i])] == scenarioAxisID else { continue }
                for k in (j + 1)..<ids.endIndex
                where axes[Int(ids[k])] != axes[Int(ids[j])] && axes[Int(ids[k])] != scenarioAxisID && failing[Int(ids[k])] {
                    groups.add(t, to: Key(a: ids[i], b: ids[j], c: ids[k]))
                }
            }
        }
    }
}
