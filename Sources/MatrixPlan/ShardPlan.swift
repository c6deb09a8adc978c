import FlowCrypto
import FlowSpec
import FlowVocabulary

/// One shard of a plan: `index` of `count`, counted from 1 (`--shard 2/4`).
public struct ShardSpec: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    public var index: Int
    public var count: Int

    /// - Returns: nil unless `1 <= index <= count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `i/n` (1-based), as `--shard` takes it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: i, count: n)
    }

    /// `i/n`.
    public var description: String { "\(index)/\(count)" }
}

/// How a plan's jobs are split across `count` shards: a pure function of the job list (in plan order) and,
/// optionally, the jobs' expected durations.
///
/// - Without durations: **by count**, round robin in plan order (job `k` goes to shard `k mod count`), so
///   every shard gets `⌊jobs/count⌋` or one more, and a mix of scenarios and configurations.
/// - With durations: **longest processing time first** (LPT): jobs sorted by expected duration, longest first
///   (ties in plan order), each to the shard with the least total so far (ties to the lowest shard). A job
///   without a duration is expected to take the median of the known ones. LPT's slowest shard is within
///   4/3 of the optimum in the worst case and, with many jobs, within a fraction of a percent of the ideal
///   `total / count` unless a single job is longer than that.
///
/// The same jobs and durations give the same split on every machine: every shard computes the split
/// independently and runs only its part. Every job lands in exactly one shard.
public struct ShardSplit: Sendable, Hashable {
    /// How the split was made.
    public enum Method: String, Sendable, Hashable {
        case count
        case durations
    }

    public var method: Method
    /// Per shard (index 0 is shard 1/n), the plan positions of its jobs, ascending.
    public var shards: [[Int]]
    /// Per shard, the sum of its jobs' expected durations (seconds; each job counts 1 without durations).
    public var loads: [Double]

    /// Splits `jobIDs` (plan order) into `count` shards.
    /// - Parameters:
    ///   - jobIDs: the plan's job ids in plan order.
    ///   - count: the number of shards (at least 1).
    ///   - durations: expected seconds per job id (a previous run's); nil or empty splits by count.
    public init(jobIDs: [String], count: Int, durations: [String: Double]? = nil) {
        let n = max(1, count)
        var shards = Array(repeating: [Int](), count: n)
        var loads = Array(repeating: 0.0, count: n)
        // One lookup per job: what the durations say of it (nil: unknown, or not a usable duration).
        let measured: [Double?] = durations.map { d in
            jobIDs.map { id in d[id].flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        } ?? []
        let known = measured.compactMap { $0 }
        guard !known.isEmpty else {
            for k in jobIDs.indices {
                shards[k % n].append(k)
                loads[k % n] += 1
            }
            self.init(method: .count, shards: shards, loads: loads)
            return
        }
        let fallback = Self.median(known.sorted())
        let expected = measured.map { $0 ?? fallback }
        let order = jobIDs.indices.sorted { a, b in
            expected[a] != expected[b] ? expected[a] > expected[b] : a < b
        }
        var heap = LoadHeap(count: n)
        for k in order {
            let shard = heap.popLeast()
            shards[shard].append(k)
            loads[shard] += expected[k]
            heap.push(shard, load: loads[shard])
        }
        for i in shards.indices { shards[i].sort() }
        self.init(method: .durations, shards: shards, loads: loads)
    }

    init(method: Method, shards: [[Int]], loads: [Double]) {
        self.method = method
        self.shards = shards
        self.loads = loads
    }

    /// The plan positions of `shard`'s jobs, ascending.
    public func positions(of shard: ShardSpec) -> [Int] {
        shard.index <= shards.count ? shards[shard.index - 1] : []
    }

    /// The slowest shard's total.
    public var makespan: Double { loads.max() ?? 0 }

    /// The total over all shards divided by the shard count: what a perfect split would give.
    public var ideal: Double { loads.reduce(0, +) / Double(max(1, loads.count)) }

    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 1 }
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}

/// A binary min-heap of shards by load (ties: the lower shard index first).
private struct LoadHeap {
    private var items: [(load: Double, shard: Int)]

    init(count: Int) {
        items = (0..<count).map { (0, $0) }
    }

    private static func less(_ a: (load: Double, shard: Int), _ b: (load: Double, shard: Int)) -> Bool {
        a.load != b.load ? a.load < b.load : a.shard < b.shard
    }

    mutating func popLeast() -> Int {
        let top = items[0].shard
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, Self.less(items[l], items[m]) { m = l }
                if r < items.count, Self.less(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }

    mutating func push(_ shard: Int, load: Double) {
        items.append((load, shard))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard Self.less(items[i], items[p]) else { break }
            items.swapAt(i, p)
            i = p
        }
    }
}

extension Plan {
    /// Identifies what a run of this plan does, so shards of one plan can be told from shards of another:
    /// hex SHA-256 of `flowmatrix-plan-v1`, the seed, retries, job timeout (ms), fail-fast, keep mode and
    /// registry, then every job id in plan order, one per line. The job ids already cover each scenario's
    /// content, configuration and registry (see `JobIdentity`).
    public var hash: String {
        var text = "flowmatrix-plan-v1\nseed=\(matrix.seed)\nretries=\(matrix.retries)\n"
        text += "timeout-ms=\(matrix.jobTimeout.milliseconds)\nfail-fast=\(matrix.failFast)\n"
        text += "keep=\(matrix.keep.rawValue)\nregistry=\(matrix.registries.joined(separator: ","))\n"
        text.reserveCapacity(text.utf8.count + jobs.count * (JobIdentity.length + 1))
        for job in jobs {
            text += job.id
            text += "\n"
        }
        return SHA256.hexHash(Array(text.utf8))
    }
}
