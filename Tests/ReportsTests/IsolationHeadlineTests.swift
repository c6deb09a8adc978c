import Foundation
import Isolation
@testable import Reports
import Testing

/// The report's isolation sentence (`IsolationSections.isolationHeadline`): what `flowmatrix isolate` found, in the
/// words the terminal uses.
@Suite("the report's isolation sentence")
struct IsolationHeadlineTests {
    static func record(_ json: String) throws -> IsolationRecord {
        try JSONDecoder().decode(IsolationRecord.self, from: Data(json.utf8))
    }

    @Test("an intermittent confirmation fails 'intermittently', a deterministic one does not; each with its evidence")
    func intermittent() throws {
        let r = try Self.record("""
            {"source": "r1", "jobsRun": 7, "budget": 12, "runs": ["r2"], "retracted": [], "unresolved": [],
             "confirmed": [
               {"scenario": "sync", "registry": "r", "combination": {"theme": ["dark"]}, "followUps": 3, "jobs": [],
                "intermittent": true},
               {"scenario": "badge", "registry": "r", "combination": {"lang": ["ja"], "size": ["s"]}, "followUps": 4, "jobs": []}]}
            """)
        #expect(IsolationSections.isolationHeadline(r) == "Isolation of run r1 (7 follow-up jobs): "
            + "badge fails with lang=ja + size=s, confirmed by 4 follow-up jobs; "
            + "sync fails intermittently with theme=dark, confirmed by 3 follow-up jobs.")
    }

    @Test("a confirmation with a set of windows is one part, and marks the pivot's pattern of the set and of each window")
    func valueSet() throws {
        let r = try Self.record("""
            {"source": "r1", "jobsRun": 6, "budget": 12, "runs": ["r2"], "retracted": [], "unresolved": [],
             "confirmed": [
               {"scenario": "item", "registry": "r", "combination": {"locale": ["de"], "window": ["narrow", "tall"]},
                "followUps": 6, "jobs": []}]}
            """)
        #expect(IsolationSections.isolationHeadline(r) == "Isolation of run r1 (6 follow-up jobs): "
            + "item fails with locale=de + window ∈ {narrow, tall}, confirmed by 6 follow-up jobs.")
        let c = try #require(r.confirmed.first)
        func v(_ pairs: [(String, String)]) -> Set<AxisValue> { Set(pairs.map { AxisValue(axis: $0.0, value: $0.1) }) }
        let scenario = (AxisPivot.scenarioAxis, "item")
        #expect(PivotIsolation.matches(c, v([scenario, ("locale", "de"), ("window", "narrow"), ("window", "tall")]), scenario: "item"))
        #expect(PivotIsolation.matches(c, v([scenario, ("locale", "de"), ("window", "tall")]), scenario: "item"))
        #expect(PivotIsolation.matches(c, v([("locale", "de"), ("window", "narrow")]), scenario: nil))
        // Not a window it was not confirmed with, another scenario, or fewer axes than it needs.
        #expect(!PivotIsolation.matches(c, v([scenario, ("locale", "de"), ("window", "wide")]), scenario: "item"))
        #expect(!PivotIsolation.matches(c, v([(AxisPivot.scenarioAxis, "cart"), ("locale", "de"), ("window", "tall")]), scenario: "cart"))
        #expect(!PivotIsolation.matches(c, v([scenario, ("locale", "de")]), scenario: "item"))
    }

    @Test("unexplained configurations of scenarios whose follow-ups all passed are said not to have failed again")
    func didNotFailAgain() throws {
        func unresolved(_ name: String, configurations: Int, followUps: Int, failing: Int) -> String {
            """
            {"scenario": "\(name)", "registry": "r", "configurations": \((0..<configurations).map { "\"lang=l\($0)\"" }),
             "suspects": [], "followUps": \(followUps), "failingFollowUps": \(failing)}
            """
        }
        func headline(_ entries: [String]) throws -> String? {
            IsolationSections.isolationHeadline(try Self.record("""
                {"source": "r1", "jobsRun": 12, "budget": 12, "runs": ["r2"], "retracted": [], "confirmed": [],
                 "unresolved": [\(entries.joined(separator: ","))]}
                """))
        }
        #expect(try headline([unresolved("app", configurations: 3, followUps: 12, failing: 0)]) == "Isolation of run r1 "
            + "(12 follow-up jobs): 3 failing configurations left unexplained (all in scenarios whose follow-ups all "
            + "passed: fixed since the run, or intermittent).")
        #expect(try headline([unresolved("app", configurations: 3, followUps: 12, failing: 0),
                              unresolved("net", configurations: 2, followUps: 5, failing: 2)])?
            .hasSuffix("5 failing configurations left unexplained (3 in scenarios whose follow-ups all passed: fixed "
                + "since the run, or intermittent).") == true)
        // One follow-up that passed is not enough to say so, nor are follow-ups of which one failed.
        #expect(try headline([unresolved("app", configurations: 1, followUps: 1, failing: 0)])?
            .hasSuffix("1 failing configuration left unexplained.") == true)
    }

    /// The web shop under a pairwise plan (`Fixtures/web-pairwise-defects.txt`): isolation confirmed
    /// `direction=pseudo-accented` for the cart's two sentence scenarios only, and the run-wide pattern of that value
    /// also holds other scenarios' failures (the right-to-left ones in `ar` and `he`, the German button). Its mark says
    /// where it was confirmed, where it said "confirmed by 2 follow-up jobs" as if every failure of it had been.
    @Test("a run-wide pattern confirmed for some scenarios says for which")
    func runWideConfirmedIn() throws {
        let r = try Self.record("""
            {"source": "r1", "jobsRun": 22, "budget": 28, "runs": ["r2"], "retracted": [], "unresolved": [],
             "confirmed": [
               {"scenario": "cart-summary-localized", "registry": "web", "combination": {"direction": ["pseudo-accented"]},
                "followUps": 1, "jobs": []},
               {"scenario": "cart-total-localized", "registry": "web", "combination": {"direction": ["pseudo-accented"]},
                "followUps": 1, "jobs": []},
               {"scenario": "delivery-estimate", "registry": "web", "combination": {"network": ["edge"]}, "followUps": 1, "jobs": []}]}
            """)
        func explanation(_ values: [(String, String)]) -> AxisPivot.Explanation {
            AxisPivot.Explanation(group: AxisPivot.group(values.map { AxisValue(axis: $0.0, value: $0.1) }, AxisPivot.Tally(),
                                                         totalFailures: 6), explains: 2)
        }
        var pivot = AxisPivot.compute([AxisPivot.Input(axes: [AxisValue(axis: "network", value: "edge")], status: .failed)])
        pivot.explanations = [explanation([("direction", "pseudo-accented")]),
                              explanation([(AxisPivot.scenarioAxis, "delivery-estimate"), ("network", "edge")])]
        PivotIsolation.markConfirmed(&pivot, r)
        let e = pivot.explanations[0]
        #expect(e.confirmedBy == 2)
        #expect(e.confirmedIn == ["cart-summary-localized", "cart-total-localized"])
        #expect(PivotIsolation.note(e) == "confirmed in cart-summary-localized and cart-total-localized by 2 follow-up jobs")
        // A pattern of one scenario says only by how many jobs.
        let own = pivot.explanations[1]
        #expect(own.confirmedBy == 1 && own.confirmedIn == nil)
        #expect(PivotIsolation.note(own) == "confirmed by 1 follow-up job")
        // Beyond three scenarios, how many.
        var many = e
        many.confirmedIn = ["a", "b", "c", "d"]
        #expect(PivotIsolation.note(many) == "confirmed in 4 scenarios by 2 follow-up jobs")
    }
}
