extension AxisPivot {
    /// The groups' counts, added to (or taken from) in passes over the jobs. Jobs with the same profile are combined
    /// before their groups are counted — a job adds to each of its values, pairs and scenario triples, dozens of
    /// groups — in a table of at most ``combineLimit`` profiles that is counted and emptied when full, so memory
    /// holds the groups and a bounded table whatever the number of jobs.
    struct Tallies {
        /// Per value id, its axis id (the scenario pseudo-axis is -1).
        let axes: [Int32]
        /// Per value id, whether it occurs in a failing job: groups of several values are counted only then.
        let failing: [Bool]
        private(set) var groups: [Key: Tally] = [:]
        static let combineLimit = 1 << 16

        init(axes: [Int32], failing: [Bool]) {
            self.axes = axes
            self.failing = failing
        }

        /// One pass: adds (`sign` 1) or removes (-1) the groups of the jobs `include` picks by their profile.
        /// - Returns: what the picked jobs count (jobs, failures, flaky), positive.
        @discardableResult
        mutating func add(_ replay: Replay, sign: Int, include: @escaping ([Int32]) -> Bool) throws -> Tally {
            var profiles = InternedSlices()
            var sums: [Tally] = []
            var last: Int32 = -1
            var picked = Tally()
            func flush() {
                for id in 0..<Int32(profiles.count) { addGroups(profiles[id], sums[Int(id)]) }
                profiles = InternedSlices()
                sums.removeAll(keepingCapacity: true)
                last = -1
            }
            try replay { profile, failure, flaky in
                guard include(profile) else { return }
                // Plan order often repeats a profile (a scenario's jobs of one configuration): no lookup then.
                if last < 0 || !profiles[last].elementsEqual(profile) {
                    last = profiles.intern(profile)
                    if Int(last) == sums.count { sums.append(Tally()) }
                }
                let job = Tally(jobs: 1, failures: failure ? 1 : 0, flaky: flaky ? 1 : 0)
                picked.add(job)
                sums[Int(last)].add(Tally(jobs: sign * job.jobs, failures: sign * job.failures, flaky: sign * job.flaky))
                if profiles.count >= Self.combineLimit { flush() }
            }
            flush()
            return picked
        }

        /// Adds a profile's groups: each value, each pair of values of two axes, and each scenario value with a pair
        /// of the other axes. A profile's values are sorted (scenario first, then by axis). Groups of several values
        /// only when each value is ``failing``.
        private mutating func addGroups(_ ids: ArraySlice<Int32>, _ t: Tally) {
            let scenarioAxisID: Int32 = -1
            let ids = Array(ids)
            for i in ids.indices {
                groups[Key(a: ids[i]), default: Tally()].add(t)
                guard failing[Int(ids[i])] else { continue }
                for j in (i + 1)..<ids.endIndex where axes[Int(ids[j])] != axes[Int(ids[i])] && failing[Int(ids[j])] {
                    groups[Key(a: ids[i], b: ids[j]), default: Tally()].add(t)
                    // Within one scenario, a pair of axis values: "checkout fails only with rtl + landscape".
                    guard axes[Int(ids[i])] == scenarioAxisID else { continue }
                    for k in (j + 1)..<ids.endIndex
                    where axes[Int(ids[k])] != axes[Int(ids[j])] && axes[Int(ids[k])] != scenarioAxisID && failing[Int(ids[k])] {
                        groups[Key(a: ids[i], b: ids[j], c: ids[k]), default: Tally()].add(t)
                    }
                }
            }
        }
    }

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
