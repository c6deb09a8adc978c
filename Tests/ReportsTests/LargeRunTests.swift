import Foundation
import Reports
import Testing

/// The shape and size of the reports of a 2,000-job run: what keeps a 100,000-job nightly's reports small.
@Suite("Reports of a large run")
struct LargeRunTests {
    static let run = LargeSweep.run()

    @Test("report.html: a bare cell per passed job, panels only for jobs that did not pass, the rest in the island")
    func htmlShape() throws {
        let written = try WrittenReport(runs: [Self.run], report: Self.run.runID)
        let html = written.html
        let passed = Self.run.jobs.filter { $0.plan == .pass }
        #expect(passed.count == 1_985)
        #expect(occurrences(" data-job=\"", in: html) == 2_000)
        #expect(occurrences("<a class=\"cell s-passed\" data-job=\"", in: html) == 1_985)
        #expect(occurrences("<section class=\"job-panel\"", in: html) == 15)
        let island = try #require(try JSONSerialization.jsonObject(with: Data(written.island().utf8)) as? [String: Any])
        let jobs = try #require(island["jobs"] as? [String: Any])
        #expect(Set(jobs.keys) == Set(passed.map(\.jobID)))
        // Each passed job used to carry a ~2.4 KB panel (about 5 MB here); bare cells and the island keep the page
        // under 350 bytes per job.
        #expect(html.utf8.count < 2_000 * 350, "report.html is \(html.utf8.count) bytes")
    }

    @Test("summary.json: passed jobs as compact rows, failed and flaky jobs in full, well under 200 bytes per job")
    func summaryShape() throws {
        let written = try WrittenReport(runs: [Self.run], report: Self.run.runID)
        let data = try Data(contentsOf: written.files.summary)
        let summary = try JSONDecoder().decode(SummaryDocument.self, from: data)
        #expect(summary.passed.count == 1_985)
        #expect(summary.jobs.map(\.status).sorted() == Array(repeating: "failed", count: 10) + Array(repeating: "flaky", count: 5))
        #expect(summary.jobs.allSatisfy { $0.attemptDetails.count == 2 })
        #expect(data.count < 2_000 * 200, "summary.json is \(data.count) bytes")
    }

    @Test("pagePanels caps the panels of jobs that did not pass; the others join the island in plan order")
    func pagePanelLimit() throws {
        let written = try WrittenReport(settings: ReportSettings(pagePanels: 4), runs: [Self.run], report: Self.run.runID)
        #expect(occurrences("<section class=\"job-panel\"", in: written.html) == 4)
        let island = try #require(try JSONSerialization.jsonObject(with: Data(written.island().utf8)) as? [String: Any])
        let jobs = try #require(island["jobs"] as? [String: Any])
        let problems = Self.run.jobs.filter { $0.plan != .pass }
        #expect(jobs.count == 1_985 + problems.count - 4)
        for job in problems.prefix(4) { #expect(jobs[job.jobID] == nil) }
        for job in problems.dropFirst(4) { #expect(jobs[job.jobID] != nil) }
    }
}
