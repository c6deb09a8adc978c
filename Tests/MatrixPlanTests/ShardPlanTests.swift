import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("shard split: every job in exactly one shard, deterministic, balanced")
struct ShardPlanTests {
    /// `count` job ids shaped like real ones (16 hex digits), and skewed durations for most of them.
    static func corpus(seed: UInt64, count: Int, withDurations: Bool) -> ([String], [String: Double]?) {
        var rng = SplitMix64(seed: seed)
        let ids = (0..<count).map { _ in
            let hex = String(rng.next(), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        guard withDurations else { return (ids, nil) }
        var durations: [String: Double] = [:]
        for id in ids where rng.nextUnit() < 0.9 {
            // Pareto-like: most jobs short, a few long.
            durations[id] = 0.2 / pow(max(rng.nextUnit(), 0.01), 0.8)
        }
        return (ids, durations)
    }

    static let cases: [(seed: UInt64, jobs: Int, shards: Int, durations: Bool)] = [
        (1, 0, 3, false), (2, 1, 4, true), (3, 7, 7, false), (4, 10, 3, true), (5, 100, 1, true),
        (6, 250, 4, false), (7, 250, 4, true), (8, 1_000, 9, true), (9, 37, 50, true), (10, 512, 16, false),
    ]

    @Test("the shards' union is the plan and they are disjoint", arguments: cases)
    func partition(seed: UInt64, jobs: Int, shards: Int, durations: Bool) {
        let (ids, d) = Self.corpus(seed: seed, count: jobs, withDurations: durations)
        let split = ShardSplit(jobIDs: ids, count: shards, durations: d)
        #expect(split.shards.count == shards)
        let all = split.shards.flatMap { $0 }
        #expect(all.count == ids.count, "no job twice")
        #expect(Set(all) == Set(ids.indices), "every job once")
        for positions in split.shards { #expect(positions == positions.sorted(), "each shard keeps plan order") }
        for i in 1...shards {
            let spec = ShardSpec(index: i, count: shards)!
            #expect(split.positions(of: spec) == split.shards[i - 1])
        }
    }

    @Test("the same plan and durations give the same split; the durations' order does not matter", arguments: cases)
    func deterministic(seed: UInt64, jobs: Int, shards: Int, durations: Bool) {
        let (ids, d) = Self.corpus(seed: seed, count: jobs, withDurations: durations)
        let a = ShardSplit(jobIDs: ids, count: shards, durations: d)
        // A dictionary built in another order (what another machine's load of the same file may give).
        let shuffled = d.map { Dictionary(uniqueKeysWithValues: $0.sorted { $0.key > $1.key }) }
        let b = ShardSplit(jobIDs: ids, count: shards, durations: shuffled)
        #expect(a == b)
        #expect(a.method == (durations && !(d ?? [:]).isEmpty ? .durations : .count))
    }

    @Test("by count, shard sizes differ by at most one")
    func countBalanced() {
        let (ids, _) = Self.corpus(seed: 11, count: 103, withDurations: false)
        let split = ShardSplit(jobIDs: ids, count: 5)
        let sizes = split.shards.map(\.count)
        #expect(sizes.max()! - sizes.min()! <= 1)
        #expect(split.shards[0].prefix(3) == [0, 5, 10], "round robin in plan order")
    }

    @Test("longest-first: the slowest shard is within 10 % of the ideal split on a skewed corpus, and beats counting")
    func durationsBalanced() throws {
        let (ids, d) = Self.corpus(seed: 12, count: 2_000, withDurations: true)
        let durations = try #require(d)
        let lpt = ShardSplit(jobIDs: ids, count: 8, durations: durations)
        // Loads of the count split measured with the same durations.
        let byCount = ShardSplit(jobIDs: ids, count: 8)
        let fallback = ShardSplit.median(durations.values.sorted())
        let countLoads = byCount.shards.map { $0.reduce(0) { $0 + (durations[ids[$1]] ?? fallback) } }
        let ideal = countLoads.reduce(0, +) / 8
        #expect(abs(lpt.ideal - ideal) < 1e-6 * ideal)
        #expect(lpt.makespan <= ideal * 1.10)
        #expect(lpt.makespan < countLoads.max()!)
    }

    @Test("jobs without a duration count as the median of the known ones")
    func unknownDurations() {
        let ids = ["a", "b", "c", "d"]
        let split = ShardSplit(jobIDs: ids, count: 2, durations: ["a": 10, "b": 1, "c": 3])
        // Expected: a 10, b 1, c 3, d 3 (median) → LPT: a→1, c→2, d→2, b→2: loads 10 / 7.
        #expect(split.shards == [[0], [1, 2, 3]])
        #expect(split.loads == [10, 7])
    }

    @Test("i/n parses only with 1 <= i <= n")
    func specParsing() {
        #expect(ShardSpec("2/4") == ShardSpec(index: 2, count: 4))
        for bad in ["0/4", "5/4", "1/0", "a/b", "2", "2/4/1", "-1/3", ""] { #expect(ShardSpec(bad) == nil, "\(bad)") }
    }

    @Test("the plan hash changes with the jobs, the seed and the retries, not with the run")
    func planHash() throws {
        let json = """
            {"name": "h", "corpus": ".", "registry": "r", "policy": {"seed": 5, "retries": 1},
             "axes": {"locale": ["en", "ar"]}}
            """
        let s1 = Scenario(id: "s1", title: "S1", tags: [], steps: [Step(verb: .open, target: "catalog")])
        let s2 = Scenario(id: "s2", title: "S2", tags: [], steps: [Step(verb: .tap, target: "buy")])
        let matrix = try Fixtures.matrix(json)
        let plan = matrix.plan(scenarios: [(s1, "s1.json"), (s2, "s2.json")], settings: .quick)
        #expect(plan.hash == matrix.plan(scenarios: [(s1, "s1.json"), (s2, "s2.json")], settings: .quick).hash)
        #expect(plan.hash.count == 64)
        #expect(plan.hash != matrix.plan(scenarios: [(s1, "s1.json")], settings: .quick).hash)
        var reseeded = plan
        reseeded.matrix.seed = 6
        #expect(plan.hash != reseeded.hash)
        var retried = plan
        retried.matrix.retries = 2
        #expect(plan.hash != retried.hash)
    }
}
