import FlowMatrixCLI
import FlowVocabulary
import Foundation
import MatrixPlan

/// `flowmatrix bench shards`: how even the shards of a skewed corpus are — the slowest shard's total against the
/// ideal split (`total / shards`), split by count vs longest-first by durations (exact, and estimated from a
/// previous run whose durations are off by up to ±30 %) — and what the split costs.
enum ShardsBench {
    static let suite = BenchSuite(
        name: "shards", overview: "slowest shard vs ideal: count split vs duration-balanced"
    ) { quick in
        let jobs = quick ? 2_000 : 20_000
        print("  skewed corpus: \(jobs) jobs, durations Pareto-like (most ~0.2–1 s, a tail up to ~60 s), seed 42")
        print("  shards  ideal s  | by count: slowest s  over ideal | by durations: slowest s  over ideal "
            + "| estimated ±30 %: slowest s  over ideal")
        let corpus = Corpus(jobs: jobs, seed: 42)
        for shards in [2, 4, 8, 16, 32] {
            let ideal = corpus.total / Double(shards)
            let count = corpus.makespan(ShardSplit(jobIDs: corpus.ids, count: shards))
            let exact = corpus.makespan(ShardSplit(jobIDs: corpus.ids, count: shards, durations: corpus.actual))
            let estimated = corpus.makespan(ShardSplit(jobIDs: corpus.ids, count: shards, durations: corpus.estimated))
            func over(_ v: Double) -> String { String(format: "%+.2f %%", (v / ideal - 1) * 100) }
            print(String(format: "  %6d  %7.1f  | %19.1f  %10@ | %23.1f  %10@ | %26.1f  %10@", shards, ideal, count,
                         over(count), exact, over(exact), estimated, over(estimated)))
        }
        let big = Corpus(jobs: quick ? 10_000 : 100_000, seed: 7)
        let started = ContinuousClock.now
        let split = ShardSplit(jobIDs: big.ids, count: 16, durations: big.actual)
        let elapsed = ContinuousClock.now - started
        print(String(format: "  split cost: %d jobs into 16 shards by durations in %.1f ms "
                     + "(slowest %+.3f %% over ideal)",
                     big.ids.count, elapsed.milliseconds, (split.makespan / split.ideal - 1) * 100))
    }

    /// Job ids shaped like real ones and a skewed duration for each; `estimated` is what a previous run measured.
    struct Corpus {
        var ids: [String]
        var actual: [String: Double]
        var estimated: [String: Double]
        var total: Double

        init(jobs: Int, seed: UInt64) {
            var state = seed
            func next() -> Double {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
            }
            ids = (0..<jobs).map(DispatchBench.jobID)
            actual = [:]
            estimated = [:]
            for id in ids {
                let seconds = min(60, 0.2 / pow(max(next(), 1e-4), 0.9))
                actual[id] = seconds
                estimated[id] = seconds * (0.7 + 0.6 * next())
            }
            total = actual.values.reduce(0, +)
        }

        /// The slowest shard's real total under `split`.
        func makespan(_ split: ShardSplit) -> Double {
            split.shards.map { positions in positions.reduce(0) { $0 + (actual[ids[$1]] ?? 0) } }.max() ?? 0
        }
    }
}
