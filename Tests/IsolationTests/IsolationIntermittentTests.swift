import Foundation
import Isolation
import MatrixPlan
import Testing

/// Intermittent faults the suspects of earlier rules could not reach (docs/ISOLATE.md, "The algorithm", steps 4 and 7).
@Suite("Isolation: intermittent faults")
struct IsolationIntermittentTests {
    typealias Fixture = IsolationSessionTests

    /// A matrix of `count` axes `a`, `b`, … of two values, "0" and "1".
    static func binaryAxes(_ count: Int) throws -> MatrixFile {
        let axes = "abcdefgh".prefix(count).map { "\"\($0)\": [\"0\", \"1\"]" }.joined(separator: ", ")
        let json = #"{"name": "binary", "corpus": ".", "registry": "noop", "axes": {\#(axes)}, "reduction": "full"}"#
        let (matrix, findings) = MatrixFile.parse(Array(json.utf8), file: "binary.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        return try #require(matrix)
    }

    @Test("under a 3-wise plan a flaky three-value fault is an intermittent suspect, confirmed as itself, not a larger candidate")
    func flakyThreeValueFault() throws {
        let matrix = try Self.binaryAxes(6)
        let fault = Combination(["a": "1", "b": "1", "c": "1"])
        // Its eight source jobs: three flaky, two failing, three passing; its follow-ups pass, then fail.
        let pattern: [Verdict] = [.flaky, .passed, .failed, .passed, .flaky, .failed, .passed, .flaky]
        var held = 0, followUps = 0, count = 0
        func observe(_ c: [String: String], followUp: Bool) -> Observation {
            count += 1
            var verdict: Verdict = .passed
            if fault.isContained(in: c) {
                if followUp { followUps += 1; verdict = followUps % 2 == 0 ? .failed : .passed } else { verdict = pattern[held % 8]; held += 1 }
            }
            return Observation(subject: Fixture.subject, configuration: c, verdict: verdict, jobID: "j\(count)", followUp: followUp)
        }
        let source = Fixture.configurations(matrix).map { observe($0, followUp: false) }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 4, budget: 13, seed: 2))
        for _ in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.map { observe($0.configuration, followUp: true) })
        }
        #expect(session.confirmed.map(\.combination) == [fault], "confirmed \(session.confirmed.map(\.combination))")
        #expect(session.confirmed.first?.intermittent == true)
    }

    @Test("a flaky value whose own follow-ups passed is confirmed from a failing follow-up of a pair holding it, not the pair")
    func intermittentPartOfFailingPair() throws {
        let matrix = try Self.binaryAxes(7)
        let a1 = Combination(["a": "1"])
        // a=1 fails intermittently: a third of its source jobs flaky, a third failing. The follow-ups that keep it
        // alone happen to pass; every other job holding it fails.
        var count = 0
        func observe(_ c: [String: String], followUp: Bool, target: Combination? = nil) -> Observation {
            count += 1
            var verdict: Verdict = .passed
            if a1.isContained(in: c) { verdict = !followUp ? [.flaky, .failed, .passed][count % 3] : target == a1 ? .passed : .failed }
            return Observation(subject: Fixture.subject, configuration: c, verdict: verdict, jobID: "j\(count)", followUp: followUp)
        }
        // The source: the configurations with an even number of ones (follow-ups are new configurations).
        let source = Fixture.configurations(matrix)
            .filter { c in c.values.filter { $0 == "1" }.count % 2 == 0 }.map { observe($0, followUp: false) }
        // Two follow-ups of an intermittent suspect, so that both of a=1's pass.
        var settings = IsolationSession.Settings(maxSize: 3, budget: 30, seed: 3)
        settings.intermittentTries = 2
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix), settings: settings)
        for _ in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.map { observe($0.configuration, followUp: true, target: $0.target) })
        }
        #expect(session.tried.contains(a1))
        #expect(session.confirmed.map(\.combination) == [a1], "confirmed \(session.confirmed.map(\.combination))")
        #expect(session.confirmed.first?.intermittent == true)
    }
}
