/// Ranks the value combinations that may induce a subject's failures (pure).
///
/// The **candidates** are the combinations of at most `maxSize` values of the subject's failing configurations that
/// no passing configuration holds: a combination seen passing cannot alone make a job fail (failures are assumed to
/// follow from the values, as the flaky repeats make them). A candidate is ranked by the failing configurations
/// that hold it (more first), then by size (smaller first: it explains with fewer values), then by how suspicious
/// its values are (the failure rate of the jobs that hold each value, averaged; higher first), then by its pairs.
public struct SuspicionRanking: Sendable {
    public struct Suspect: Sendable, Hashable {
        public var combination: Combination
        /// Failing configurations that hold it.
        public var failing: Int
        /// The mean failure rate of its values, 0…1.
        public var suspicion: Double
    }

    /// Candidates in rank order.
    public private(set) var suspects: [Suspect]
    /// Per candidate: its place in `suspects` (a configuration's suspects are found from its sub-combinations when
    /// there are fewer of those than candidates: a 3-wise plan's ranking holds tens of thousands).
    private let rank: [Combination: Int]
    private let maxSize: Int
    /// The candidates, for membership.
    public let live: Set<Combination>
    /// Per candidate: the failing configurations that hold it.
    let counts: [Combination: Int]
    /// Per `axis=value` pair: live candidates holding it (for the generator's least suspicious values).
    public let pairWeight: [Combination.Pair: Int]
    /// Pairs seen in a passing configuration.
    public let passingPairs: Set<Combination.Pair>
    /// Per pair: the share of the jobs holding it that failed (0…1; absent when no job held it).
    public let failureRate: [Combination.Pair: Double]

    /// - Parameters:
    ///   - candidatesFrom: the failing configurations whose combinations are candidates (the source run's).
    ///   - failing: every failing configuration (source and follow-ups), for the counts and value rates.
    ///   - passing: every passing configuration.
    public init(candidatesFrom: [[String: String]], failing: [[String: String]], passing: [[String: String]], maxSize: Int) {
        let seenPassing = PairIndex(passing)
        var passingPairs = Set<Combination.Pair>()
        for p in passing {
            for (axis, value) in p { passingPairs.insert(Combination.Pair(axis: axis, value: value)) }
        }
        var live = Set<Combination>()
        for f in candidatesFrom {
            Combination.forEachSubset(of: f, maxSize: maxSize) { c in
                if !live.contains(c), !seenPassing.holdsAny(c) { live.insert(c) }
                return true
            }
        }
        let failingIndex = PairIndex(failing)
        var counts: [Combination: Int] = [:]
        for c in live {
            let n = failingIndex.count(c)
            if n > 0 { counts[c] = n }
        }
        var pairRate: [Combination.Pair: (fail: Int, all: Int)] = [:]
        for f in failing {
            for (axis, value) in f { pairRate[Combination.Pair(axis: axis, value: value), default: (0, 0)].fail += 1 }
        }
        for p in passing {
            for (axis, value) in p { pairRate[Combination.Pair(axis: axis, value: value), default: (0, 0)].all += 1 }
        }
        var weight: [Combination.Pair: Int] = [:]
        failureRate = pairRate.mapValues { Double($0.fail) / Double(max(1, $0.fail + $0.all)) }
        suspects = live.map { c in
            for pair in c.pairs { weight[pair, default: 0] += 1 }
            let rates = c.pairs.map { pair -> Double in
                let r = pairRate[pair] ?? (0, 0)
                return Double(r.fail) / Double(max(1, r.fail + r.all))
            }
            return Suspect(combination: c, failing: counts[c] ?? 0, suspicion: rates.reduce(0, +) / Double(max(1, rates.count)))
        }
        suspects.sort(by: Self.rankedBefore)
        rank = Dictionary(uniqueKeysWithValues: suspects.enumerated().map { ($0.element.combination, $0.offset) })
        self.maxSize = maxSize
        self.live = live
        self.counts = counts
        self.pairWeight = weight
        self.passingPairs = passingPairs
    }

    /// More failing configurations, then fewer values, then more suspicious values, then by pairs.
    static func rankedBefore(_ a: Suspect, _ b: Suspect) -> Bool {
        if a.failing != b.failing { return a.failing > b.failing }
        if a.combination.count != b.combination.count { return a.combination.count < b.combination.count }
        if a.suspicion != b.suspicion { return a.suspicion > b.suspicion }
        return a.combination < b.combination
    }

    /// The live candidates a configuration holds, in rank order.
    public func suspects(in configuration: [String: String]) -> [Suspect] {
        guard Self.subsetCount(configuration.count, maxSize: maxSize) < suspects.count else {
            return suspects.filter { $0.combination.isContained(in: configuration) }
        }
        var places: [Int] = []
        Combination.forEachSubset(of: configuration, maxSize: maxSize) { c in
            if let place = rank[c] { places.append(place) }
            return true
        }
        return places.sorted().map { suspects[$0] }
    }

    /// How many combinations of at most `maxSize` of `n` values there are (none empty).
    static func subsetCount(_ n: Int, maxSize: Int) -> Int {
        var total = 0, term = 1
        for k in 0..<min(n, maxSize) {
            term = term * (n - k) / (k + 1)
            total += term
        }
        return total
    }

    /// Whether `c` is the only minimal candidate `configuration` holds: every live candidate in it holds `c`.
    public func isOnlySuspect(_ c: Combination, in configuration: [String: String], maxSize: Int) -> Bool {
        Combination.subsets(of: configuration, maxSize: maxSize).allSatisfy { !live.contains($0) || c.isSubset(of: $0) }
    }

    /// Whether `c` is the only candidate `configuration` holds that could explain its failure: every other live
    /// candidate in it is a larger one holding `c`, held by no more failing configurations (`c` explains at least as
    /// much with fewer values; the generator avoids such larger ones where the matrix lets it, so a follow-up holds
    /// one only when a constraint ties its values to `c`'s).
    public func isOnlyCandidate(_ c: Combination, in configuration: [String: String], maxSize: Int) -> Bool {
        Combination.subsets(of: configuration, maxSize: maxSize).allSatisfy { s in
            !live.contains(s) || s == c || (c.isSubset(of: s) && failingCount(s) <= failingCount(c))
        }
    }

    /// Whether failing follow-ups that kept `target` leave it the only candidate: one of them holds no other, or what
    /// they all hold besides it (their common values) does not. A follow-up that holds a deterministic confirmation
    /// (`explainedBy`) failed for it and is no evidence: two follow-ups that failed for two different faults share
    /// nothing but `target`, and would confirm it.
    public func isolates(_ target: Combination, failing: [[String: String]], maxSize: Int,
                         explainedBy confirmed: [Combination] = []) -> Bool {
        let failing = failing.filter { f in !confirmed.contains { $0 != target && $0.isContained(in: f) } }
        if failing.contains(where: { isOnlyCandidate(target, in: $0, maxSize: maxSize) }) { return true }
        guard failing.count >= 2, let first = failing.first else { return false }
        let common = first.filter { pair in failing.allSatisfy { $0[pair.key] == pair.value } }
        return isOnlyCandidate(target, in: common, maxSize: maxSize)
    }

    /// Failing configurations that hold a candidate (0 for a combination that is none).
    public func failingCount(_ c: Combination) -> Int { counts[c] ?? 0 }

    /// How suspicious a value is for the generator (lower is safer): live candidates holding it, plus ten times the
    /// share of its jobs that failed (a value of an intermittent fault keeps failing though it has passed), plus a
    /// half when no passing configuration has shown it.
    public func weight(axis: String, value: String) -> Double {
        let pair = Combination.Pair(axis: axis, value: value)
        return Double(pairWeight[pair] ?? 0) + 10 * (failureRate[pair] ?? 0) + (passingPairs.contains(pair) ? 0 : 0.5)
    }
}
