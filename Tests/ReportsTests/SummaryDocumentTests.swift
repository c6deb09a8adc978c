import Foundation
import Reports
import Testing

@Suite("summary.json")
struct SummaryDocumentTests {
    @Test("counts, per-job outcome, durations and artifact references")
    func content() throws {
        let written = try WrittenReport()
        let summary = try JSONDecoder().decode(SummaryDocument.self, from: Data(contentsOf: written.files.summary))
        #expect(summary.schemaVersion == SummaryDocument.currentSchemaVersion && summary.schemaVersion == 5)
        #expect(summary.total == 36)
        #expect(summary.counts == ["passed": 29, "failed": 3, "flaky": 1, "timedOut": 1, "quarantined": 1, "notRun": 1])
        // junit.xml's counters, in test cases: here (scenario jobs only) one case per job.
        #expect(summary.testCases.tests == 36 && summary.testCases.failures == 3 && summary.testCases.errors == 2
            && summary.testCases.skipped == 1 && summary.testCases.flaky == 1)
        #expect(summary.run.id == Nightly.base.runID)
        #expect(summary.run.seed == String(Nightly.base.seed))
        #expect(summary.run.matrix == "locale-rtl-sweep")
        #expect(summary.run.workers == ["worker-1", "worker-2", "worker-a", "worker-b"])
        #expect(summary.run.axes == ["direction", "locale", "orientation"])
        #expect(summary.run.durationSeconds.map { $0 > 0 } == true)
        #expect(summary.run.settings == .object(["retries": .number(1), "workers": .number(2)]))
        #expect(summary.headline.hasPrefix("4 failures follow exactly scenario=checkout + direction=rtl + orientation=landscape"))
        #expect(summary.patterns.map(\.group.label) == ["scenario=checkout + direction=rtl + orientation=landscape"])
        // 29 plain passes as compact rows; the other 7 jobs in full.
        #expect(summary.jobs.count == 7)
        #expect(summary.passed.count == 29)
        #expect(Set(summary.passed.map(\.id) + summary.jobs.map(\.id)) == Set(written.run.jobs.map(\.jobID)))
        #expect(summary.scenarios == ["browse": "Browse the catalog", "checkout": "Check out", "xss": Sweep.xssTitle])
        let passedID = try written.job("checkout", "en-US", "ltr", "portrait").jobID
        let row = try #require(summary.passed.first { $0.id == passedID })
        #expect(row.scenarioID == "checkout")
        #expect(row.configuration == "direction=ltr,locale=en-US,orientation=portrait")
        #expect(row.registry == "catalog")
        #expect(row.durationSeconds == 1.0)
        let text = try String(contentsOf: written.files.summary, encoding: .utf8)
        #expect(text.contains("[\"\(passedID)\",\"checkout\",\"direction=ltr,locale=en-US,orientation=portrait\",\"catalog\",1]"))
        #expect(!text.contains("\"attemptDetails\":[{\"attempt\":1,\"durationSeconds\":1,\"interruptedSteps\":1,\"outcome\":\"passed\""))

        let failedID = try written.job("checkout", "ar", "rtl", "landscape").jobID
        let failed = try #require(summary.jobs.first { $0.id == failedID })
        #expect(failed.status == "failed")
        #expect(failed.configuration == ["direction": "rtl", "locale": "ar", "orientation": "landscape"])
        #expect(failed.attempts == 2)
        #expect(failed.durationSeconds == 1.0)
        #expect(failed.failureStep == 2)
        #expect(failed.attemptDetails.map(\.worker) == ["worker-a", "worker-b"])
        #expect(failed.attemptDetails.map(\.interruptedSteps) == [1, 1])
        #expect(failed.artifacts.count == 6)
        let png = try #require(failed.artifacts.first { $0.attempt == 1 && $0.name == "wireframe.png" })
        #expect(png.carried)
        #expect(png.blob == "blobs/\(png.sha256.prefix(2))/\(png.sha256).gz")
        #expect(FileManager.default.fileExists(atPath: written.fixture.directory.appendingPathComponent(png.blob).path))

        let cancelled = try #require(summary.jobs.first { $0.outcome == "cancelled" })
        #expect(cancelled.status == "notRun")
        #expect(summary.baseline == nil)
    }
}
