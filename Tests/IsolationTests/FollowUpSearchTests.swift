import Isolation
import MatrixPlan
import Testing

/// The generator's search for a follow-up that holds no other candidate (docs/ISOLATE.md, step 6).
@Suite("Isolation: the follow-up search")
struct FollowUpSearchTests {
    /// `k`, `x`, `y` of two values and four axes of ten, with `x=v0 → y≠v1`; `k=v0 + y=v0` is the only live candidate.
    static func fixture() -> (FollowUpGenerator, SuspicionRanking) {
        let two = ["v0", "v1"], ten = (0..<10).map { "v\($0)" }
        let axes = [Axis(name: "k", values: two), Axis(name: "x", values: two), Axis(name: "y", values: two)]
            + (1...4).map { Axis(name: "z\($0)", values: ten) }
        let constraint = Constraint(number: 1, conditions: [Condition(axis: "x", op: .equals, values: ["v0"])],
                                    consequences: [Condition(axis: "y", op: .notEquals, values: ["v1"])])
        let matrix = MatrixFile(name: "search", registry: "bench", seed: 1, axes: axes, exclude: [],
                                constraints: [constraint])
        let zeros = ["z1": "v0", "z2": "v0", "z3": "v0", "z4": "v0"]
        let failing = [zeros.merging(["k": "v0", "x": "v1", "y": "v0"]) { $1 }]
        // The passing jobs clear every combination of the failing one but `k=v0 + y=v0`; `x=v1` failed in one of
        // its three jobs and `x=v0` was never run, so `x=v0` is the safer value — and it forces `y=v0`.
        let passing = [zeros.merging(["k": "v1", "x": "v1", "y": "v0"]) { $1 },
                       zeros.merging(["k": "v0", "x": "v1", "y": "v1"]) { $1 }]
        let ranking = SuspicionRanking(candidatesFrom: failing, failing: failing, passing: passing, maxSize: 2)
        return (FollowUpGenerator(matrix: matrix), ranking)
    }

    @Test("a candidate an early axis forces is avoided though ten thousand configurations of later axes come first")
    func backjumpsToTheAxisThatForcesACandidate() throws {
        let (generator, ranking) = Self.fixture()
        #expect(ranking.live == [Combination(["k": "v0", "y": "v0"])])
        #expect(ranking.weight(axis: "x", value: "v0") < ranking.weight(axis: "x", value: "v1"))
        for seed in 1...4 as ClosedRange<UInt64> {
            let config = try #require(generator.configuration(keeping: Combination(["k": "v0"]), ranking: ranking,
                                                               maxSize: 2, seed: seed))
            // Plain depth-first search took x=v0 (so y=v0) and spent its 400 configurations on z1…z4.
            #expect(config["k"] == "v0" && config["x"] == "v1" && config["y"] == "v1")
            #expect(generator.allows(config))
        }
    }

    /// An axis of one value that no include gives another (`direction: ["auto"]`) is no evidence: every job holds it.
    /// Follow-ups leave it out (the job a follow-up becomes gets it back), and a configuration without it is allowed.
    @Test("axes of one value are constants: left out of follow-ups, and not when an include gives the axis another value")
    func constantAxes() throws {
        let axes = [Axis(name: "direction", values: ["auto"]), Axis(name: "orientation", values: ["portrait"]),
                    Axis(name: "locale", values: ["en", "de"]), Axis(name: "size", values: ["s", "m"])]
        let matrix = MatrixFile(name: "one", registry: "bench", seed: 1, axes: axes,
                                include: [["direction": "pseudo-rtl", "orientation": "portrait", "locale": "en", "size": "s"]])
        let generator = FollowUpGenerator(matrix: matrix)
        // `direction` has another value through the include; `orientation` has one only.
        #expect(generator.constants == ["orientation": "portrait"])
        #expect(FollowUpGenerator.constantAxes(of: matrix) == ["orientation": "portrait"])
        let failing = [["direction": "auto", "locale": "de", "size": "s"]]
        let passing = [["direction": "auto", "locale": "en", "size": "s"], ["direction": "auto", "locale": "de", "size": "m"]]
        let ranking = SuspicionRanking(candidatesFrom: failing, failing: failing, passing: passing, maxSize: 2)
        let config = try #require(generator.configuration(keeping: Combination(["locale": "de", "size": "s"]), ranking: ranking,
                                                           maxSize: 2, seed: 1))
        #expect(config["orientation"] == nil && config["direction"] != nil)
        #expect(generator.allows(config))
        #expect(generator.allows(config.merging(["orientation": "portrait"]) { $1 }))
        #expect(!generator.allows(config.merging(["orientation": "landscape"]) { $1 }))
    }
}
