import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// What a flaky job says, and what may stand in the way of confirming an intermittent fault (docs/ISOLATE.md,
/// "The algorithm", steps 1, 4 and 7), on binary axes `a`, `b`, … (``IsolationIntermittentTests/binaryAxes(_:)``).
@Suite("Isolation: flaky evidence")
struct IsolationFlakyEvidenceTests {
    typealias Fixture = IsolationSessionTests

    /// A configuration of binary axes `axes` with the named ones at "1": `config("ab", "abcde")`.
    static func config(_ ones: String, _ axes: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: axes.map { (String($0), ones.contains($0) ? "1" : "0") })
    }

    static func observations(_ jobs: [(String, Verdict)], axes: String, followUp: Bool = false) -> [Observation] {
        jobs.enumerated().map { i, job in
            Observation(subject: Fixture.subject, configuration: config(job.0, axes), verdict: job.1,
                        jobID: "\(followUp ? "f" : "s")\(i)", followUp: followUp)
        }
    }

    @Test("a flaky job's passing retry clears its configuration's combinations (a failing repeat makes it intermittent), under pairwise and 3-wise plans")
    func flakyRetryIsAPass() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(4)
        // Every configuration but one passes, and one is flaky; a=1 + b=1 + c=1 is held by the flaky one only.
        let jobs = Fixture.configurations(matrix).compactMap { c -> (String, Verdict)? in
            let ones = String("abcd".filter { c[String($0)] == "1" })
            return ones == "abcd" ? nil : (ones, ones == "abc" ? .flaky : .passed)
        }
        let abc = Combination(["a": "1", "b": "1", "c": "1"])
        func live(maxSize: Int) -> Set<Combination> {
            var session = IsolationSession(source: Self.observations(jobs, axes: "abcd"),
                                           generator: FollowUpGenerator(matrix: matrix), settings: .init(maxSize: maxSize, budget: 5, seed: 1))
            // A lone flaky job is repeated before it counts; its repeat fails: a failure to explain.
            let asks = session.nextRound()
            #expect(asks.map(\.target) == [nil] && asks.first?.configuration == Self.config("abc", "abcd"))
            session.onResults(Self.observations([("abc", .failed)], axes: "abcd", followUp: true))
            #expect(session.unexplained(Fixture.subject) == [Self.config("abc", "abcd")])
            return session.ranking(Fixture.subject).live
        }
        // It passed an attempt, so none of its combinations is a deterministic candidate, with candidates of at most
        // three values (a pairwise plan) or four (a 3-wise plan; until 7 December 2026 its retry counted as a pass
        // there only if a repeat passed, and a=1 + b=1 + c=1 stayed a candidate).
        #expect(live(maxSize: 3).isEmpty)
        #expect(live(maxSize: 4).isEmpty)
        #expect(!live(maxSize: 4).contains(abc))
    }

    @Test("flaky jobs that share an evidenced suspect count without repeats; a lone flaky job elsewhere is repeated")
    func corroboratedFlakyJobs() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(4)
        // a=1 fails intermittently: of its eight jobs three are flaky, two failed, three passed (spread over the other
        // axes). One job without it is flaky too (noise of the infrastructure, say).
        let verdicts: [String: Verdict] = ["a": .flaky, "ab": .flaky, "acd": .flaky, "ac": .failed, "abd": .failed,
                                           "bcd": .flaky]
        let jobs = Fixture.configurations(matrix).map { c -> (String, Verdict) in
            let ones = String("abcd".filter { c[String($0)] == "1" })
            return (ones, verdicts[ones] ?? .passed)
        }
        var session = IsolationSession(source: Self.observations(jobs, axes: "abcd"), generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 2, budget: 10, seed: 1))
        // The three flaky jobs of a=1 are failures to explain at once; the lone one is not, until its repeat fails.
        let unexplained = Set(session.unexplained(Fixture.subject))
        #expect(unexplained.isSuperset(of: ["a", "ab", "acd"].map { Self.config($0, "abcd") }))
        #expect(!unexplained.contains(Self.config("bcd", "abcd")))
        let repeats = session.nextRound().filter { $0.target == nil }.map(\.configuration)
        #expect(repeats == [Self.config("bcd", "abcd")])
    }

    @Test("a subject whose every failure is a flaky job: jobs that corroborate each other count at once, and none is repeated")
    func onlyFlakyFailures() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(4)
        // Every job holding a=1 is flaky (its first attempt fails, its retry passes); every other job passes.
        let jobs = Fixture.configurations(matrix).map { c -> (String, Verdict) in
            (String("abcd".filter { c[String($0)] == "1" }), c["a"] == "1" ? .flaky : .passed)
        }
        var session = IsolationSession(source: Self.observations(jobs, axes: "abcd"), generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 2, budget: 10, seed: 1))
        #expect(session.unexplained(Fixture.subject).count == 8)
        // No repeat: a=1 is tried at once. Every configuration has run, but a recorded job may be one that made it a
        // suspect: the trial runs afresh, and only that new job can confirm it.
        let a1 = Combination(["a": "1"])
        let asks = session.nextRound()
        #expect(asks.count == 1 && asks.allSatisfy { $0.target == a1 && $0.intermittent })
        #expect(session.tried == [a1], "tried \(session.tried.sorted())")
        #expect(session.confirmed.isEmpty)
        let config = try #require(asks.first?.configuration)
        // The fresh job passes: no confirmation, though the recorded job of that configuration was flaky.
        session.onResults([Observation(subject: Fixture.subject, configuration: config, verdict: .passed, jobID: "f1", followUp: true)])
        #expect(session.confirmed.isEmpty)
        // The next try fails an attempt: a=1 is confirmed, by that follow-up job.
        let again = session.nextRound()
        #expect(again.map(\.target) == [a1])
        let retry = try #require(again.first?.configuration)
        session.onResults([Observation(subject: Fixture.subject, configuration: retry, verdict: .flaky, jobID: "f2", followUp: true)])
        let confirmation = try #require(session.confirmed.first)
        #expect(confirmation.combination == a1 && confirmation.intermittent)
        #expect(confirmation.jobs.contains("f2") && confirmation.jobs.allSatisfy { $0.hasPrefix("f") })
    }

    @Test("a flaky job whose repeat passed gets one more repeat once everything else is explained; a failing one is a failure to explain")
    func noiseRechecked() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(4)
        let abc = Self.config("abc", "abcd")
        let jobs = Fixture.configurations(matrix).map { c -> (String, Verdict) in
            let ones = String("abcd".filter { c[String($0)] == "1" })
            return (ones, ones == "abc" ? .flaky : .passed)
        }
        func session(recheck: Verdict) -> IsolationSession {
            var session = IsolationSession(source: Self.observations(jobs, axes: "abcd"),
                                           generator: FollowUpGenerator(matrix: matrix), settings: .init(maxSize: 3, budget: 6, seed: 1))
            // The lone flaky job is repeated; its repeat passes: noise, nothing to explain.
            let first = session.nextRound()
            #expect(first.map(\.target) == [nil] && first.first?.configuration == abc)
            session.onResults(Self.observations([("abc", .passed)], axes: "abcd", followUp: true))
            #expect(session.unexplained(Fixture.subject).isEmpty)
            // Budget is left: one more repeat.
            let second = session.nextRound()
            #expect(second.map(\.target) == [nil] && second.first?.configuration == abc)
            session.onResults(Self.observations([("abc", recheck)], axes: "abcd", followUp: true))
            return session
        }
        // It passes again: noise for good, and it is not repeated a third time.
        var quiet = session(recheck: .passed)
        #expect(quiet.unexplained(Fixture.subject).isEmpty)
        #expect(quiet.nextRound().isEmpty)
        // It fails an attempt: a failure to explain again.
        let loud = session(recheck: .flaky)
        #expect(loud.unexplained(Fixture.subject) == [abc])
    }

    @Test("a live candidate that only failures holding the suspect make is no rival to its confirmation; one another failure needs is")
    func rivalNeedsItsOwnFailure() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(5)
        let a1 = Combination(["a": "1"])
        // a=1 fails intermittently. `abde` failed outright, so b=1 + d=1 + e=1 (which no passing job holds) is a live
        // deterministic candidate; but every failure holding it holds a=1 too.
        var jobs: [(String, Verdict)] = [("a", .flaky), ("ab", .failed), ("ad", .flaky), ("acd", .flaky), ("abde", .failed),
                                         ("ac", .passed), ("abc", .passed), ("ace", .passed), ("ae", .passed), ("ade", .passed),
                                         ("abd", .passed)]
        jobs += ["", "b", "c", "d", "e", "bc", "de", "bd", "be", "ce"].map { ($0, Verdict.passed) }
        func decide(_ jobs: [(String, Verdict)]) -> Bool {
            let session = IsolationSession(source: Self.observations(jobs, axes: "abcde"),
                                           generator: FollowUpGenerator(matrix: matrix), settings: .init(maxSize: 3, budget: 10, seed: 1))
            let ranking = session.ranking(Fixture.subject)
            #expect(ranking.live.contains(Combination(["b": "1", "d": "1", "e": "1"])))
            return IntermittentConfirmation(session: session).isolatesIntermittent(a1, in: Self.config("abde", "abcde"), subject: Fixture.subject, ranking: ranking)
        }
        #expect(decide(jobs))
        // A failure without a=1 that holds the candidate makes it a rival.
        #expect(!decide(jobs + [("bde", .failed)]))
    }

    @Test("a larger suspect whose jobs show intermittency stands in the way of its part only when the part never fails without it")
    func intermittentLargerSuspect() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(5)
        let a1 = Combination(["a": "1"])
        // a=1 fails intermittently; its three jobs with d=1 all failed (two flaky), so a=1 + d=1 never passed. Its
        // jobs without d=1 fail two times in six: no suspect on their own, but not clean either.
        let jobs: [(String, Verdict)] = [("a", .flaky), ("ab", .failed), ("ad", .flaky), ("acd", .flaky), ("abde", .failed),
                                         ("ac", .passed), ("abc", .passed), ("ace", .passed), ("ae", .passed)]
            + ["", "b", "c", "d", "e", "bc", "de", "bd", "be", "ce"].map { ($0, Verdict.passed) }
        func decide(_ jobs: [(String, Verdict)]) -> Bool {
            let session = IsolationSession(source: Self.observations(jobs, axes: "abcde"),
                                           generator: FollowUpGenerator(matrix: matrix), settings: .init(maxSize: 3, budget: 10, seed: 1))
            #expect(IsolationEvidence.suspicious(session.tallies[Fixture.subject]?[Combination(["a": "1", "d": "1"])]))
            return IntermittentConfirmation(session: session).isolatesIntermittent(a1, in: Self.config("ad", "abcde"), subject: Fixture.subject,
                                                ranking: session.ranking(Fixture.subject))
        }
        #expect(decide(jobs))
        // When a=1's jobs without d=1 all pass, a=1 + d=1 explains the failure better.
        #expect(!decide(jobs.map { ["a", "ab"].contains($0.0) ? ($0.0, .passed) : $0 }))
    }

    @Test("a deterministic pair goes before its value when the value's jobs without the pair are no suspect, though a flaky job holds the value")
    func deterministicPairBeforeItsValue() throws {
        let matrix = try IsolationIntermittentTests.binaryAxes(5)
        let pair = Combination(["a": "1", "b": "1"])
        // a=1 + b=1 fails every job; one job of a=1 without b=1 is flaky: a=1 fails 9 of its 16 jobs, one flaky.
        let jobs = Fixture.configurations(matrix).map { c -> (String, Verdict) in
            let ones = String("abcde".filter { c[String($0)] == "1" })
            return (ones, pair.isContained(in: c) ? .failed : ones == "ac" ? .flaky : .passed)
        }
        var session = IsolationSession(source: Self.observations(jobs, axes: "abcde"), generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 2, budget: 10, seed: 1))
        _ = session.nextRound()
        #expect(session.tried == [pair], "tried \(session.tried.sorted())")
    }
}

extension IsolationFlakyEvidenceTests {
    @Test("an evidenced suspect's part with as many intermittent jobs goes first, unless its jobs without the rest only passed")
    func smallerEvidencedSuspectFirst() {
        let failing = ["a": "1", "b": "1", "c": "0"]
        let (a, ab) = (Combination(["a": "1"]), Combination(["a": "1", "b": "1"]))
        func pick(part: IsolationEvidence.Tally, whole: IsolationEvidence.Tally) -> Combination? {
            IsolationEvidence.evidencedSuspect(in: failing, tally: [a: part, ab: whole], intermittentJobs: 3, maxSize: 3) { _ in true }
        }
        // a=1 + b=1 has the higher failure share (3 of 5 against 3 of 7), from the same three flaky jobs: a=1 first.
        #expect(pick(part: .init(failing: 4, passing: 4, intermittent: 3), whole: .init(failing: 3, passing: 2, intermittent: 3)) == a)
        // a=1's jobs without b=1 passed three times and never failed: the pair first.
        #expect(pick(part: .init(failing: 3, passing: 5, intermittent: 3), whole: .init(failing: 3, passing: 2, intermittent: 3)) == ab)
    }
}
