/// A combination of axis values (`locale=ar + window=narrow`): what may induce a failure. Ordered by size, then by
/// its axis–value pairs, so rankings and generated follow-ups are the same on every run.
public struct Combination: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `(axis, value)` pairs sorted by axis name: the identity (rankings hash many thousands of combinations).
    public let pairs: [Pair]

    /// Axis name → value.
    public var values: [String: String] { Dictionary(uniqueKeysWithValues: pairs.map { ($0.axis, $0.value) }) }

    public struct Pair: Sendable, Hashable, Comparable {
        public var axis: String
        public var value: String

        public static func < (a: Pair, b: Pair) -> Bool { (a.axis, a.value) < (b.axis, b.value) }
    }

    public init(_ values: [String: String]) {
        pairs = values.map { Pair(axis: $0.key, value: $0.value) }.sorted()
    }

    /// From pairs already sorted by axis, each axis once.
    init(sorted pairs: [Pair]) {
        self.pairs = pairs
    }

    /// The value of `axis` in the combination, if any.
    public subscript(axis axis: String) -> String? { pairs.first { $0.axis == axis }?.value }

    public var count: Int { pairs.count }

    /// This combination with `axis=value` added (`axis` not among its axes).
    func adding(axis: String, value: String) -> Combination {
        var out = pairs
        let pair = Pair(axis: axis, value: value)
        out.insert(pair, at: out.firstIndex { pair < $0 } ?? out.count)
        return Combination(sorted: out)
    }

    /// Whether every pair of the combination is in `configuration`.
    public func isContained(in configuration: [String: String]) -> Bool {
        pairs.allSatisfy { configuration[$0.axis] == $0.value }
    }

    /// Whether `other` holds every pair of this one (and maybe more).
    public func isSubset(of other: Combination) -> Bool {
        pairs.count <= other.pairs.count && pairs.allSatisfy { other.pairs.contains($0) }
    }

    /// The combinations of at most `maxSize` pairs of `configuration` (none empty).
    public static func subsets(of configuration: [String: String], maxSize: Int) -> [Combination] {
        var out: [Combination] = []
        forEachSubset(of: configuration, maxSize: maxSize) { out.append($0); return true }
        return out
    }

    /// Calls `body` with the combinations of ``subsets(of:maxSize:)``, in the same order, until it returns false.
    static func forEachSubset(of configuration: [String: String], maxSize: Int, _ body: (Combination) -> Bool) {
        let pairs = configuration.map { Pair(axis: $0.key, value: $0.value) }.sorted()
        var chosen: [Pair] = []
        chosen.reserveCapacity(maxSize)
        func visit(_ start: Int) -> Bool {
            if !chosen.isEmpty, !body(Combination(sorted: chosen)) { return false }
            guard chosen.count < maxSize else { return true }
            for i in start..<pairs.count {
                chosen.append(pairs[i])
                defer { chosen.removeLast() }
                if !visit(i + 1) { return false }
            }
            return true
        }
        _ = visit(0)
    }

    /// `locale=ar + window=narrow`.
    public var description: String { pairs.map { "\($0.axis)=\($0.value)" }.joined(separator: " + ") }

    public static func < (a: Combination, b: Combination) -> Bool {
        a.count != b.count ? a.count < b.count : a.pairs.lexicographicallyPrecedes(b.pairs)
    }
}

/// What a job said about its configuration, as isolation reads it.
public enum Verdict: String, Sendable, Hashable, Codable {
    /// Passed on its first attempt.
    case passed
    /// Failed (or timed out) on every attempt.
    case failed
    /// Failed and passed: its pass counts at once, its failure once a repeat or other jobs corroborate it.
    case flaky
}

/// One job's outcome: the scenario (with its registry) it ran, its configuration and verdict.
public struct Observation: Sendable, Hashable {
    public var subject: Subject
    public var configuration: [String: String]
    public var verdict: Verdict
    /// The journal's job id (follow-up jobs are listed by it in `isolation.json`).
    public var jobID: String
    /// Whether a follow-up run produced it (false for the source run's jobs).
    public var followUp: Bool

    public init(subject: Subject, configuration: [String: String], verdict: Verdict, jobID: String, followUp: Bool) {
        self.subject = subject
        self.configuration = configuration
        self.verdict = verdict
        self.jobID = jobID
        self.followUp = followUp
    }
}

/// A scenario under a registry, or one test of a command job's scenario: failures are explained per subject
/// ("within its scenario"; a command job's tests one by one, docs/ISOLATE.md).
public struct Subject: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var scenario: String
    public var registry: String
    /// A command job's test (`<classname>.<name>`), whose own verdict is the evidence; nil for the whole job.
    public var test: String?

    public init(scenario: String, registry: String, test: String? = nil) {
        self.scenario = scenario
        self.registry = registry
        self.test = test
    }

    /// The job's scenario without the test: what a follow-up runs.
    public var job: Subject { Subject(scenario: scenario, registry: registry) }

    /// `cart-total-layout`, or `pytest-sample › tests.test_checkout.test_total_label_fits_its_column`.
    public var label: String { test.map { "\(scenario) › \($0)" } ?? scenario }

    public var description: String { "\(label) (\(registry))" }

    public static func < (a: Subject, b: Subject) -> Bool {
        (a.scenario, a.registry, a.test ?? "") < (b.scenario, b.registry, b.test ?? "")
    }
}
