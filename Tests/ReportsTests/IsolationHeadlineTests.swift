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
}
