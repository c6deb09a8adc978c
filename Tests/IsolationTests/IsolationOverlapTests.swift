import Isolation
import MatrixPlan
import Testing

/// Overlapping deterministic faults on two-valued axes (one of `bench isolate`'s systems, where thirty failing
/// configurations were left unexplained): `x=v3` fails with `a=v0` and with `b=v0`, and `x=v1` with `c=v0`, where
/// `a`, `b` and `c` have two values each, so a value of a fault fails in most of the jobs that hold it.
@Suite("Isolation: overlapping deterministic faults")
struct IsolationOverlapTests {
    static let faults = [Combination(["x": "v3", "a": "v0"]), Combination(["x": "v3", "b": "v0"]),
                         Combination(["x": "v1", "c": "v0"])]

    static func matrix() -> MatrixFile {
        let sizes = ["p": 6, "q": 8, "r": 9, "s": 8, "a": 2, "b": 2, "t": 9, "u": 10, "c": 2, "w": 5, "x": 4]
        let axes = sizes.keys.sorted().map { name in Axis(name: name, values: (0..<(sizes[name] ?? 0)).map { "v\($0)" }) }
        let constraint = Constraint(number: 1, conditions: [Condition(axis: "r", op: .equals, values: ["v0"])],
                                    consequences: [Condition(axis: "s", op: .notEquals, values: ["v1"])])
        var matrix = MatrixFile(name: "overlap", registry: "noop", seed: 94, axes: axes, exclude: [["p": "v0", "q": "v1"]],
                                constraints: [constraint])
        matrix.reduction = .tWise(2)
        return matrix
    }

    static let subject = Subject(scenario: "overlap", registry: "noop")

    @Test("with no flaky job, a pair that failed alone is confirmed without first trying its values as intermittent, and a follow-up that fails beside a confirmed fault confirms nothing")
    func overlappingOnTwoValuedAxes() {
        let matrix = Self.matrix()
        let plan = matrix.plan(scenarios: []).configurations.map(\.values)
        func observe(_ c: [String: String], followUp: Bool, id: String) -> Observation {
            Observation(subject: Self.subject, configuration: c,
                        verdict: Self.faults.contains { $0.isContained(in: c) } ? .failed : .passed, jobID: id, followUp: followUp)
        }
        let source = plan.enumerated().map { observe($1, followUp: false, id: "s\($0)") }
        #expect(source.filter { $0.verdict == .failed }.count >= 20)
        let budget = plan.count / 5
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 3, budget: budget, seed: 94))
        var intermittentTrials = 0
        for round in 0..<40 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            intermittentTrials += asks.filter(\.intermittent).count
            session.onResults(asks.enumerated().map { observe($1.configuration, followUp: true, id: "f\(round)-\($0)") })
        }
        #expect(session.spent <= budget)
        // No job was flaky: no value is worth a trial as an intermittent fault.
        #expect(intermittentTrials == 0)
        for c in session.confirmed { #expect(Self.faults.contains(c.combination), "confirmed \(c.combination)") }
        #expect(session.confirmed.count >= 2, "\(session.confirmed.map(\.combination))")
    }

    @Test("two follow-ups that kept a pair and failed for two other faults share only the pair, but a follow-up that holds a confirmed fault is no evidence")
    func followUpExplainedByAConfirmation() {
        let c1 = ["x": "1", "t": "1", "a": "1", "b": "2", "z": "1"]  // holds the confirmed a=1 + z=1
        let c2 = ["x": "1", "t": "1", "a": "2", "b": "1", "z": "2"]  // holds b=1 + z=2, not yet confirmed
        let passing = [["x": "1", "t": "2", "a": "2", "b": "2", "z": "3"], ["x": "2", "t": "1", "a": "2", "b": "2", "z": "3"]]
        let ranking = SuspicionRanking(candidatesFrom: [c1, c2], failing: [c1, c2], passing: passing, maxSize: 2)
        let target = Combination(["x": "1", "t": "1"])
        #expect(ranking.live.contains(target))
        // Their common values hold no other candidate: on their own, the two follow-ups confirm the pair.
        #expect(ranking.isolates(target, failing: [c1, c2], maxSize: 2))
        // With a=1 + z=1 confirmed, c1 failed for it; c2 alone holds other candidates.
        #expect(!ranking.isolates(target, failing: [c1, c2], maxSize: 2, explainedBy: [Combination(["a": "1", "z": "1"])]))
        // The target itself being confirmed does not remove its own evidence.
        #expect(ranking.isolates(target, failing: [c1, c2], maxSize: 2, explainedBy: [target]))
    }
}
