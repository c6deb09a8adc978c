import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// The second try of a confirmation whose follow-up held a larger candidate holding it (docs/ISOLATE.md, step 9).
@Suite("Isolation: second tries of confirmations")
struct IsolationSecondTryTests {
    typealias Fixture = IsolationSessionTests

    /// `p=0 + q=0` is in two failing configurations, each failing for a triple of it: `+ r=0` (an axis of two values,
    /// so every follow-up of the pair holds `r=0` or `r=1`, each a live triple) and `+ s=0`. A follow-up with `r=0`
    /// fails, and the pair, held by more failing configurations than either triple, was confirmed: a part of both
    /// faults (pairwise system 2030039).
    @Test("a pair confirmed by a follow-up that held a live triple of it is tried again, and the triples are found", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func partOfTwoTriples(seed: UInt64) throws {
        let json = """
            {"name": "parts", "corpus": ".", "registry": "noop",
             "axes": {"p": ["0", "1", "2"], "q": ["0", "1", "2"], "r": ["0", "1"], "s": ["0", "1", "2", "3"], "t": ["0", "1", "2", "3"]},
             "reduction": "pairwise"}
            """
        let (parsed, findings) = MatrixFile.parse(Array(json.utf8), file: "parts.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        let matrix = try #require(parsed)
        let pair = Combination(["p": "0", "q": "0"])
        let faults = [Combination(["p": "0", "q": "0", "r": "0"]), Combination(["p": "0", "q": "0", "s": "0"])]
        // The plan without the pair, and the pair's two failing configurations.
        let source = matrix.plan(scenarios: []).configurations.map(\.values).filter { !pair.isContained(in: $0) }
            + [["p": "0", "q": "0", "r": "0", "s": "1", "t": "0"], ["p": "0", "q": "0", "r": "1", "s": "0", "t": "1"]]
        let session = try Fixture.isolate(source, budget: 12, seed: seed, generator: FollowUpGenerator(matrix: matrix)) { c, _ in
            faults.contains { $0.isContained(in: c) } ? .failed : .passed
        }
        let confirmed = session.confirmed.map(\.combination)
        #expect(!confirmed.contains(pair), "confirmed \(confirmed)")
        #expect(Set(confirmed) == Set(faults), "confirmed \(confirmed)")
    }
}
