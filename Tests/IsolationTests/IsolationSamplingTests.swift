import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// Sampling around a failing configuration nothing is left to try for (``FailureSampling``, docs/ISOLATE.md, "The
/// algorithm", step 9): a flaky three-value fault whose one failing source job left no suspect.
@Suite("Isolation: sampling around a failing configuration")
struct IsolationSamplingTests {
    typealias Fixture = IsolationSessionTests

    static let triple = Combination(["a": "1", "b": "1", "c": "1"])
    static let failing = ["a": "1", "b": "1", "c": "1", "d": "0", "e": "0", "f": "0", "g": "0", "h": "0"]

    /// Eight axes of five values; a source of 150 seeded configurations that pass (none holds the triple), the
    /// triple's failing job, and two more of its jobs that passed: each combination of the failing job is held by too
    /// few failing jobs to be an intermittent suspect. The follow-ups that try its deterministic candidates pass (as a
    /// flaky fault's may, clearing them all); samples and intermittent trials that hold the triple fail every other time.
    static func isolate(seed: UInt64) throws -> (session: IsolationSession, rounds: [[IsolationFollowUp]]) {
        let axes = "abcdefgh".map { "\"\($0)\": [\"0\", \"1\", \"2\", \"3\", \"4\"]" }.joined(separator: ", ")
        let json = #"{"name": "sampling", "corpus": ".", "registry": "noop", "reduction": "full", "axes": {\#(axes)}}"#
        let (parsed, findings) = MatrixFile.parse(Array(json.utf8), file: "sampling.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        let matrix = try #require(parsed)
        var rng = SplitMix64(seed: 5)
        var source: [(configuration: [String: String], verdict: Verdict)] = [(failing, .failed)]
        while source.count < 151 {
            let c = Dictionary(uniqueKeysWithValues: "abcdefgh".map { (String($0), String(rng.below(5))) })
            if !triple.isContained(in: c) { source.append((c, .passed)) }
        }
        source.append((failing.merging(["d": "2", "e": "3", "f": "4", "g": "1", "h": "2"]) { $1 }, .passed))
        source.append((failing.merging(["d": "4", "e": "1", "f": "2", "g": "3", "h": "4"]) { $1 }, .passed))
        var held = 0, count = 0
        func observe(_ c: [String: String], verdict: Verdict? = nil, sampling: Bool = false) -> Observation {
            count += 1
            var v = verdict ?? .passed
            if verdict == nil && sampling && triple.isContained(in: c) {
                held += 1
                v = held % 2 == 0 ? .failed : .passed
            }
            return Observation(subject: Fixture.subject, configuration: c, verdict: v, jobID: "j\(count)", followUp: verdict == nil)
        }
        var session = IsolationSession(source: source.map { observe($0.configuration, verdict: $0.verdict) },
                                       generator: FollowUpGenerator(matrix: matrix), settings: .init(maxSize: 4, budget: 120, seed: seed))
        var rounds: [[IsolationFollowUp]] = []
        for _ in 0..<40 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            rounds.append(asks)
            session.onResults(asks.map { observe($0.configuration, sampling: $0.sample || $0.intermittent) })
        }
        return (session, rounds)
    }

    @Test("a flaky triple's one failing job left no suspect: samples around it make the triple one, and it is confirmed as intermittent",
          arguments: [1, 2, 3] as [UInt64])
    func samplingFindsAFlakyTriple(seed: UInt64) throws {
        let (session, rounds) = try Self.isolate(seed: seed)
        #expect(session.confirmed.map(\.combination) == [Self.triple], "confirmed \(session.confirmed.map(\.combination))")
        #expect(session.confirmed.first?.intermittent == true)
        let samples = rounds.flatMap { $0 }.filter(\.sample)
        #expect(!samples.isEmpty)
        #expect(samples.count <= FailureSampling.most)
        // Samples only when nothing else was left to try: a round of samples asks for nothing else.
        #expect(rounds.allSatisfy { round in round.allSatisfy(\.sample) || !round.contains(where: \.sample) })
        #expect(samples.allSatisfy { $0.target == nil && $0.configuration != Self.failing })
    }

    @Test("samples are the same on every run under a seed, and keep about three quarters of the failing configuration")
    func samplesAreSeeded() throws {
        let first = try Self.isolate(seed: 1).rounds, second = try Self.isolate(seed: 1).rounds
        #expect(first == second)
        let kept = (0..<40).map { FailureSampling.kept(Self.failing, index: $0, seed: 1).count }
        let share = Double(kept.reduce(0, +)) / Double(40 * Self.failing.count)
        #expect(share > 0.6 && share < 0.9, "share \(share)")
        #expect(FailureSampling.kept(Self.failing, index: 3, seed: 1) == FailureSampling.kept(Self.failing, index: 3, seed: 1))
        #expect((0..<8).map { FailureSampling.kept(Self.failing, index: $0, seed: 1) }
            != (0..<8).map { FailureSampling.kept(Self.failing, index: $0, seed: 2) })
    }
}
