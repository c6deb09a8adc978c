import Foundation
import Reports
import Testing

/// The shape and size of the reports of a 2,000-job run: what keeps a 100,000-job nightly's reports small.
@Suite("Reports of a large run")
struct LargeRunTests {
    static let run = LargeSweep.run()

    @Test("report.html: a bare cell per passed job and no panel; every job's panel data in its chunk, compressed")
    func htmlShape() throws {
        let written = try WrittenReport(runs: [Self.run], report: Self.run.runID)
        let html = written.html
        let passed = Self.run.jobs.filter { $0.plan == .pass }
        #expect(passed.count == 1_985)
        #expect(occurrences(" data-job=\"", in: html) == 2_000)
        #expect(occurrences("<a class=\"cell s-passed\" data-job=\"", in: html) == 1_985)
        #expect(occurrences("<section class=\"job-panel\"", in: html) == 0)
        #expect(written.files.chunks.map(\.lastPathComponent) == ["jobs-000.js", "jobs-001.js"])
        #expect(Set(try written.chunkJobs().keys) == Set(Self.run.jobs.map(\.jobID)))
        // The page holds what is read first: beside its scripts and styles (the same for every run), under 100 bytes
        // per job here (16-hex-digit ids would make it smaller).
        let assets = html.matches(of: /<(script|style)[^>]*>[\s\S]*?<\/(script|style)>/).reduce(0) { $0 + $1.output.0.utf8.count }
        #expect(html.utf8.count - assets < 2_000 * 100, "report.html is \(html.utf8.count) bytes, \(assets) of them assets")
        // The panels of all 2,000 jobs with their steps, gzip-compressed and base64-encoded: under 40 bytes per job.
        let chunkBytes = try written.files.chunks.reduce(0) {
            $0 + (try FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int ?? 0)
        }
        #expect(chunkBytes < 2_000 * 40, "the chunks hold \(chunkBytes) bytes")
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
}
