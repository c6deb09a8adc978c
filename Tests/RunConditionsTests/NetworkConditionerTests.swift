import FlowSpec
import FlowVocabulary
import MatrixPlan
import RunConditions
import Testing

@Suite("Network profiles and the seeded conditioner")
struct NetworkConditionerTests {
    func decisions(_ profile: NetworkProfile, seed: UInt64, count: Int = 200) -> [ConditionedRequest] {
        let c = NetworkConditioner(profile: profile, seed: seed)
        return (0..<count).map { _ in c.condition(requestBytes: 400, responseBytes: 12_000) }
    }

    @Test(
        "the same seed reproduces every delay and failure; another seed does not",
        arguments: [NetworkProfile.edge, .threeG, .flaky])
    func determinism(profile: NetworkProfile) {
        #expect(decisions(profile, seed: 42) == decisions(profile, seed: 42))
        #expect(decisions(profile, seed: 42) != decisions(profile, seed: 43))
    }

    @Test("edge: 400 ms ± 100 plus transfer at 30 kB/s")
    func edgeFigures() {
        for d in decisions(.edge, seed: 9) {
            let transfer = 12_400.0 / 30_000 * 1000
            #expect(d.delay.milliseconds >= 300 + transfer - 0.01 && d.delay.milliseconds <= 500 + transfer + 0.01)
            #expect(d.failure == nil)
        }
    }

    @Test("lte is fixed at 50 ms plus a fast transfer; unconditioned is immediate")
    func lteFigures() {
        let lte = decisions(.lte, seed: 1, count: 3)
        #expect(lte.allSatisfy { abs($0.delay.milliseconds - (50 + 12_400.0 / 6_250_000 * 1000)) < 0.01 })
        #expect(decisions(.unconditioned, seed: 1, count: 3).allSatisfy { $0.delay == .zero && $0.failure == nil })
    }

    @Test("flaky fails about 30 % of requests; offline fails every one, not connected")
    func failures() {
        let flaky = decisions(.flaky, seed: 5, count: 1_000).filter { $0.failure != nil }.count
        #expect((250...350).contains(flaky))
        let offline = decisions(.offline, seed: 5, count: 50)
        #expect(offline.allSatisfy { $0.failure == .notConnected })
    }

    @Test("custom profiles keep their figures")
    func custom() throws {
        let spec = try #require(
            NetworkSpec(parsing: "custom(latency=200ms,jitter=0ms,rate=1000Bps,failure-rate=0,failure=timeout)"))
        let profile = NetworkProfile(spec)
        #expect(profile.latency == .milliseconds(200))
        #expect(profile.failure.code == "timeout")
        let d = NetworkConditioner(profile: profile, seed: 0).condition(requestBytes: 0, responseBytes: 1_000)
        #expect(d.delay == .milliseconds(1_200))
    }

    @Test("delivery runs on the virtual clock: an edge response arrives in simulated time, with no wall-time wait")
    func virtualClockDelivery() async {
        let clock = VirtualClock()
        let conditioner = NetworkConditioner(profile: .edge, seed: 3)
        let arrived = ChangeSignal()
        let wallStart = ContinuousClock.now
        let decision = conditioner.deliver(requestBytes: 400, responseBytes: 300_000, on: clock) { _ in arrived.notify()
        }
        #expect(decision.delay > .seconds(10))
        await clock.advance(by: .seconds(20))
        #expect(arrived.generation == 1)
        #expect(clock.now() == .seconds(20))
        // Ten simulated seconds took no comparable wall time (a generous bound; no sleeping happened).
        #expect(ContinuousClock.now - wallStart < .seconds(5))
    }
}
