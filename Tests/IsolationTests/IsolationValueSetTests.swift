import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// A deterministic fault of one value with a set of another axis's values (the Catalog's pseudo-double direction in
/// each narrow window) beside a flaky network: seen through the value alone it looks intermittent
/// (``LargerCandidates``). The end-to-end case is
/// `ThreeWiseIsolateTests`, on the Catalog itself.
@Suite("Isolation: a value with a set of another axis's values")
struct IsolationValueSetTests {
    typealias Fixture = IsolationSessionTests

    /// Every configuration of `axes` once, its verdict from `verdict`, in a session with 3-wise candidates.
    static func session(_ axes: String, verdict: ([String: String], Int) -> Verdict) throws -> IsolationSession {
        let json = #"{"name": "value-set", "corpus": ".", "registry": "noop", "reduction": "full", "axes": {\#(axes)}}"#
        let (parsed, findings) = MatrixFile.parse(Array(json.utf8), file: "value-set.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        let matrix = try #require(parsed)
        let source = Fixture.configurations(matrix).enumerated().map { n, c in
            Observation(subject: Fixture.subject, configuration: c, verdict: verdict(c, n), jobID: "j\(n)", followUp: false)
        }
        return IsolationSession(source: source, generator: FollowUpGenerator(matrix: matrix),
                                settings: .init(maxSize: 4, budget: 20, seed: 1))
    }

    static func larger(_ session: IsolationSession, _ target: Combination) -> LargerCandidates {
        let record = session.record(Fixture.subject)
        return LargerCandidates(of: target, ranking: session.ranking(Fixture.subject), record: record,
                                background: record.background(without: target))
    }

    /// The job's index scattered, for a verdict in no pattern of the axes (the index runs n fastest, then l, w, d).
    static func scattered(_ n: Int) -> Int { (n &* 2_654_435_761) >> 11 }

    static let pd = Combination(["d": "pd"])

    /// Expects pd's larger candidates to be the pairs of pd with `values` and to explain pd, and a failing follow-up
    /// of pd in `followUp` not to confirm it.
    static func expectPairsExplainPD(_ session: IsolationSession, _ values: [[String: String]], followUp: [String: String]? = nil,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        let found = larger(session, pd)
        #expect(found.candidates == Set(values.map { Combination($0.merging(["d": "pd"]) { $1 }) }), sourceLocation: sourceLocation)
        #expect(found.explain, sourceLocation: sourceLocation)
        if let followUp {
            #expect(!IntermittentConfirmation(session: session).isolatesIntermittent(pd, in: followUp, subject: Fixture.subject, ranking: session.ranking(Fixture.subject)),
                    sourceLocation: sourceLocation)
        }
    }

    static let axes = #""d": ["ltr", "rtl", "pd"], "w": ["w0", "w1", "w2", "w3", "w4"], "l": ["en", "de", "ja"], "n": ["lte", "flaky"]"#

    @Test("pd in two narrow windows of five, a flaky network beside it: the pairs explain pd, and no follow-up confirms pd alone")
    func valueWithAWindowSet() throws {
        let session = try Self.session(Self.axes) { c, n in
            if c["d"] == "pd" && ["w0", "w1"].contains(c["w"]) { return .failed }
            return c["n"] == "flaky" && n % 3 == 0 ? .flaky : .passed
        }
        // pd fails in the 12 of its 30 jobs in w0 or w1 (40 %, above the suspect share); the flaky network makes a
        // third of its jobs there flaky, pd's among them. A failing follow-up of pd in a wide window on the flaky
        // network, where nothing else is suspect, does not confirm it.
        Self.expectPairsExplainPD(session, [["w": "w0"], ["w": "w1"]], followUp: ["d": "pd", "w": "w3", "l": "ja", "n": "flaky"])
    }

    @Test("pd with two deterministic pairs and a flaky one: the flaky pair stands out of pd's other jobs and joins the candidates")
    func valueWithDeterministicAndFlakyPairs() throws {
        // d=pd fails every job in w0 and with l=de, fails an attempt in every job in w1, and passes elsewhere: it
        // fails in 18 of its 30 jobs, some of them flaky, and looks like a flaky value.
        let session = try Self.session(Self.axes) { c, n in
            guard c["d"] == "pd" else { return .passed }
            if c["w"] == "w0" || c["l"] == "de" { return .failed }
            return c["w"] == "w1" ? (n % 3 == 0 ? .failed : .flaky) : .passed
        }
        // A flaky follow-up of pd that holds the flaky pair decides nothing about pd alone.
        Self.expectPairsExplainPD(session, [["w": "w0"], ["l": "de"], ["w": "w1"]], followUp: ["d": "pd", "w": "w1", "l": "ja", "n": "lte"])
    }

    @Test("pd fails every job on one value of a two-valued axis and half its jobs on the other: both pairs, not pd, explain it")
    func valueOnATwoValuedAxis() throws {
        let session = try Self.session(Self.axes) { c, n in
            guard c["d"] == "pd" else { return .passed }
            if c["n"] == "lte" { return .failed }
            let r = Self.scattered(n)
            return r % 2 == 0 ? (r % 4 == 0 ? .failed : .flaky) : .passed
        }
        Self.expectPairsExplainPD(session, [["n": "lte"], ["n": "flaky"]])
    }

    @Test("a flaky value that happened to fail more on one value of a two-valued axis is not explained away by that pair")
    func flakyValueFailingUnevenly() throws {
        // pd fails an attempt in seven of eight of its jobs on n=lte and one of three on n=flaky, the other jobs one in
        // seven: the pair with n=lte stands out of pd's jobs, and pd's jobs on n=flaky do not stand out twenty times
        // over from the others, but they are likelier a fault's than the others'. pd has no deterministic candidate,
        // so no intermittent one is sought (and, were one sought, what it leaves would not explain pd away).
        let session = try Self.session(Self.axes) { c, n in
            let r = Self.scattered(n)
            guard c["d"] == "pd" else { return r % 7 == 0 ? .flaky : .passed }
            return (c["n"] == "lte" ? r % 8 != 0 : r % 3 == 0) ? .flaky : .passed
        }
        let found = Self.larger(session, Self.pd)
        #expect(found.candidates.isEmpty)
        #expect(!found.explain)
    }

    @Test("a flaky value beside a deterministic one: its pairs with the deterministic value never pass, and explain nothing")
    func flakyValueBesideADeterministicOne() throws {
        // l=de fails every job; d=pd fails every other job of its own.
        let session = try Self.session(Self.axes) { c, n in
            if c["l"] == "de" { return .failed }
            // Every other job of pd's, in no pattern of the other axes (not `n % 2`: the job's index runs n fastest).
            let r = Self.scattered(n)
            if c["d"] == "pd" { return r % 2 == 0 ? .failed : r % 4 == 1 ? .flaky : .passed }
            return .passed
        }
        let found = Self.larger(session, Self.pd)
        #expect(!found.candidates.contains { $0.pairs.contains(Combination.Pair(axis: "l", value: "de")) })
        #expect(!found.explain)
    }

    @Test("a flaky value whose jobs fail everywhere alike: no larger candidate explains it")
    func flakyValue() throws {
        let session = try Self.session(Self.axes) { c, n in
            // Every other job of pd's, in no pattern of the other axes.
            let r = Self.scattered(n)
            return c["d"] == "pd" && r % 2 == 0 ? (r % 4 == 0 ? .failed : .flaky) : .passed
        }
        let found = Self.larger(session, Self.pd)
        #expect(found.candidates.isEmpty)
        #expect(!found.explain)
    }

    @Test("a flaky pair with no deterministic pair beside its value: a follow-up holding the pair decides nothing about the value")
    func flakyPairTakenForItsValue() throws {
        // pd fails an attempt in most of its jobs on n=lte and never on n=flaky; the other jobs one in seven.
        let verdict: ([String: String], Int) -> Verdict = { c, n in
            let r = Self.scattered(n)
            guard c["d"] == "pd" else { return r % 7 == 0 ? .flaky : .passed }
            return c["n"] == "lte" && r % 8 != 0 ? .flaky : .passed
        }
        let pair = Combination(["d": "pd", "n": "lte"])
        var session = try Self.session(Self.axes, verdict: verdict)
        let found = Self.larger(session, Self.pd)
        #expect(found.candidates.isEmpty && !found.explain)
        #expect(found.ambiguous == pair)
        let ranking = session.ranking(Fixture.subject)
        #expect(!IntermittentConfirmation(session: session).isolatesIntermittent(Self.pd, in: ["d": "pd", "w": "w3", "l": "ja", "n": "lte"], subject: Fixture.subject, ranking: ranking))
        // The session moves the network in pd's follow-ups, and confirms the pair: a follow-up holding it fails every
        // other time, any other passes.
        var held = 0
        for round in 0..<20 {
            let asks = session.nextRound()
            if asks.isEmpty { break }
            session.onResults(asks.enumerated().map { i, f in
                var v = Verdict.passed
                if pair.isContained(in: f.configuration) { held += 1; v = held % 2 == 1 ? .failed : .passed }
                return Observation(subject: Fixture.subject, configuration: f.configuration, verdict: v, jobID: "f\(round)-\(i)",
                                   followUp: true)
            })
        }
        #expect(session.confirmed.map(\.combination) == [pair], "confirmed \(session.confirmed.map(\.combination))")
    }
}
