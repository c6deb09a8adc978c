import Foundation
import Journal
import Reports
import Testing

/// The base sweep written and reported once per test.
struct WrittenReport {
    let fixture: StoreFixture
    let files: ReportFiles
    let html: String
    let run: FixtureRun

    init(settings: ReportSettings = ReportSettings(), baseline: String? = nil, runs: [FixtureRun] = [Nightly.base],
         report runID: String = Nightly.base.runID) throws {
        fixture = try StoreFixture()
        try fixture.write(runs)
        run = try #require(runs.first { $0.runID == runID })
        files = try ReportWriter.write(runID: runID, reader: try fixture.reader(), blobsRoot: fixture.directory,
                                       into: fixture.runFolder(runID), baseline: baseline, settings: settings)
        html = try String(contentsOf: files.html, encoding: .utf8)
    }

    func job(_ scenario: String, _ locale: String, _ direction: String, _ orientation: String) throws -> FixtureJob {
        try #require(Sweep.job(run, scenario, locale, direction, orientation))
    }

    /// The JSON text of the page's data island (passed and not-run jobs).
    func island() throws -> String {
        let open = "<script type=\"application/json\" id=\"job-data\">"
        let start = try #require(html.range(of: open))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return String(html[start.upperBound..<end.lowerBound])
    }

    /// The HTML of one job's panel.
    func panel(_ id: String) throws -> String {
        let start = try #require(html.range(of: "<section class=\"job-panel\" id=\"job-\(id)\""))
        let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
        return String(html[start.lowerBound..<end.upperBound])
    }
}

func occurrences(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

@Suite("Report writer")
struct ReportWriterTests {
    @Test("writes report.html, junit.xml, summary.json into the run folder")
    func files() throws {
        let written = try WrittenReport()
        for url in [written.files.html, written.files.junit, written.files.summary] {
            #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)")
        }
        #expect(written.files.folder.lastPathComponent == Nightly.base.runID)
        #expect(written.files.warnings.isEmpty)
        #expect(written.files.diff == nil)
    }

    @Test("by default only artifacts of jobs that did not pass are extracted, decompressed")
    func artifactsOfFailures() throws {
        let written = try WrittenReport()
        // Failed jobs: 3 × 2 attempts × 3 artifacts; flaky: 1 failed attempt × 3; timed out: 1 × 3.
        #expect(written.files.artifacts.count == 3 * 2 * 3 + 3 + 3)
        let failed = try written.job("checkout", "ar", "rtl", "landscape")
        let png = written.files.folder.appendingPathComponent("artifacts/\(failed.jobID)/a1/s2-wireframe.png")
        #expect(try Data(contentsOf: png) == Data(PNG.checkerboard(width: 24, height: 16)))
        let log = written.files.folder.appendingPathComponent("artifacts/\(failed.jobID)/a2/s2-log.txt")
        #expect(try String(contentsOf: log, encoding: .utf8).hasPrefix("attempt 2 step 2: expected 'Total'"))
    }

    @Test("--all extracts every artifact; none extracts nothing and the panel lists them by hash")
    func artifactSelection() throws {
        let none = try WrittenReport(settings: ReportSettings(artifacts: .none))
        #expect(none.files.artifacts.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: none.files.folder.appendingPathComponent("artifacts").path))
        let failed = try none.job("checkout", "ar", "rtl", "landscape")
        #expect(try none.panel(failed.jobID).contains("wireframe.png · image/png"))
        #expect(try none.panel(failed.jobID).contains("not extracted"))
        let all = try WrittenReport(settings: ReportSettings(artifacts: .all))
        #expect(all.files.artifacts.count == 24)
    }

    @Test("a blob missing from the store is a warning in the report, not a failure")
    func missingBlob() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        let reader = try fixture.reader()
        let failed = try #require(Sweep.job(Nightly.base, "checkout", "ar", "rtl", "landscape"))
        let row = try #require(try reader.artifacts(run: Nightly.base.runID, job: failed.jobID, attempt: 1)
            .first { $0.artifact.name == "surface.json" })
        try FileManager.default.removeItem(at: try fixture.store.url(for: row.artifact.sha256))
        let files = try ReportWriter.write(runID: Nightly.base.runID, reader: reader, blobsRoot: fixture.directory,
                                           into: fixture.runFolder("r"))
        // The same snapshot content is shared by every failing rtl attempt: each reference warns.
        #expect(!files.warnings.isEmpty)
        #expect(files.warnings.allSatisfy { $0.contains("surface.json") && $0.contains("no blob") })
        let html = try String(contentsOf: files.html, encoding: .utf8)
        #expect(html.contains("unavailable: no blob"))
    }

    @Test("the blob root may be the store directory or its blobs folder")
    func blobRoot() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        let files = try ReportWriter.write(runID: Nightly.base.runID, reader: try fixture.reader(),
                                           blobsRoot: fixture.directory.appendingPathComponent("blobs"),
                                           into: fixture.runFolder("b"))
        #expect(files.artifacts.count == 24)
        #expect(files.warnings.isEmpty)
    }

    @Test("an unknown run or baseline is a ReportError; --baseline last takes the run before")
    func baselines() throws {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base, Nightly.head])
        let reader = try fixture.reader()
        #expect(try ReportWriter.resolveBaseline("last", for: Nightly.headID, reader: reader) == Nightly.base.runID)
        #expect(throws: ReportError.self) { try ReportWriter.resolveBaseline("last", for: Nightly.base.runID, reader: reader) }
        #expect(throws: ReportError.self) { try ReportWriter.resolveBaseline("nope", for: Nightly.headID, reader: reader) }
        #expect(throws: ReportError.self) {
            try ReportWriter.write(runID: "nope", reader: reader, blobsRoot: fixture.directory, into: fixture.runFolder("x"))
        }
        let files = try ReportWriter.write(runID: Nightly.headID, reader: reader, blobsRoot: fixture.directory,
                                           into: fixture.runFolder(Nightly.headID), baseline: "last")
        #expect(files.baselineRunID == Nightly.base.runID)
        #expect(files.diff?.newFailures.count == 4)
    }
}
