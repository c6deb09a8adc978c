import Foundation
@testable import Isolation
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

    static let flakyTriple = Combination(["a": "1", "b": "1", "c": "1"])

    /// Isolates a flaky three-value fault on six binary axes (every configuration a source job): its eight source jobs
    /// three flaky, two failing, three passing (its pairs fail in a fifth of their jobs, no suspect share); its
    /// follow-ups pass, then fail.
    static func isolateFlakyTriple(_ settings: IsolationSession.Settings) throws -> IsolationSession {
        let matrix = try binaryAxes(6)
        let pattern: [Verdict] = [.flaky, .passed, .failed, .passed, .flaky, .failed, .passed, .flaky]
        var held = 0, followUps = 0, count = 0
        func observe(_ c: [String: String], followUp: Bool) -> Observation {
            count += 1
            var verdict: Verdict = .passed
            if flakyTriple.isContained(in: c) {
                if followUp { followUps += 1; verdict = followUps % 2 == 0 ? .failed : .passed } else { verdict = pattern[held % 8]; held += 1 }
            }
            return Observation(subject: Fixture.subject, configuration: c, verdict: verdict, jobID: "j\(count)", followUp: followUp)
        }
        let source = Fixture.configurations(matrix).map { observe($0, followUp: false) }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix), settings: settings)
        for _ in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.map { observe($0.configuration, followUp: true) })
        }
        return session
    }

    @Test("under a 3-wise plan a flaky three-value fault is an intermittent suspect, confirmed as itself, not a larger candidate")
    func flakyThreeValueFault() throws {
        let session = try Self.isolateFlakyTriple(.init(maxSize: 4, budget: 13, seed: 2))
        #expect(session.confirmed.map(\.combination) == [Self.flakyTriple], "confirmed \(session.confirmed.map(\.combination))")
        #expect(session.confirmed.first?.intermittent == true)
    }

    @Test("under a full plan a flaky three-value fault is an intermittent suspect too (as `flowmatrix isolate` sets it), confirmed as itself")
    func flakyThreeValueFaultUnderAFullPlan() throws {
        var settings = IsolationSession.Settings(maxSize: 3, budget: 12, seed: 2)
        settings.intermittentSize = 3
        let full = try Self.isolateFlakyTriple(settings)
        #expect(full.confirmed.map(\.combination) == [Self.flakyTriple], "confirmed \(full.confirmed.map(\.combination))")
        #expect(full.confirmed.first?.intermittent == true)
        // With suspects of two values (a pairwise plan's), nothing explains it, and nothing wrong is confirmed.
        let pairs = try Self.isolateFlakyTriple(.init(maxSize: 3, budget: 12, seed: 2))
        #expect(pairs.confirmed.isEmpty, "confirmed \(pairs.confirmed.map(\.combination))")
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

extension IsolationIntermittentTests {
    @Test("a part tried already still fails without the whole at a fifth of its jobs; a new suspect needs a third")
    func triedPartStillFails() {
        let part = Combination(["a": "1"]), whole = Combination(["a": "1", "b": "1"])
        // a=1's jobs without b=1: 3 failing (one flaky) of 13 — as a flaky value's source jobs look once its four
        // follow-ups have passed (bench isolate, pairwise, one-value faults: a pair holding it was confirmed).
        func record(failing: Int, flaky: Int, passing: Int) -> IsolationEvidence.Record {
            var jobs: [(configuration: [String: String], verdict: Verdict)] = []
            for i in 0..<(failing + passing) {
                let verdict: Verdict = i < flaky ? .flaky : i < failing ? .failed : .passed
                jobs.append((["a": "1", "b": "0", "c": "\(i)"], verdict))
                jobs.append((["a": "1", "b": "1", "c": "\(i)"], .failed))
            }
            return IsolationEvidence.Record(jobs: jobs, explained: [], mixed: [], size: 2)
        }
        let thin = record(failing: 3, flaky: 1, passing: 10)
        #expect(thin.stillFails(part, without: whole))
        #expect(!thin.failsWithout(part, whole), "no new suspect at 3 of 13")
        #expect(!record(failing: 1, flaky: 1, passing: 3).stillFails(part, without: whole), "one failing job")
        #expect(!record(failing: 2, flaky: 0, passing: 3).stillFails(part, without: whole), "no intermittency")
        #expect(!record(failing: 2, flaky: 1, passing: 10).stillFails(part, without: whole), "2 of 12: less than a fifth")
    }

    @Test("a follow-up of an intermittent pair moves the other values of the failing jobs that made it a suspect: a flaky three-value fault holding the pair confirms no part of it")
    func intermittentPairOfAFlakyTriple() throws {
        let values = #"["0", "1", "2", "3"]"#
        let json = #"{"name": "triple", "corpus": ".", "registry": "noop", "axes": {"a": \#(values), "b": \#(values), "c": ["0", "1"], "d": \#(values), "e": \#(values), "f": \#(values)}, "reduction": "pairwise"}"#
        let (parsed, findings) = MatrixFile.parse(Array(json.utf8), file: "triple.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        let matrix = try #require(parsed)
        // A flaky triple (every job holding it fails its first attempt and passes the retry), and a deterministic
        // pair on c=0 whose failing jobs make c=0 look the more suspicious value of c: a follow-up of a=1 + b=1 that
        // only weighed the values held c=1, failed for the triple, and confirmed the pair.
        let triple = Combination(["a": "1", "b": "1", "c": "1"])
        let pair = Combination(["c": "0", "d": "2"])
        var count = 0
        func observe(_ c: [String: String], followUp: Bool) -> Observation {
            count += 1
            let verdict: Verdict = pair.isContained(in: c) ? .failed : triple.isContained(in: c) ? .flaky : .passed
            return Observation(subject: Fixture.subject, configuration: c, verdict: verdict, jobID: "j\(count)", followUp: followUp)
        }
        var configurations = matrix.plan(scenarios: []).configurations.map(\.values)
        // The triple in two jobs of the source run, so that its pairs are intermittent suspects.
        configurations += [["a": "1", "b": "1", "c": "1", "d": "3", "e": "3", "f": "3"], ["a": "1", "b": "1", "c": "1", "d": "0", "e": "2", "f": "1"]]
        let source = configurations.map { observe($0, followUp: false) }
        var session = IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                       settings: .init(maxSize: 3, budget: 12, seed: 5))
        var pairTrials: [[String: String]] = []
        for _ in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            pairTrials += asks.filter { $0.intermittent && ($0.target.map { $0.count == 2 && $0.isSubset(of: triple) } ?? false) }
                .map(\.configuration)
            session.onResults(asks.map { observe($0.configuration, followUp: true) })
        }
        #expect(!pairTrials.isEmpty)
        for c in pairTrials { #expect(!triple.isContained(in: c), "a pair's follow-up held the whole triple: \(c)") }
        for c in session.confirmed.map(\.combination) {
            #expect(!(c.isSubset(of: triple) && c != triple), "confirmed \(c), a part of the flaky triple")
        }
        #expect(session.confirmed.map(\.combination).contains(pair))
    }
}
