import Foundation

/// Failure rates pivoted by axis: per axis value and per pair of values of different axes, ranked by how much
/// of the failures they explain. Within a scenario, pairs are pivoted too (scenario + two axis values).
///
/// Only jobs with a verdict count (passed, failed, flaky, timed out); a failure is `failed` or `timedOut`.
/// The scenario is a pseudo-axis named ``scenarioAxis`` so "fails only in checkout + rtl" shows up too.
///
/// **Score** (how much a group explains) is the Jaccard index of the group's jobs and the failing jobs:
/// `failures / (jobs + totalFailures − failures)`. It is 1 exactly when the failing jobs are the jobs of that
/// group and no others ("fails only with rtl + landscape"); it drops both when the group also holds passing jobs
/// and when failures happen outside it.
public struct AxisPivot: Sendable, Hashable, Codable {
    /// The pseudo-axis name under which scenario ids take part in the pivot.
    public static let scenarioAxis = "scenario"
    /// The pseudo-axis under which a run on several registries pivots its registries (the matrix's `registry`).
    public static let registryAxis = "registry"

    /// One group: jobs sharing one axis value, a pair of values of two axes, or a scenario with a pair.
    public struct Group: Sendable, Hashable, Codable {
        /// One to three axes' values, in axis order (the scenario pseudo-axis first). Several values of one axis are a
        /// set: the group holds the jobs with any of them (`network ∈ {edge, offline}`).
        public var values: [AxisValue]
        /// Jobs with a verdict in the group.
        public var jobs: Int
        /// Failed or timed-out jobs in the group.
        public var failures: Int
        /// Flaky jobs in the group.
        public var flaky: Int
        /// `failures / jobs` (0 for an empty group).
        public var rate: Double
        /// Share of all failures that fall in this group (0 without failures).
        public var coverage: Double
        /// How much the group explains the failures (see ``AxisPivot``), 0…1.
        public var score: Double

        /// `direction=rtl + orientation=landscape`; a set of one axis's values reads `network ∈ {edge, offline}`.
        public var label: String { PivotCovering.label(values) }
    }

    /// Jobs with a verdict.
    public var totalJobs: Int
    /// Failed or timed-out jobs.
    public var totalFailures: Int
    /// Flaky jobs.
    public var totalFlaky: Int
    /// Per axis (sorted by name, the scenario pseudo-axis first), every value of the axis with its rate.
    public var axes: [AxisTable]
    /// Groups with at least one failure, best score first (the best ``maxRanked``).
    public var ranked: [Group]
    /// Patterns that together explain the failures, found by sequential covering: the group with the most failures
    /// beyond what its size predicts (weighted relative accuracy), then the same among the jobs outside it, and so on
    /// (at most 4, or 8 when the later ones are exact; each explains at least 2 further failures and fails in at least
    /// 10 % of the jobs it newly covers).
    /// One pattern with score 1 means the failures are exactly that group.
    public var explanations: [Explanation]
    /// Failures outside every pattern.
    public var unexplained: Int

    /// A pattern with the run-wide figures of its group and how many failures it explains beyond earlier patterns.
    public struct Explanation: Sendable, Hashable, Codable {
        public var group: Group
        public var explains: Int
        /// Every job the pattern newly covers failed, and no other job of its scope (its scenario, or the run when it
        /// names none) failed outside it.
        public var exact: Bool
        /// Patterns the run cannot tell apart from this one: exact too, as simple, over the same jobs (values that
        /// always co-occur in the run for that scenario: "can't tell locale=ar from window=narrow here").
        public var alternatives: [Group]
        /// Follow-up jobs of `flowmatrix isolate` that confirmed the pattern (nil when none ran).
        public var confirmedBy: Int?
        /// For a pattern that names no scenario: the scenarios whose confirmations it sums (nil otherwise). A run-wide
        /// `direction=pseudo-accented` confirmed for two scenarios is not confirmed for the others whose jobs it holds.
        public var confirmedIn: [String]?

        public init(group: Group, explains: Int, exact: Bool = false, alternatives: [Group] = [], confirmedBy: Int? = nil,
                    confirmedIn: [String]? = nil) {
            self.group = group
            self.explains = explains
            self.exact = exact
            self.alternatives = alternatives
            self.confirmedBy = confirmedBy
            self.confirmedIn = confirmedIn
        }

        private enum CodingKeys: String, CodingKey { case group, explains, exact, alternatives, confirmedBy, confirmedIn }

        /// Documents written before `exact` and `alternatives` existed decode with `false` and none.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            group = try c.decode(Group.self, forKey: .group)
            explains = try c.decode(Int.self, forKey: .explains)
            exact = try c.decodeIfPresent(Bool.self, forKey: .exact) ?? false
            alternatives = try c.decodeIfPresent([Group].self, forKey: .alternatives) ?? []
            confirmedBy = try c.decodeIfPresent(Int.self, forKey: .confirmedBy)
            confirmedIn = try c.decodeIfPresent([String].self, forKey: .confirmedIn)
        }
    }

    /// The values of one axis.
    public struct AxisTable: Sendable, Hashable, Codable {
        public var axis: String
        /// Every value seen, in natural order.
        public var values: [Group]
        /// The best score among the axis's values: how strongly failures follow this axis.
        public var bestScore: Double
    }

    /// A job as the pivot sees it.
    public struct Input: Sendable, Hashable {
        public var axes: [AxisValue]
        public var status: CellStatus

        public init(axes: [AxisValue], status: CellStatus) {
            self.axes = axes
            self.status = status
        }
    }

    /// The pivot of a run's jobs (scenario id added as the ``scenarioAxis`` pseudo-axis).
    public static func compute(_ report: RunReport) throws -> AxisPivot {
        try compute(RunIndex(report))
    }

    /// The pivot of `jobs`. Pure; pairs combine values of two different axes, and a ``scenarioAxis`` value is also
    /// combined with every pair of the other axes.
    public static func compute(_ jobs: [Input]) -> AxisPivot {
        var values = ValueTable()
        var profiles = InternedSlices()
        var counted: [(profile: Int32, failure: Bool, flaky: Bool)] = []
        for job in jobs where job.status.isVerdict {
            let ids = job.axes.sorted { order($0, $1) }.map { values.id($0) }
            counted.append((profiles.intern(ids), job.status.isFailure, job.status == .flaky))
        }
        var profile: [Int32] = []
        // Replaying an array cannot fail.
        return (try? compute(values: values.values) { body in
            for job in counted {
                profile.removeAll(keepingCapacity: true)
                profile.append(contentsOf: profiles[job.profile])
                try body(profile, job.failure, job.flaky)
            }
        }) ?? compute([])
    }

    /// The pivot of a run's index, read in a few passes over its job records (memory holds the groups, not the jobs).
    /// Axes named in `excluded` take no part (stability mode leaves out the repetition axis); jobs whose position is
    /// in `skipped` neither (stability mode's flake pivot leaves out jobs that failed every repetition, and with
    /// `flakyFails` counts a job that passed only on a retry as a failure: both are evidence of flakiness).
    /// - Throws: ``ReportError`` `.output` when a scratch file cannot be read.
    static func compute(
        _ index: RunIndex, excluding excluded: Set<String> = [], skipped: Set<Int> = [], flakyFails: Bool = false
    ) throws -> AxisPivot {
        var values = ValueTable()
        let scenarioValues = index.scenarios.map { values.id(AxisValue(axis: AxisPivot.scenarioAxis, value: $0.id)) }
        let translation = index.values.map { excluded.contains($0.axis) ? -1 : values.id($0) }
        // A run on several registries pivots by registry too (a pseudo-axis, among the axes by name): a pattern
        // with `registry=web` is a renderer's defect, an exact one without it fails on every renderer (PivotHeadline).
        let registryValues = index.registries.count > 1 && !excluded.contains(registryAxis)
            ? index.registries.map { values.id(AxisValue(axis: registryAxis, value: $0)) } : []
        let afterRegistry = values.values.map { $0.axis != scenarioAxis && $0.axis > registryAxis }
        // Without skipped jobs or flaky ones counted as failing, the index already knows the totals and which values
        // occur in a failing job: one pass fewer.
        var known: Known?
        if skipped.isEmpty && !flakyFails {
            var failing = [Bool](repeating: false, count: values.values.count)
            for (scenario, value) in scenarioValues.enumerated() where index.failingScenarios[scenario] { failing[Int(value)] = true }
            for (id, value) in translation.enumerated() where value >= 0 && index.failingValues[id] { failing[Int(value)] = true }
            // Whether a registry has a failing job is not indexed: counting its groups is merely a little more work.
            for value in registryValues { failing[Int(value)] = true }
            let c = index.counts
            known = Known(jobs: CellStatus.allCases.filter(\.isVerdict).reduce(0) { $0 + (c[$1] ?? 0) },
                          failures: (c[.failed] ?? 0) + (c[.timedOut] ?? 0), flaky: c[.flaky] ?? 0, failing: failing)
        }
        return try compute(values: values.values, known: known) { body in
            var ids: [Int32] = [], profile: [Int32] = []
            try index.forEachJob { position, job, reader in
                guard job.status.isVerdict, skipped.isEmpty || !skipped.contains(position) else { return }
                try reader.values(job, into: &ids)
                profile.removeAll(keepingCapacity: true)
                profile.append(scenarioValues[Int(job.scenario)])
                for id in ids where translation[Int(id)] >= 0 { profile.append(translation[Int(id)]) }
                if !registryValues.isEmpty {
                    // Profile order: the registry among the axes by name.
                    let at = profile.indices.dropFirst().first { afterRegistry[Int(profile[$0])] } ?? profile.endIndex
                    profile.insert(registryValues[Int(job.registry)], at: at)
                }
                try body(profile, job.status.isFailure || (flakyFails && job.status == .flaky), job.status == .flaky)
            }
        }
    }

    /// A pass over the pivot's jobs: `body` gets each job's profile (its value ids, the scenario's first, then by
    /// axis), whether it counts as a failure, and whether it is flaky. The pivot makes a few passes.
    typealias Replay = (_ body: (_ profile: [Int32], _ failure: Bool, _ flaky: Bool) throws -> Void) throws -> Void

    /// What the pivot's first pass counts, when the caller knows it already.
    private struct Known {
        var jobs: Int, failures: Int, flaky: Int
        /// Per value id, whether a failing job has it.
        var failing: [Bool]
    }

    /// The core over interned values: a group is a ``Key`` of one to three value ids.
    private static func compute(values: [AxisValue], known: Known? = nil, replay: @escaping Replay) throws -> AxisPivot {
        var totalJobs = known?.jobs ?? 0, totalFailures = known?.failures ?? 0, totalFlaky = known?.flaky ?? 0
        // Groups of two or three values matter only with a failure in them (ranked groups and patterns need one), so
        // they are tallied only when every value occurs in a failing job: a passing run tallies single values alone.
        var failing = known?.failing ?? [Bool](repeating: false, count: values.count)
        if known == nil {
            try replay { profile, failure, flaky in
                totalJobs += 1
                if flaky { totalFlaky += 1 }
                guard failure else { return }
                totalFailures += 1
                for id in profile { failing[Int(id)] = true }
            }
        }
        // Axis ids per value (the scenario pseudo-axis is -1), so tallying compares integers.
        var axisIDs: [String: Int32] = [scenarioAxis: -1]
        let axes = values.map { value in
            if let id = axisIDs[value.axis] { return id }
            axisIDs[value.axis] = Int32(axisIDs.count)
            return Int32(axisIDs.count - 1)
        }
        var tallies = Tallies(axes: axes, failing: failing)
        // The covering passes (with failures) read the first pass's combined profiles rather than the run again, when
        // they fit in ``keptProfiles`` (a 100,000-job run's profiles take a few megabytes).
        let kept = try tallies.addAll(replay, keepUpTo: totalFailures > 0 ? keptProfiles : 0)
        let source: Tallies.Source = kept.map { .combined($0) } ?? .replay(replay)
        let initial = tallies.groups
        func axisValues(_ key: Key) -> [AxisValue] { key.ids.map { values[Int($0)] } }
        func group(_ key: Key) -> Group {
            Self.group(axisValues(key), initial[key] ?? Tally(), totalFailures: totalFailures)
        }
        var tables: [String: [Group]] = [:]
        for key in initial.keys where key.count == 1 { tables[values[Int(key.a)].axis, default: []].append(group(key)) }
        let axisTables = tables.map { axis, groups in
            AxisTable(axis: axis, values: groups.sorted { $0.values[0] < $1.values[0] },
                      bestScore: groups.map(\.score).max() ?? 0)
        }.sorted { a, b in a.axis == b.axis ? false : (a.axis == scenarioAxis || (b.axis != scenarioAxis && a.axis < b.axis)) }
        // A value that does not narrow its group (every job of the smaller group has it) adds nothing: leave the
        // larger group out ("checkout + orientation=portrait" when every checkout job is portrait).
        func redundant(_ key: Key, _ jobs: Int) -> Bool {
            key.count > 1 && key.smaller.contains { initial[$0]?.jobs == jobs }
        }
        let baseRanked = best(initial.filter { $0.value.failures > 0 && !redundant($0.key, $0.value.jobs) },
                              count: maxRanked, totalFailures: totalFailures, group: group)

        // Sequential covering (PivotCovering.swift): exact patterns, value sets of one axis, alternatives.
        let (explanations, extra) = try PivotCovering.cover(
            tallies: &tallies, source: source, values: values, axes: axes, initial: initial,
            totals: (totalJobs, totalFailures))
        let ranked = PivotCovering.mergeRanked(baseRanked, extra)
        return AxisPivot(totalJobs: totalJobs, totalFailures: totalFailures, totalFlaky: totalFlaky, axes: axisTables,
                         ranked: ranked, explanations: explanations,
                         unexplained: totalFailures - explanations.reduce(0) { $0 + $1.explains })
    }

    /// The `count` best of `groups` in ``rankedBefore(_:_:_:_:)`` order. A 100,000-job run has tens of thousands of
    /// groups with a failure and ties are common: they are ordered by their figures first, and only the best and those
    /// tied with the last of them become groups with labels.
    private static func best(_ groups: [(key: Key, value: Tally)], count: Int, totalFailures: Int, group: (Key) -> Group) -> [Group] {
        struct Figures {
            var key: Key, score: Double, rate: Double, failures: Int, values: Int
            func before(_ o: Figures) -> Bool {
                if score != o.score { return score > o.score }
                if rate != o.rate { return rate > o.rate }
                if failures != o.failures { return failures > o.failures }
                return values < o.values
            }
            func tied(_ o: Figures) -> Bool { !before(o) && !o.before(self) }
        }
        let sorted = groups.map { key, t in
            let g = Self.group([], t, totalFailures: totalFailures)
            return Figures(key: key, score: g.score, rate: g.rate, failures: t.failures, values: key.count)
        }.sorted { $0.before($1) }
        var end = min(count, sorted.count)
        if end > 0 { while end < sorted.count, sorted[end].tied(sorted[end - 1]) { end += 1 } }
        let candidates = sorted[..<end].map { group($0.key) }
        let labels = candidates.map(\.label)
        return Array(candidates.indices.sorted { rankedBefore(candidates[$0], candidates[$1], labels[$0], labels[$1]) }
            .prefix(count).map { candidates[$0] })
    }

    /// At most this many groups in ``ranked`` (the report shows 25, `summary.json` 10).
    static let maxRanked = 500

    /// At most this many distinct job profiles are kept in memory between the pivot's passes (beyond it, each pass
    /// reads the run again).
    static let keptProfiles = 1 << 18

    /// At most this many patterns in ``explanations``.
    static let maxExplanations = 4
    /// Beyond ``maxExplanations``, up to this many more patterns when each is exact: an exact pattern names one defect
    /// precisely (six scenario-specific defects are six exact patterns, where four slots would leave two unnamed).
    static let maxExtraExact = 4
    /// A pattern's failure rate among the jobs it still covers must reach this (else it is noise).
    static let minimumExplanationRate = 0.1

    struct Tally {
        var jobs = 0, failures = 0, flaky = 0

        mutating func add(_ t: Tally) {
            jobs += t.jobs
            failures += t.failures
            flaky += t.flaky
        }
    }

    /// A group: one to three value ids in profile order (-1 = none).
    struct Key: Hashable {
        var a: Int32, b: Int32 = -1, c: Int32 = -1
        var count: Int { b < 0 ? 1 : c < 0 ? 2 : 3 }
        var ids: [Int32] { count == 1 ? [a] : count == 2 ? [a, b] : [a, b, c] }

        /// Two words instead of three fields: the pivot hashes millions of keys.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(UInt32(bitPattern: a)) | UInt64(UInt32(bitPattern: b)) << 32)
            hasher.combine(c)
        }
        /// The groups with one value fewer.
        var smaller: [Key] {
            switch count {
            case 2: [Key(a: a), Key(a: b)]
            case 3: [Key(a: b, b: c), Key(a: a, b: c), Key(a: a, b: b)]
            default: []
            }
        }
    }

    static func group(_ values: [AxisValue], _ t: Tally, totalFailures: Int) -> Group {
        let union = t.jobs + totalFailures - t.failures
        return Group(
            values: values, jobs: t.jobs, failures: t.failures, flaky: t.flaky,
            rate: t.jobs == 0 ? 0 : Double(t.failures) / Double(t.jobs),
            coverage: totalFailures == 0 ? 0 : Double(t.failures) / Double(totalFailures),
            score: union == 0 || t.failures == 0 ? 0 : Double(t.failures) / Double(union)
        )
    }

    /// Scenario pseudo-axis first, then by axis name.
    private static func order(_ a: AxisValue, _ b: AxisValue) -> Bool {
        if a.axis == b.axis { return a < b }
        if a.axis == scenarioAxis { return true }
        if b.axis == scenarioAxis { return false }
        return a < b
    }

    /// Higher score, then higher rate, then more failures, then fewer values, then label (given, when known).
    static func rankedBefore(_ a: Group, _ b: Group, _ aLabel: @autoclosure () -> String? = nil,
                             _ bLabel: @autoclosure () -> String? = nil) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.rate != b.rate { return a.rate > b.rate }
        if a.failures != b.failures { return a.failures > b.failures }
        if a.values.count != b.values.count { return a.values.count < b.values.count }
        return (aLabel() ?? a.label) < (bLabel() ?? b.label)
    }

    /// One sentence for a person: which axis values the failures follow (``PivotHeadline``).
    public var headline: String { PivotHeadline.sentence(self) }

    static func percent(_ rate: Double) -> String {
        let p = rate * 100
        return p == p.rounded() ? "\(Int(p))%" : Format.fixed(p, 1) + "%"
    }
}
