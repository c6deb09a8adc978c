import CatalogApp
import FlowSpec
import Testing

@Suite("Reruns reproduce")
struct DeterminismTests {
    /// What must be identical between two runs of one job.
    func fingerprint(_ r: ScenarioResult) -> [String] {
        r.steps.map { "\($0.index) \($0.key) \($0.outcome) \($0.duration) \($0.message ?? "") \($0.interruptions)" }
    }

    @Test(
        "the same seed gives identical outcomes and step durations, under flaky and edge",
        arguments: ["flaky", "edge", "3g"])
    func sameSeed(network: String) async throws {
        for id in ["browse-catalog", "checkout-requires-sign-in", "timer-refresh"] {
            for seed in [UInt64(1), 2, 3, 99] {
                let a = try await Corpus.run(id, ["network": network], seed: seed)
                let b = try await Corpus.run(id, ["network": network], seed: seed)
                #expect(fingerprint(a) == fingerprint(b), "\(id) seed \(seed)")
                #expect(a.duration == b.duration)
            }
        }
    }

    @Test("under flaky, seeds differ: some jobs need a retry or fail, each reproducibly")
    func flakyVariesBySeed() async throws {
        var durations: Set<Duration> = []
        var failures = 0
        for seed in UInt64(1)...40 {
            let result = try await Corpus.run("browse-catalog", ["network": "flaky"], seed: seed)
            durations.insert(result.duration)
            if !result.passed { failures += 1 }
        }
        #expect(durations.count > 1)
        #expect(failures > 0 && failures < 40)
    }

    @Test("step durations report simulated time: edge is slower than lte in the record")
    func simulatedDurations() async throws {
        let edge = try await Corpus.run("browse-catalog", ["network": "edge"])
        let lte = try await Corpus.run("browse-catalog", ["network": "lte"])
        #expect(edge.passed && lte.passed)
        // The first wait covers the catalog request: ~0.4 s ± 0.1 plus ~17 kB at 30 kB/s on edge.
        #expect(edge.steps[1].duration > .milliseconds(750))
        #expect(lte.steps[1].duration < .milliseconds(100))
    }

    @Test("an edge job runs on simulated time: its 5 s wait runs to the deadline on the virtual clock")
    func edgeRunsOnSimulatedTime() async throws {
        let registry = try CatalogWorkerKit.makeRegistry(configuration: ["network": "edge"], seed: 7)
        let edge = try await Corpus.run("large-catalog-loads", ["network": "edge"])
        // Simulated: a 5 s wait ran to its deadline. The wall-time cost (edge vs lte, per job) is a figure of
        // `flowmatrix bench catalog`, not a timed assertion here.
        #expect(edge.duration >= .seconds(5))
        #expect(registry.waitClock is VirtualClock)
    }
}
