import FlowVocabulary
import Foundation
import Journal
import MatrixPlan

/// Stability mode's figures (`run --repeat N`, a matrix's `policy.repeat`): per job — scenario, configuration
/// without its ``Repetitions/axis`` and registry, over its repetitions — and per axis value, the pass rate and the
/// flake rate = failed repetitions / repetitions.
///
/// A repetition counts when it has a verdict (not `notRun`, not `cancelled`); it fails when its final outcome is
/// failed, timed out or quarantined. A repetition that passed on a retry (flaky) counts as passed, and apart in
/// ``Entry/flaky``. Present in a report only when the run's configurations carry the repetition axis.
public struct Stability: Sendable, Hashable, Codable {
    /// One job over its repetitions, or one axis value over the repetitions of every job with it.
    public struct Entry: Sendable, Hashable, Codable {
        /// `scenario [k=v,k=v]` for a job (`@registry` added when the run has several), `axis=value` for a value.
        public var key: String
        public var repetitions = 0
        public var failed = 0
        public var flaky = 0
        public var passRate: Double { repetitions == 0 ? 0 : Double(repetitions - failed) / Double(repetitions) }
        public var flakeRate: Double { repetitions == 0 ? 0 : Double(failed) / Double(repetitions) }
        /// Failed in every repetition: broken on every seed, not flaky.
        public var failedEvery: Bool { repetitions > 0 && failed == repetitions }
        /// Flaky: failed in some repetitions but not all, or passed only on a retry in one.
        public var isFlaky: Bool { !failedEvery && (failed > 0 || flaky > 0) }

        public init(key: String) { self.key = key }

        mutating func count(failed: Bool, flaky: Bool) {
            repetitions += 1
            if failed { self.failed += 1 }
            if flaky { self.flaky += 1 }
        }

        private enum CodingKeys: String, CodingKey { case key, repetitions, failed, flaky, passRate, flakeRate }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            key = try c.decode(String.self, forKey: .key)
            repetitions = try c.decode(Int.self, forKey: .repetitions)
            failed = try c.decode(Int.self, forKey: .failed)
            flaky = try c.decode(Int.self, forKey: .flaky)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(key, forKey: .key)
            try c.encode(repetitions, forKey: .repetitions)
            try c.encode(failed, forKey: .failed)
            try c.encode(flaky, forKey: .flaky)
            try c.encode(passRate, forKey: .passRate)
            try c.encode(flakeRate, forKey: .flakeRate)
        }
    }

    /// The most repetitions any job has (the `N` of `--repeat N`).
    public var repetitions: Int
    /// Per job, least stable first (highest flake rate, then key).
    public var jobs: [Entry]
    /// Per `axis=value` (the repetition axis left out), least stable first.
    public var axisValues: [Entry]
    /// The report's sentence (``headline(flakePivot:)``) and the patterns the flaky repetitions follow; set by the
    /// report writer, empty otherwise.
    public var headline = ""
    public var patterns: [AxisPivot.Explanation] = []

    init(repetitions: Int, jobs: [Entry], axisValues: [Entry]) {
        self.repetitions = repetitions
        self.jobs = jobs
        self.axisValues = axisValues
        flakyJobs = jobs.reduce(0) { $0 + ($1.isFlaky ? 1 : 0) }
        failedEveryJobs = jobs.reduce(0) { $0 + ($1.failedEvery ? 1 : 0) }
    }

    private enum CodingKeys: String, CodingKey {
        case repetitions, jobs, axisValues, headline, patterns, flakyJobs, failedEveryJobs
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        repetitions = try c.decode(Int.self, forKey: .repetitions)
        jobs = try c.decode([Entry].self, forKey: .jobs)
        axisValues = try c.decode([Entry].self, forKey: .axisValues)
        headline = try c.decodeIfPresent(String.self, forKey: .headline) ?? ""
        patterns = try c.decodeIfPresent([AxisPivot.Explanation].self, forKey: .patterns) ?? []
        flakyJobs = try c.decode(Int.self, forKey: .flakyJobs)
        failedEveryJobs = try c.decode(Int.self, forKey: .failedEveryJobs)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(repetitions, forKey: .repetitions)
        try c.encode(jobs, forKey: .jobs)
        try c.encode(axisValues, forKey: .axisValues)
        try c.encode(headline, forKey: .headline)
        try c.encode(patterns, forKey: .patterns)
        try c.encode(flakyJobs, forKey: .flakyJobs)
        try c.encode(failedEveryJobs, forKey: .failedEveryJobs)
    }

    /// Jobs that failed in at least one repetition.
    public var unstableJobs: Int { jobs.reduce(0) { $0 + ($1.failed > 0 ? 1 : 0) } }
    /// Jobs that failed in some repetitions but not all, or passed only on a retry (``Entry/isFlaky``), of all jobs
    /// (also when ``jobs`` is a shortened list).
    public private(set) var flakyJobs = 0
    /// Jobs that failed in every repetition, of all jobs.
    public private(set) var failedEveryJobs = 0

    /// One repetition as stability counts it.
    struct Repetition {
        var scenarioID: String
        /// Canonical `k=v,k=v`, repetition axis included.
        var configuration: String
        var registry: String
        var outcome: JobOutcome?
    }

    /// The figures of `repetitions`, or nil when none of their configurations carries the repetition axis (unless
    /// `always`: then each job without one counts as a single repetition).
    static func compute(_ repetitions: some Sequence<Repetition>, severalRegistries: Bool, always: Bool = false) -> Stability? {
        var accumulator = Accumulator(severalRegistries: severalRegistries)
        for r in repetitions { accumulator.add(r) }
        return accumulator.finish(always: always)
    }

    /// Counts repetitions one by one: an entry per job without its repetition and per axis value.
    struct Accumulator {
        let severalRegistries: Bool
        private var jobs: [String: Entry] = [:], values: [String: Entry] = [:]
        private var most = 0, stabilityRun = false
        /// The split of the configurations met lately (emptied when it holds 4,096).
        private var bases: [String: (base: String, number: Int?)] = [:]

        init(severalRegistries: Bool) { self.severalRegistries = severalRegistries }

        mutating func add(_ r: Repetition) {
            let parsed = bases[r.configuration] ?? Stability.split(r.configuration)
            if bases.count >= 4_096 { bases.removeAll(keepingCapacity: true) }
            bases[r.configuration] = parsed
            if let n = parsed.number { stabilityRun = true; most = max(most, n) }
            guard let outcome = r.outcome, outcome != .notRun, outcome != .cancelled else { return }
            let failed = [.failed, .timedOut, .quarantined].contains(outcome), flaky = outcome == .flaky
            var key = "\(r.scenarioID) [\(parsed.base)]"
            if severalRegistries { key += " @\(r.registry)" }
            jobs[key, default: Entry(key: key)].count(failed: failed, flaky: flaky)
            for pair in parsed.base.split(separator: ",") {
                values[String(pair), default: Entry(key: String(pair))].count(failed: failed, flaky: flaky)
            }
        }

        func finish(always: Bool) -> Stability? {
            guard stabilityRun || always else { return nil }
            return Stability(repetitions: max(most, jobs.isEmpty ? 0 : 1), jobs: jobs.values.sorted(by: leastStableFirst),
                             axisValues: values.values.sorted(by: leastStableFirst))
        }
    }

    /// The figures of a run's job rows (nil when it is not a stability run, unless `always`). Keys name the registry
    /// when `severalRegistries` says so (by default, when the rows have more than one).
    public static func compute(rows: [JobRow], severalRegistries: Bool? = nil, always: Bool = false) -> Stability? {
        let several = severalRegistries ?? (Set(rows.map(\.job.registry)).count > 1)
        return compute(rows.lazy.map(Repetition.init),
                       severalRegistries: several, always: always)
    }

    /// The figures of a run's index (nil when it is not a stability run). Memory holds an entry per job without
    /// its repetition (the run's jobs divided by the repetitions), not one per repetition.
    static func compute(_ index: RunIndex) throws -> Stability? {
        guard index.axisNames.contains(Repetitions.axis) else { return nil }
        var accumulator = Accumulator(severalRegistries: index.registries.count > 1)
        try index.forEachJob { _, job, reader in
            accumulator.add(Repetition(scenarioID: index.scenarioID(job), configuration: try reader.text(job),
                                       registry: index.registry(job), outcome: job.outcome))
        }
        return accumulator.finish(always: false)
    }

    /// Positions in `index` of the repetitions of jobs that failed every repetition: the flake pivot leaves them out,
    /// so "flaky mostly with …" speaks of intermittent failures only.
    func failedEveryPositions(in index: RunIndex) throws -> Set<Int> {
        let keys = Set(jobs.lazy.filter(\.failedEvery).map(\.key))
        guard !keys.isEmpty else { return [] }
        let several = index.registries.count > 1
        var bases: [Int64: String] = [:]
        var out = Set<Int>()
        try index.forEachJob { position, job, reader in
            let base = try bases[job.configuration] ?? Repetitions.baseConfiguration(try reader.text(job))
            if bases.count >= 4_096 { bases.removeAll(keepingCapacity: true) }
            bases[job.configuration] = base
            var key = "\(index.scenarioID(job)) [\(base)]"
            if several { key += " @\(index.registry(job))" }
            if keys.contains(key) { out.insert(position) }
        }
        return out
    }

    /// A canonical configuration without its repetition, and the repetition's number when it has one.
    fileprivate static func split(_ canonical: String) -> (base: String, number: Int?) {
        let prefix = Repetitions.axis + "="
        let number = canonical.split(separator: ",").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
        return (Repetitions.baseConfiguration(canonical), number)
    }

    fileprivate static func leastStableFirst(_ a: Entry, _ b: Entry) -> Bool {
        a.flakeRate != b.flakeRate ? a.flakeRate > b.flakeRate : a.key < b.key
    }

    /// The same figures with at most `limit` jobs, flaky ones first: what `summary.json` carries. The counts stay
    /// those of every job.
    func truncated(jobs limit: Int) -> Stability {
        var copy = self
        copy.jobs = Array((jobs.filter(\.isFlaky) + jobs.filter { !$0.isFlaky }).prefix(limit))
        return copy
    }

    /// `stability.json` (sorted keys, pretty-printed): `repetitions`, `jobs` and `axisValues`, each entry
    /// `{key, repetitions, failed, flaky, passRate, flakeRate}`.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and finite doubles only: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// Lines for a terminal: flaky and always-failing counts, the least stable flaky jobs, and the axis values.
    public func lines(limit: Int = 10) -> [String] {
        let unstable = jobs.filter { $0.failed > 0 }
        var out = ["stability over \(repetitions) repetitions: \(unstable.count) of \(jobs.count) job(s) failed at least once; "
                   + "\(flakyJobs) flaky, \(failedEveryJobs) failed every repetition"]
        let flaky = jobs.filter(\.isFlaky)
        for e in flaky.prefix(limit) {
            out.append("  " + Self.rate(e.flakeRate) + " failed  \(e.failed)/\(e.repetitions)"
                       + (e.flaky > 0 ? " (+\(e.flaky) passed on a retry)" : "") + "  \(e.key)")
        }
        if flaky.count > limit { out.append("  … \(flaky.count - limit) more flaky job(s) in stability.json") }
        let values = axisValues.filter { $0.failed > 0 }.prefix(limit)
        if !values.isEmpty {
            out.append("  by axis value (flake rate = failed repetitions / repetitions):")
            for e in values { out.append("  " + Self.rate(e.flakeRate) + "  \(e.key)") }
        }
        return out
    }

    /// The stability headline: how many jobs are flaky and how many failed every repetition, and where the flaky
    /// repetitions concentrate, from `flakePivot` (the pivot over repetitions without the repetition axis and without
    /// jobs that failed every time, where a repetition that passed only on a retry counts as failing): `3 of 40 jobs are flaky …; flaky mostly with network=flaky + window=narrow (…)`.
    public func headline(flakePivot pivot: AxisPivot) -> String {
        let flaky = flakyJobs, broken = failedEveryJobs
        var text = "\(flaky) of \(jobs.count) job\(jobs.count == 1 ? "" : "s") \(flaky == 1 ? "is" : "are") flaky (failed some of "
            + "\(repetitions) repetitions, or passed only on a retry); \(broken) failed every repetition (no seed changes them)"
        guard pivot.totalFailures > 0 else { return text + "." }
        guard !pivot.explanations.isEmpty else { return text + "; the flaky repetitions share no axis value." }
        let patterns = pivot.explanations.map { e in
            "\(e.group.label) (\(e.group.failures) of \(e.group.jobs) repetitions failed or needed a retry, "
                + AxisPivot.percent(e.group.rate) + ")"
        }
        text += ". Flaky mostly with " + patterns.joined(separator: "; ")
        return text + (pivot.unexplained == 0 ? "." : "; \(pivot.unexplained) elsewhere.")
    }

    /// `  40.0%`: a rate right-aligned in six characters with one decimal.
    static func rate(_ value: Double) -> String {
        let text = Format.fixed(value * 100, 1) + "%"
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}

extension Stability.Repetition {
    /// A journal job as a repetition.
    init(_ row: JobRow) {
        self.init(scenarioID: row.job.scenarioID, configuration: row.job.configuration, registry: row.job.registry,
                  outcome: row.result?.outcome)
    }
}
