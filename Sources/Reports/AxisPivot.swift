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
        struct Tally { var jobs = 0, failures = 0, flaky = 0 }
        let counted = jobs.filter(\.status.isVerdict)
        let totalFailures = counted.filter(\.status.isFailure).count
        let totalFlaky = counted.filter { $0.status == .flaky }.count
        var singles: [AxisValue: Tally] = [:]
        var pairs: [[AxisValue]: Tally] = [:]
        for job in counted {
            let values = job.axes.sorted { order($0, $1) }
            func add(_ tally: inout Tally) {
                tally.jobs += 1
                if job.status.isFailure { tally.failures += 1 }
                if job.status == .flaky { tally.flaky += 1 }
            }
            for (i, v) in values.enumerated() {
                add(&singles[v, default: Tally()])
                for (j, w) in values.enumerated() where j > i && w.axis != v.axis {
                    add(&pairs[[v, w], default: Tally()])
                    // Within one scenario, a pair of axis values: "checkout fails only with rtl + landscape".
                    guard v.axis == scenarioAxis else { continue }
                    for x in values[(j + 1)...] where x.axis != w.axis && x.axis != v.axis {
                        add(&pairs[[v, w, x], default: Tally()])
                    }
                }
            }
        }
        func group(_ values: [AxisValue], _ t: Tally) -> Group {
            let union = t.jobs + totalFailures - t.failures
            return Group(
                values: values, jobs: t.jobs, failures: t.failures, flaky: t.flaky,
                rate: t.jobs == 0 ? 0 : Double(t.failures) / Double(t.jobs),
                coverage: totalFailures == 0 ? 0 : Double(t.failures) / Double(totalFailures),
                score: union == 0 || t.failures == 0 ? 0 : Double(t.failures) / Double(union)
            )
        }
        let singleGroups = singles.map { group([$0.key], $0.value) }
        var tables: [String: [Group]] = [:]
        for g in singleGroups { tables[g.values[0].axis, default: []].append(g) }
        let axes = tables.map { axis, groups in
            AxisTable(axis: axis, values: groups.sorted { $0.values[0] < $1.values[0] },
                      bestScore: groups.map(\.score).max() ?? 0)
        }.sorted { a, b in a.axis == b.axis ? false : (a.axis == scenarioAxis || (b.axis != scenarioAxis && a.axis < b.axis)) }
        let ranked = (singleGroups + pairs.map { group($0.key, $0.value) })
            .filter { $0.failures > 0 }
            .sorted(by: rankedBefore)
        return AxisPivot(totalJobs: counted.count, totalFailures: totalFailures, totalFlaky: totalFlaky, axes: axes,
                         ranked: ranked)
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
        guard let top = ranked.first else { return "\(totalFailures) failures." }
        let share = "\(top.failures) of \(totalFailures) failure\(totalFailures == 1 ? "" : "s")"
        let inGroup = "\(top.failures) of \(top.jobs) such job\(top.jobs == 1 ? "" : "s") fail"
        if top.score == 1 {
            return "Fails only with \(top.label): \(share), and every such job fails."
        }
        if top.rate == 1 {
            return "Every job with \(top.label) fails (\(top.failures) of \(top.jobs)): \(share)."
        }
        if top.coverage == 1 {
            return "Every failure has \(top.label) (\(inGroup), \(Self.percent(top.rate)))."
        }
        return "Failures follow \(top.label) most closely: \(share); \(inGroup) (\(Self.percent(top.rate)))."
    }

    static func percent(_ rate: Double) -> String {
        let p = rate * 100
        return p == p.rounded() ? "\(Int(p))%" : String(format: "%.1f%%", p)
    }
}
