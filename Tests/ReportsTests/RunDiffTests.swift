import Foundation
import Journal
import Reports
import Testing

/// Two nightly runs of the same sweep; in the second, the `browse` scenario was deliberately changed (new job ids)
/// so that it fails in Arabic, and a few other jobs moved.
enum Nightly {
    static let headID = "20261130-0100-bbbb"

    static func headPlan(_ s: String, _ l: String, _ d: String, _ o: String) -> Plan {
        switch (s, l, d, o) {
        case ("browse", "ar", _, _): .fail
        case ("browse", _, _, _): .pass
        case ("checkout", "ar", "rtl", "landscape"): .pass
        case ("xss", "de-DE", "ltr", "landscape"): .pass
        case ("xss", "en-US", "ltr", "portrait"): .flaky
        default: Sweep.basePlan(s, l, d, o)
        }
    }

    static func headDuration(_ s: String, _ l: String, _ d: String, _ o: String) -> Double {
        switch (s, l, d, o) {
        case ("xss", "ar", "ltr", "portrait"): 2.0
        case ("xss", "ar", "ltr", "landscape"): 1.1
        default: 1.0
        }
    }

    static let base = Sweep.base()
    static let head = FixtureRun(
        runID: headID, startedAt: base.startedAt.addingTimeInterval(86_400),
        jobs: Sweep.jobs(headPlan, version: { $0 == "browse" ? 2 : 1 }, duration: headDuration)
    )

    static func ids(_ run: FixtureRun, _ keys: [(String, String, String, String)]) -> Set<String> {
        Set(keys.compactMap { Sweep.job(run, $0.0, $0.1, $0.2, $0.3)?.jobID })
    }
}

@Suite("Run diff")
struct RunDiffTests {
    @Test("two runs of the same matrix with one changed scenario: every category is exact")
    func exactCategories() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base, Nightly.head])
        let diff = try RunDiff.compute(reader: try fixture.reader(), base: Nightly.base.runID, head: Nightly.headID,
                                       durationThreshold: 0.2)
        let base = Nightly.base, head = Nightly.head
        let browseV1 = Set(base.jobs.filter { $0.scenarioID == "browse" }.map(\.jobID))
        let browseV2 = Set(head.jobs.filter { $0.scenarioID == "browse" }.map(\.jobID))
        #expect(browseV1.isDisjoint(with: browseV2))

        #expect(Set(diff.removed.map(\.jobID)) == browseV1)
        #expect(Set(diff.added.map(\.jobID)) == browseV2)
        #expect(Set(diff.newFailures.map(\.jobID)) == Nightly.ids(head, [
            ("browse", "ar", "ltr", "portrait"), ("browse", "ar", "ltr", "landscape"),
            ("browse", "ar", "rtl", "portrait"), ("browse", "ar", "rtl", "landscape"),
        ]))
        #expect(diff.newFailures.allSatisfy { $0.baseOutcome == nil && $0.headOutcome == .failed && $0.failureStep == 2 })
        #expect(Set(diff.stillFailing.map(\.jobID)) == Nightly.ids(head, [
            ("checkout", "en-US", "rtl", "landscape"), ("checkout", "de-DE", "rtl", "landscape"), ("xss", "de-DE", "ltr", "portrait"),
        ]))
        #expect(Set(diff.fixed.map(\.jobID)) == Nightly.ids(head, [("checkout", "ar", "rtl", "landscape")]))
        #expect(Set(diff.newlyFlaky.map(\.jobID)) == Nightly.ids(head, [("xss", "en-US", "ltr", "portrait")]))
        #expect(diff.noLongerFlaky.isEmpty)
        #expect(Set(diff.otherChanges.map(\.jobID)) == Nightly.ids(head, [("xss", "de-DE", "ltr", "landscape")]))
        #expect(diff.otherChanges.first?.baseOutcome == .quarantined)
        #expect(Set(diff.durationRegressions.map(\.jobID)) == Nightly.ids(head, [("xss", "ar", "ltr", "portrait")]))
        #expect(diff.unchanged == 17)
        #expect(diff.hasRegressions)

        // Every added browse job names the removed job it replaces (same scenario id, configuration, registry).
        for entry in diff.added {
            let old = try #require(base.jobs.first { $0.scenarioID == entry.scenarioID && $0.canonical == entry.configuration })
            #expect(entry.replaces == old.jobID)
        }
        // Streamed from the journal pair by pair, the comparison is the pure one over both runs' rows in memory.
        let reader = try fixture.reader()
        let pure = RunDiff.compute(base: (base.runID, try reader.jobs(run: base.runID)),
                                   head: (Nightly.headID, try reader.jobs(run: Nightly.headID)), durationThreshold: 0.2)
        #expect(diff == pure)
    }

    @Test("the text lists each category with its jobs; the JSON round-trips and says whether it regressed")
    func textAndJSON() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base, Nightly.head])
        let diff = try RunDiff.compute(reader: try fixture.reader(), base: Nightly.base.runID, head: Nightly.headID)
        let text = diff.text
        #expect(text.hasPrefix("diff 20261129-0100-aaaa -> 20261130-0100-bbbb: 4 new failures, 1 newly flaky, 1 duration regression,"))
        #expect(text.contains("NEW FAILURES (4)"))
        #expect(text.contains("DURATION REGRESSIONS (1)"))
        #expect(text.contains("1.00 s -> 2.00 s (+100%)"))
        let fixedID = try #require(Sweep.job(Nightly.head, "checkout", "ar", "rtl", "landscape")?.jobID)
        #expect(text.contains("\(fixedID)  checkout [direction=rtl,locale=ar,orientation=landscape] @catalog  failed -> passed"))
        #expect(text.contains("(step 3: expected 'Total' to be visible"))
        #expect(text.hasSuffix("Regressions found.\n"))

        let json = diff.json()
        let decoded = try JSONDecoder().decode(RunDiff.self, from: json)
        #expect(decoded == diff)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["hasRegressions"] as? Bool == true)
        #expect((object["newFailures"] as? [Any])?.count == 4)
    }

    @Test("a run compared with itself has no changes; a high threshold hides the duration regression")
    func noChanges() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base, Nightly.head])
        let reader = try fixture.reader()
        let same = try RunDiff.compute(reader: reader, base: Nightly.headID, head: Nightly.headID)
        #expect(!same.hasRegressions)
        #expect(same.unchanged == Nightly.head.jobs.count - same.stillFailing.count)
        #expect(same.newFailures.isEmpty && same.added.isEmpty && same.removed.isEmpty && same.fixed.isEmpty)
        #expect(same.text.hasSuffix("No regressions.\n"))
        let lenient = try RunDiff.compute(reader: reader, base: Nightly.base.runID, head: Nightly.headID, durationThreshold: 1.5)
        #expect(lenient.durationRegressions.isEmpty)
        let strict = try RunDiff.compute(reader: reader, base: Nightly.base.runID, head: Nightly.headID, durationThreshold: 0.05)
        #expect(strict.durationRegressions.count == 2)
    }

    @Test("an unknown run is a ReportError naming it")
    func unknownRun() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        #expect(throws: ReportError.self) {
            try RunDiff.compute(reader: try fixture.reader(), base: Nightly.base.runID, head: "nope")
        }
        do {
            _ = try RunDiff.compute(reader: try fixture.reader(), base: "missing-run", head: Nightly.base.runID)
        } catch let error as ReportError {
            #expect(error.code == .unknownRun)
            #expect(error.message.contains("missing-run"))
        }
    }
}
