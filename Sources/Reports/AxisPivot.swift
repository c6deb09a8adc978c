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

    /// One group: jobs sharing one axis value, a pair of values of two axes, or a scenario with a pair.
    public struct Group: Sendable, Hashable, Codable {
        /// One to three values, in axis order (the scenario pseudo-axis first).
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

        /// `direction=rtl + orientation=landscape`.
        public var label: String { values.map(\.description).joined(separator: " + ") }
    }

    /// Jobs with a verdict.
    public var totalJobs: Int
    /// Failed or timed-out jobs.
    public var totalFailures: Int
    /// Flaky jobs.
    public var totalFlaky: Int
    /// Per axis (sorted by name, the scenario pseudo-axis first), every value of the axis with its rate.
    public var axes: [AxisTable]
    /// Groups with at least one failure, best score first.
    public var ranked: [Group]
    /// Patterns that together explain the failures, found by sequential covering: the group with the most failures
    /// beyond what its size predicts (weighted relative accuracy), then the same among the jobs outside it, and so on
    /// (at most 4; each explains at least 2 further failures and fails in at least 10 % of the jobs it newly covers).
    /// One pattern with score 1 means the failures are exactly that group.
    public var explanations: [Explanation]
    /// Failures outside every pattern.
    public var unexplained: Int

    /// A pattern with the run-wide figures of its group and how many failures it explains beyond earlier patterns.
    public struct Explanation: Sendable, Hashable, Codable {
        public var group: Group
        public var explains: Int
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
    public static func compute(_ report: RunReport) -> AxisPivot {
        compute(report.jobs.map { job in
            Input(axes: [AxisValue(axis: scenarioAxis, value: job.job.scenarioID)] + job.axes, status: job.status)
        })
    }

    /// The pivot of `jobs`. Pure; pairs combine values of two different axes, and a ``scenarioAxis`` value is also
    /// combined with every pair of the other axes.
    public static func compute(_ jobs: [Input]) -> AxisPivot {
        let counted = jobs.filter(\.status.isVerdict).map { job in
            Counted(keys: groupKeys(job.axes.sorted { order($0, $1) }), failure: job.status.isFailure,
                    flaky: job.status == .flaky)
        }
        let totalFailures = counted.filter(\.failure).count
        let totalFlaky = counted.filter(\.flaky).count
        let tallies = tally(counted)
        func group(_ values: [AxisValue]) -> Group {
            Self.group(values, tallies[values] ?? Tally(), totalFailures: totalFailures)
        }
        var tables: [String: [Group]] = [:]
        for key in tallies.keys where key.count == 1 { tables[key[0].axis, default: []].append(group(key)) }
        let axes = tables.map { axis, groups in
            AxisTable(axis: axis, values: groups.sorted { $0.values[0] < $1.values[0] },
                      bestScore: groups.map(\.score).max() ?? 0)
        }.sorted { a, b in a.axis == b.axis ? false : (a.axis == scenarioAxis || (b.axis != scenarioAxis && a.axis < b.axis)) }
        // A value that does not narrow its group (every job of the smaller group has it) adds nothing: leave the
        // larger group out ("checkout + orientation=portrait" when every checkout job is portrait).
        func redundant(_ key: [AxisValue]) -> Bool {
            guard key.count > 1, let jobs = tallies[key]?.jobs else { return false }
            return key.indices.contains { i in
                var smaller = key
                smaller.remove(at: i)
                return tallies[smaller]?.jobs == jobs
            }
        }
        let ranked = tallies.filter { $0.value.failures > 0 && !redundant($0.key) }.keys.map(group).sorted(by: rankedBefore)

        // Sequential covering: the best group of the jobs not yet explained, then the best of the rest, … "Best" is
        // weighted relative accuracy, `failures − jobs × (failures left / jobs left)`: the failures a group holds
        // beyond what its size predicts. It prefers a group that explains many failures precisely over a tiny
        // exact one and over a broad one that merely contains them.
        var remaining = counted
        var explanations: [Explanation] = []
        while explanations.count < maxExplanations {
            let failures = remaining.filter(\.failure).count
            guard failures >= 2 else { break }
            let base = Double(failures) / Double(remaining.count)
            let candidates = tally(remaining).filter { $0.value.failures >= 2 }
                .map { (gain: Double($0.value.failures) - Double($0.value.jobs) * base,
                        group: Self.group($0.key, $0.value, totalFailures: failures)) }
                .filter { $0.group.rate >= minimumExplanationRate }
            guard let best = candidates.min(by: { a, b in
                a.gain != b.gain ? a.gain > b.gain : rankedBefore(a.group, b.group)
            })?.group else { break }
            explanations.append(Explanation(group: group(best.values), explains: best.failures))
            remaining.removeAll { $0.keys.contains(best.values) }
        }
        return AxisPivot(totalJobs: counted.count, totalFailures: totalFailures, totalFlaky: totalFlaky, axes: axes,
                         ranked: ranked, explanations: explanations,
                         unexplained: totalFailures - explanations.reduce(0) { $0 + $1.explains })
    }

    /// At most this many patterns in ``explanations``.
    static let maxExplanations = 4
    /// A pattern's failure rate among the jobs it still covers must reach this (else it is noise).
    static let minimumExplanationRate = 0.1

    private struct Tally { var jobs = 0, failures = 0, flaky = 0 }

    private struct Counted {
        /// Every group the job belongs to.
        var keys: Set<[AxisValue]>
        var failure: Bool
        var flaky: Bool
    }

    /// The groups of a job with sorted values: each value, each pair of values of two axes, and each scenario value
    /// with a pair of the other axes.
    private static func groupKeys(_ values: [AxisValue]) -> Set<[AxisValue]> {
        var keys = Set<[AxisValue]>()
        for (i, v) in values.enumerated() {
            keys.insert([v])
            for (j, w) in values.enumerated() where j > i && w.axis != v.axis {
                keys.insert([v, w])
                // Within one scenario, a pair of axis values: "checkout fails only with rtl + landscape".
                guard v.axis == scenarioAxis else { continue }
                for x in values[(j + 1)...] where x.axis != w.axis && x.axis != v.axis {
                    keys.insert([v, w, x])
                }
            }
        }
        return keys
    }

    private static func tally(_ jobs: [Counted]) -> [[AxisValue]: Tally] {
        var tallies: [[AxisValue]: Tally] = [:]
        for job in jobs {
            for key in job.keys {
                tallies[key, default: Tally()].jobs += 1
                if job.failure { tallies[key, default: Tally()].failures += 1 }
                if job.flaky { tallies[key, default: Tally()].flaky += 1 }
            }
        }
        return tallies
    }

    private static func group(_ values: [AxisValue], _ t: Tally, totalFailures: Int) -> Group {
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

    /// Higher score, then higher rate, then more failures, then fewer values, then label.
    static func rankedBefore(_ a: Group, _ b: Group) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.rate != b.rate { return a.rate > b.rate }
        if a.failures != b.failures { return a.failures > b.failures }
        if a.values.count != b.values.count { return a.values.count < b.values.count }
        return a.label < b.label
    }

    /// One sentence for a person: which axis values the failures follow.
    public var headline: String {
        guard totalFailures > 0 else {
            return totalJobs == 0 ? "No job reached a verdict." : "No failures in \(totalJobs) jobs."
        }
        let failures = "\(totalFailures) failure\(totalFailures == 1 ? "" : "s")"
        if explanations.count == 1, let only = explanations.first?.group, only.score == 1 {
            return "Fails only with \(only.label): all \(failures), and every such job fails."
        }
        guard !explanations.isEmpty else {
            return totalFailures == 1
                ? "1 failure in \(totalJobs) jobs." : "\(failures) with no axis value in common beyond single jobs."
        }
        let patterns = explanations.map { e in
            "\(e.group.label) (\(e.group.failures) of \(e.group.jobs) job\(e.group.jobs == 1 ? "" : "s") fail)"
        }
        let rest = unexplained == 0 ? "" : "; \(unexplained) other failure\(unexplained == 1 ? "" : "s")"
        return "\(failures) follow " + patterns.joined(separator: "; ") + rest + "."
    }

    static func percent(_ rate: Double) -> String {
        let p = rate * 100
        return p == p.rounded() ? "\(Int(p))%" : Format.fixed(p, 1) + "%"
    }
}
