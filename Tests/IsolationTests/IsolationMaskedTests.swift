import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// Failures a deterministic confirmation masks, and the tallies the next round chooses on (docs/ISOLATE.md, "The
/// algorithm", step 4).
@Suite("Isolation: masked failures")
struct IsolationMaskedTests {
    typealias Fixture = IsolationSessionTests

    /// A flaky pair `a=1 + c=1` beside the deterministic `a=1 + b=1`: four jobs hold both (failing); of the flaky
    /// pair's eight own jobs two fail an attempt (one flaky, one failing), both with d=0; `flakyVerdict` is the first's.
    static func jobs(flakyVerdict: Verdict = .flaky) -> [(configuration: [String: String], verdict: Verdict)] {
        var out: [(configuration: [String: String], verdict: Verdict)] = []
        for d in ["0", "1", "2", "3"] { out.append((["a": "1", "b": "1", "c": "1", "d": d], .failed)) }
        out.append((["a": "1", "b": "0", "c": "1", "d": "0"], flakyVerdict))
        out.append((["a": "1", "b": "2", "c": "1", "d": "0"], .failed))
        for (b, d) in [("0", "1"), ("0", "2"), ("0", "3"), ("2", "1"), ("2", "2"), ("2", "3")] {
            out.append((["a": "1", "b": b, "c": "1", "d": d], .passed))
        }
        return out
    }

    @Test("the failures a deterministic confirmation masks count for a combination whose own jobs show intermittency")
    func maskedFailuresCount() {
        let confirmed = Combination(["a": "1", "b": "1"])
        let flaky = Combination(["a": "1", "c": "1"])
        let larger = Combination(["a": "1", "c": "1", "d": "0"])
        let tally = IsolationEvidence.tallies(Self.jobs(), explained: [confirmed], deterministic: [confirmed], size: 3)
        // Its own jobs: two of eight failing (a quarter: no suspect); with the four masked ones, six of twelve.
        #expect(tally[flaky] == .init(failing: 6, passing: 6, intermittent: 1))
        #expect(IsolationEvidence.evidenced(tally[flaky]))
        // The pair with d=0 is a suspect on its own jobs (two of two): the masked ones do not count for it, and it
        // does not outrank the pair by them.
        #expect(tally[larger] == .init(failing: 2, passing: 0, intermittent: 1))
        // a=1 is a part of the confirmation: its jobs fail whatever a=1 does, and do not count for it.
        #expect(tally[Combination(["a": "1"])] == .init(failing: 2, passing: 6, intermittent: 1))
        // Without the confirmation's being deterministic, or without intermittency in the pair's own jobs (a
        // deterministic fault never shows any), nothing masked counts.
        let intermittentConfirmation = IsolationEvidence.tallies(Self.jobs(), explained: [confirmed], size: 3)
        #expect(intermittentConfirmation[flaky] == .init(failing: 2, passing: 6, intermittent: 1))
        let noIntermittency = IsolationEvidence.tallies(Self.jobs(flakyVerdict: .failed), explained: [confirmed],
                                                        deterministic: [confirmed], size: 3)
        #expect(noIntermittency[flaky] == .init(failing: 2, passing: 6, intermittent: 0))
    }

    @Test("the tallies the next round chooses on leave out the jobs of a combination confirmed in the same decision")
    func talliesAfterConfirmation() throws {
        let matrix = try Fixture.matrix()
        let fault = Combination(["lang": "ar"])
        var count = 0
        func observe(_ c: [String: String], followUp: Bool) -> Observation {
            count += 1
            return Observation(subject: Fixture.subject, configuration: c, verdict: fault.isContained(in: c) ? .failed : .passed,
                               jobID: "j\(count)", followUp: followUp)
        }
        let source = matrix.plan(scenarios: []).configurations.map { observe($0.values, followUp: false) }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 4, budget: 20, seed: 3))
        #expect((session.tallies[Fixture.subject]?[Combination(["theme": "dark"])]?.failing ?? 0) > 0)
        let asks = session.nextRound()
        if session.confirmed.isEmpty { session.onResults(asks.map { observe($0.configuration, followUp: true) }) }
        #expect(session.confirmed.map(\.combination) == [fault])
        // Every failing job holds the confirmed value: no tally is left with a failure.
        let left = (session.tallies[Fixture.subject] ?? [:]).filter { $0.value.failing > 0 }
        #expect(left.isEmpty, "failures left in \(left.keys.sorted().prefix(5))")
    }

    @Test("a suspect with only two failing jobs is passed over for an evidenced part: the two share its other value by chance")
    func fewFailingPassedOver() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(6)
        func config(_ ones: String) -> [String: String] {
            Dictionary(uniqueKeysWithValues: "abcdef".map { (String($0), ones.contains($0) ? "1" : "0") })
        }
        // a=1 fails an attempt in two of its five jobs (one flaky); both hold b=1, and differ in every other value:
        // a=1 + b=1 fails both its jobs, and a=1's jobs without b=1 only passed, so the smaller-first rule does not
        // put a=1 first: only this one does. (Until 7 December 2026 a third failing job `adf` was there; since 3-wise
        // plans read flaky evidence as pairwise ones do, a=1 goes first with it by the smaller-first rule alone.)
        var source: [(String, Verdict)] = [("ab", .flaky), ("abcdef", .failed), ("ace", .passed),
                                           ("aef", .passed), ("acd", .passed)]
        // Every configuration without a=1 passes.
        for c in Fixture.configurations(matrix) where c["a"] == "0" {
            source.append((String("abcdef".filter { c[String($0)] == "1" }), .passed))
        }
        let observations = source.enumerated().map { i, job in
            Observation(subject: Fixture.subject, configuration: config(job.0), verdict: job.1, jobID: "s\(i)", followUp: false)
        }
        var session = IsolationSession(source: observations, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 4, budget: 10, seed: 1))
        // The first round tries a=1 (its follow-up may be a configuration the source ran: its outcome decides).
        _ = session.nextRound()
        #expect(session.tried == [Combination(["a": "1"])], "tried \(session.tried.sorted())")
    }
}
