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

    /// Jobs that failed in at least one repetition.
    public var unstableJobs: Int { jobs.reduce(0) { $0 + ($1.failed > 0 ? 1 : 0) } }

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
        var jobs: [String: Entry] = [:], values: [String: Entry] = [:]
        var most = 0, stabilityRun = false
        var bases: [String: (base: String, number: Int?)] = [:]
        for r in repetitions {
            let parsed = bases[r.configuration] ?? Self.split(r.configuration)
            bases[r.configuration] = parsed
            if let n = parsed.number { stabilityRun = true; most = max(most, n) }
            guard let outcome = r.outcome, outcome != .notRun, outcome != .cancelled else { continue }
            let failed = [.failed, .timedOut, .quarantined].contains(outcome), flaky = outcome == .flaky
            var key = "\(r.scenarioID) [\(parsed.base)]"
            if severalRegistries { key += " @\(r.registry)" }
            jobs[key, default: Entry(key: key)].count(failed: failed, flaky: flaky)
            for pair in parsed.base.split(separator: ",") {
                values[String(pair), default: Entry(key: String(pair))].count(failed: failed, flaky: flaky)
            }
        }
        guard stabilityRun || always else { return nil }
        return Stability(repetitions: max(most, jobs.isEmpty ? 0 : 1), jobs: jobs.values.sorted(by: leastStableFirst),
                         axisValues: values.values.sorted(by: leastStableFirst))
    }

    /// The figures of a run's job rows (nil when it is not a stability run, unless `always`). Keys name the registry
    /// when `severalRegistries` says so (by default, when the rows have more than one).
    public static func compute(rows: [JobRow], severalRegistries: Bool? = nil, always: Bool = false) -> Stability? {
        let several = severalRegistries ?? (Set(rows.map(\.job.registry)).count > 1)
        return compute(rows.lazy.map { Repetition(scenarioID: $0.job.scenarioID, configuration: $0.job.configuration,
                                                  registry: $0.job.registry, outcome: $0.result?.outcome) },
                       severalRegistries: several, always: always)
    }

    /// The figures of a run's index (nil when it is not a stability run).
    static func compute(_ index: RunIndex) -> Stability? {
        guard index.axisNames.contains(Repetitions.axis) else { return nil }
        return compute(index.jobs.lazy.map { Repetition(scenarioID: index.scenarioID($0), configuration: index.configuration($0).text,
                                                        registry: index.registry($0), outcome: $0.outcome) },
                       severalRegistries: index.registries.count > 1)
    }

    /// A canonical configuration without its repetition, and the repetition's number when it has one.
    private static func split(_ canonical: String) -> (base: String, number: Int?) {
        let prefix = Repetitions.axis + "="
        let number = canonical.split(separator: ",").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
        return (Repetitions.baseConfiguration(canonical), number)
    }

    private static func leastStableFirst(_ a: Entry, _ b: Entry) -> Bool {
        a.flakeRate != b.flakeRate ? a.flakeRate > b.flakeRate : a.key < b.key
    }

    /// The same figures with at most `limit` jobs (the least stable): what `summary.json` carries.
    func truncated(jobs limit: Int) -> Stability {
        var copy = self
        copy.jobs = Array(jobs.prefix(limit))
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

    /// Lines for a terminal: how many jobs failed at least once, the least stable jobs and axis values.
    public func lines(limit: Int = 10) -> [String] {
        let unstable = jobs.filter { $0.failed > 0 }
        var out = ["stability over \(repetitions) repetitions: \(unstable.count) of \(jobs.count) job(s) failed at least once"]
        for e in unstable.prefix(limit) {
            out.append("  " + Self.rate(e.flakeRate) + " failed  \(e.failed)/\(e.repetitions)  \(e.key)")
        }
        let values = axisValues.filter { $0.failed > 0 }.prefix(limit)
        if !values.isEmpty {
            out.append("  by axis value (flake rate = failed repetitions / repetitions):")
            for e in values { out.append("  " + Self.rate(e.flakeRate) + "  \(e.key)") }
        }
        return out
    }

    /// Where the failed repetitions concentrate, from the pivot over repetitions (computed without the repetition
    /// axis): `Flaky mostly with network=flaky + window=narrow (12 of 40 repetitions fail, 30%); …`.
    public func headline(_ pivot: AxisPivot) -> String {
        let failedRepetitions = pivot.totalFailures
        guard failedRepetitions > 0 else {
            return "Every repetition of every job passed (\(pivot.totalJobs) repetitions)."
        }
        let unstable = unstableJobs
        let lead = "\(failedRepetitions) of \(pivot.totalJobs) repetitions failed, in \(unstable) of \(jobs.count) jobs"
        guard !pivot.explanations.isEmpty else { return lead + ", with no axis value in common." }
        let patterns = pivot.explanations.map { e in
            "\(e.group.label) (\(e.group.failures) of \(e.group.jobs) repetitions fail, \(AxisPivot.percent(e.group.rate)))"
        }
        let rest = pivot.unexplained == 0 ? "" : "; \(pivot.unexplained) elsewhere"
        return lead + ". Flaky mostly with " + patterns.joined(separator: "; ") + rest + "."
    }

    /// `  40.0%`: a rate right-aligned in six characters with one decimal.
    static func rate(_ value: Double) -> String {
        let text = Format.fixed(value * 100, 1) + "%"
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}
