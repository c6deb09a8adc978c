import Foundation
import Isolation
import MatrixPlan
import Testing

/// Isolation on a matrix of few values (docs/ISOLATE.md, "The algorithm", step 3): a follow-up cannot avoid every
/// other candidate there, so a candidate is decided by two failing follow-ups whose common values hold no other one.
@Suite("Isolation: small matrices")
struct IsolationSmallMatrixTests {
    typealias Fixture = IsolationSessionTests

    /// Five axes of two and three values, with two planted pairs (a made-up model, not one of the CTWedge benchmarks).
    static let matrix = MatrixFile(name: "pairs", registry: "noop", seed: 0, axes: [
        Axis(name: "a", values: ["a1", "a2", "a3"]), Axis(name: "b", values: ["b1", "b2", "b3"]),
        Axis(name: "c", values: ["true", "false"]), Axis(name: "d", values: ["true", "false"]), Axis(name: "e", values: ["e1", "e2"]),
    ])
    static let faults = [Combination(["a": "a2", "b": "b3"]), Combination(["c": "true", "e": "e2"])]

    /// Every configuration holding `c=true + e=e2` holds other candidates; those with `a=a1` fewest (only `a1` ever
    /// passed). Before, the fewest candidates won outright, so the second follow-up kept `a=a1` again and with it the
    /// candidate `a=a1 + c=true` that had kept the first from deciding: what both held besides `c=true + e=e2` still
    /// held it, and the bench's made-up five-axis model left `c=true + e=e2` unconfirmed with its two tries spent.
    @Test("a second follow-up of a candidate holds none of the other candidates the first one held, at the price of new ones")
    func secondFollowUpMovesTheBlocker() throws {
        let keep = Combination(["c": "true", "e": "e2"])
        let all = Fixture.configurations(Self.matrix)
        let failing = all.filter { keep.isContained(in: $0) }
        let passing = all.filter { $0["a"] == "a1" && $0["c"] == "false" }
        let ranking = SuspicionRanking(candidatesFrom: failing, failing: failing, passing: passing, maxSize: 3)
        let generator = FollowUpGenerator(matrix: Self.matrix)
        let first = try #require(generator.configuration(keeping: keep, ranking: ranking, maxSize: 3, seed: 1))
        #expect(first["a"] == "a1", "the fewest other candidates")
        let blockers = ranking.suspects(in: first).map(\.combination).filter { !keep.isSubset(of: $0) && !$0.isSubset(of: keep) }
        #expect(blockers.contains(Combination(["a": "a1", "c": "true"])))
        let second = try #require(generator.configuration(keeping: keep, ranking: ranking, maxSize: 3, seed: 1, avoiding: [first]))
        #expect(blockers.allSatisfy { !$0.isContained(in: second) }, "\(second) still holds one of \(blockers) (first \(first))")
        #expect(ranking.suspects(in: second).count > ranking.suspects(in: first).count)
    }

    @Test("a pairwise plan of the model: both planted pairs confirmed with six follow-ups, on ten plan seeds")
    func bothPairsConfirmed() throws {
        var settings = PlanSettings()
        settings.coveringArray.maximumRestarts = 1
        var found = 0
        for seed in UInt64(0)..<10 {
            var matrix = Self.matrix
            matrix.seed = seed
            matrix.reduction = .tWise(2)
            let source = matrix.plan(scenarios: [], settings: settings).configurations.map(\.values)
            let session = try Fixture.isolate(source, budget: 6, seed: seed, generator: FollowUpGenerator(matrix: matrix)) { c, _ in
                Self.faults.contains { $0.isContained(in: c) } ? .failed : .passed
            }
            #expect(session.spent <= 6)
            #expect(Set(session.confirmed.map(\.combination)).isSubset(of: Set(Self.faults)), "seed \(seed): \(session.confirmed)")
            found += session.confirmed.count
        }
        // Before: 17 of the 20.
        #expect(found >= 18, "\(found) of 20 confirmed")
    }

    /// Three two-valued axes, `x=on + y=on` and `y=off + z=on` planted, a pairwise plan of four jobs and three
    /// follow-ups. Before, three rules each went wrong here (each alone fails this test): `z=on` fails three of its four
    /// configurations and one follow-up confirmed it (now a one-value confirmation is tried a second time, which passes
    /// and retracts it); `x=on + z=on`'s follow-ups `on on on` and `on off on` share only `x=on + z=on` and confirmed it
    /// a decision before `y=off + z=on`, which explains the second (now withdrawn: `dropUnisolated`); and with every
    /// configuration holding `x=on + z=on` run, its trial ended the round and the session with a follow-up left (6 of
    /// 20 found; now the next pass moves on to `x=on + y=on`).
    @Test("a three-value Boolean model: no wrong confirmation, and half the planted pairs found, on ten plan seeds")
    func underminedConfirmationWithdrawn() throws {
        let axes = ["x", "y", "z"].map { Axis(name: $0, values: ["on", "off"]) }
        let faults = [Combination(["x": "on", "y": "on"]), Combination(["y": "off", "z": "on"])]
        var settings = PlanSettings()
        settings.coveringArray.maximumRestarts = 1
        var wrong: [String] = []
        var found = 0
        for seed in UInt64(0)..<10 {
            var matrix = MatrixFile(name: "xyz", registry: "noop", seed: seed, axes: axes)
            matrix.reduction = .tWise(2)
            let source = matrix.plan(scenarios: [], settings: settings).configurations.map(\.values)
            let session = try Fixture.isolate(source, budget: 3, seed: seed, generator: FollowUpGenerator(matrix: matrix)) { c, _ in
                faults.contains { $0.isContained(in: c) } ? .failed : .passed
            }
            wrong += session.confirmed.map(\.combination).filter { !faults.contains($0) }.map { "seed \(seed): \($0)" }
            found += session.confirmed.count - session.confirmed.filter { !faults.contains($0.combination) }.count
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(found >= 10, "\(found) of 20 confirmed")
    }
}
