import Foundation
@testable import Isolation
import MatrixPlan
import Testing

/// Focus under a short budget (docs/ISOLATE.md, "The algorithm", step 8): when the follow-ups left cannot isolate every
/// failing configuration, the cheapest are worked on first and the others wait.
@Suite("Isolation: focus under a short budget")
struct IsolationBudgetFocusTests {
    typealias Fixture = IsolationSessionTests

    @Test("a failure among n candidates costs about log₂ n follow-ups and one to confirm")
    func cost() {
        #expect(BudgetFocus.cost(candidates: 0) == 1)
        #expect(BudgetFocus.cost(candidates: 1) == 1)
        #expect(BudgetFocus.cost(candidates: 2) == 2)
        #expect(BudgetFocus.cost(candidates: 3) == 3)
        #expect(BudgetFocus.cost(candidates: 56) == 7)
        #expect(BudgetFocus.cost(candidates: 220) == 9)
    }

    @Test("every group when their costs fit; else the cheapest while they fit, larger groups first among equals")
    func admitted() {
        // Costs that fit: all, whatever the order.
        #expect(BudgetFocus.admitted([(7, 1), (nil, 1), (3, 2)], budget: 11) == [0, 1, 2])
        // 7 + 7 + 3 = 17 > 12: the cheapest first (3), then of the two sevens the one two configurations share.
        #expect(BudgetFocus.admitted([(7, 1), (7, 2), (3, 1)], budget: 12) == [1, 2])
        // A nil cost (no deterministic candidate being isolated) is always worked on and takes one follow-up.
        #expect(BudgetFocus.admitted([(7, 1), (nil, 1), (7, 1)], budget: 9) == [0, 1])
        // Nothing fits: still the cheapest one.
        #expect(BudgetFocus.admitted([(9, 1), (8, 1)], budget: 4) == [1])
        #expect(BudgetFocus.admitted([(nil, 1), (9, 1)], budget: 1) == [0, 1])
    }

    /// Eight axes of six values under a pairwise plan (about 40 jobs).
    static let matrixJSON = """
        {"name": "focus", "corpus": ".", "registry": "noop",
         "axes": {\((0..<8).map { "\"a\($0)\": [\((0..<6).map { "\"v\($0)\"" }.joined(separator: ", "))]" }.joined(separator: ", "))},
         "reduction": "pairwise"}
        """

    /// Three three-value faults, each failing one configuration of the plan's 45: isolating one takes about nine
    /// follow-ups. One follow-up per failing configuration a round, as before the rule, found none of them with 20.
    @Test("three-value faults in separate failing configurations, a budget short of all: one is isolated per nine follow-ups",
          arguments: [(10, 1), (18, 2), (28, 3)])
    func shortBudget(budget: Int, found: Int) throws {
        let (matrix, findings) = MatrixFile.parse(Array(Self.matrixJSON.utf8), file: "focus.json", directory: URL(fileURLWithPath: "/"))
        #expect(findings.isEmpty)
        let m = try #require(matrix)
        let source = m.plan(scenarios: []).configurations.map(\.values)
        let picks = [(0, ["a0", "a1", "a2"]), (source.count / 3, ["a3", "a4", "a5"]), (2 * source.count / 3, ["a2", "a5", "a7"])]
        let faults = picks.map { i, axes in Combination(source[i].filter { axes.contains($0.key) }) }
        #expect(source.filter { c in faults.contains { $0.isContained(in: c) } }.count == 3)
        let session = try Fixture.isolate(source, budget: budget, generator: FollowUpGenerator(matrix: m)) { c, _ in
            faults.contains { $0.isContained(in: c) } ? .failed : .passed
        }
        let confirmed = session.confirmed.map(\.combination)
        #expect(confirmed.count == found, "confirmed \(confirmed)")
        #expect(confirmed.allSatisfy(faults.contains), "confirmed \(confirmed)")
        #expect(session.spent <= budget)
    }
}
