import Foundation
import Reports
import Testing
import Visual
import Wireframe

/// The "Visual changes" section, `summary.json`'s `visual` and `jobs[].visualChanges`, from a run folder's
/// `visual.json` (docs/VISUAL.md), and the section in real Chromium: pictures loaded, slider applied.
@Suite("Visual changes in the report", .timeLimit(.minutes(5)))
struct VisualReportTests {
    /// A report of the nightly fixture whose `visual.json` says every `locale=ar` job changed at step 2, with real
    /// pictures in `visual/`.
    struct Written {
        let fixture: StoreFixture
        let files: ReportFiles
        let changed: Set<String>
        let compared: Int
    }

    static func write() throws -> Written {
        let fixture = try StoreFixture()
        try fixture.write([Nightly.base])
        let runID = Nightly.base.runID
        let folder = fixture.runFolder(runID)
        let pictures = folder.appendingPathComponent("visual")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        for (name, colour) in [("base", UInt8(200)), ("current", UInt8(90)), ("diff", UInt8(255))] {
            var rgba = [UInt8](repeating: colour, count: 64 * 40 * 4)
            for i in stride(from: 3, to: rgba.count, by: 4) { rgba[i] = 255 }
            try Data(try PNGWriter.encode(rgba: rgba, width: 64, height: 40)).write(to: pictures.appendingPathComponent("\(name).png"))
        }
        var results = VisualRunResults(runID: runID, onChange: "report")
        var changed = Set<String>()
        for job in Nightly.base.jobs.prefix(12) {
            var step = VisualRunResults.Step(step: 2, kind: "changed", differentPixels: 120, totalPixels: 2560,
                                             baseline: String(repeating: "a", count: 64), current: String(repeating: "b", count: 64))
            (step.baselineFile, step.currentFile, step.diffFile) = ("visual/base.png", "visual/current.png", "visual/diff.png")
            let isArabic = job.configuration.contains { $0 == ("locale", "ar") }
            if isArabic { changed.insert(job.jobID) }
            results.jobs.append(VisualRunResults.Job(jobID: job.jobID, registry: job.registry, scenarioID: job.scenarioID,
                                                     configuration: job.canonical, comparedSteps: 4,
                                                     changes: isArabic ? [step] : []))
            results.comparedSteps += 4
        }
        try results.write(in: folder)
        let files = try ReportWriter.write(runID: runID, reader: try fixture.reader(), blobsRoot: fixture.directory, into: folder)
        return Written(fixture: fixture, files: files, changed: changed, compared: 12)
    }

    @Test("the section pivots by axis, summary.json counts changed steps per job, only for the changed jobs")
    func sectionAndSummary() throws {
        let written = try Self.write()
        #expect(!written.changed.isEmpty && written.changed.count < written.compared)
        let html = try String(contentsOf: written.files.html, encoding: .utf8)
        #expect(html.contains("<h2>Visual changes</h2>"))
        #expect(html.contains("Visual changes only with locale=ar: \(written.changed.count) changed step(s)"))
        #expect(html.contains("<tr data-axis=\"locale\" data-value=\"ar\"><td class=\"mono\">locale</td><td class=\"mono\">ar</td><td>\(written.changed.count)/"))
        #expect(html.components(separatedBy: "class=\"vis\" data-step=\"2\"").count - 1 == written.changed.count)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: written.files.summary)) as? [String: Any])
        let visual = try #require(summary["visual"] as? [String: Any])
        #expect(visual["changedJobs"] as? Int == written.changed.count && visual["onChange"] as? String == "report")
        let jobs = try #require(summary["jobs"] as? [[String: Any]])
        let flagged = Set(jobs.filter { $0["visualChanges"] as? Int == 1 }.compactMap { $0["id"] as? String })
        #expect(flagged == written.changed)
        #expect(jobs.allSatisfy { $0["visualChanges"] == nil || flagged.contains($0["id"] as? String ?? "") })
    }

    @Test("in Chromium: the section's script runs under the page's CSP, every picture loads, the slider clips")
    func rendered() async throws {
        let written = try Self.write()
        let chromium = try #require(ExternalTool.which("chromium") ?? ExternalTool.which("chromium-browser"),
                                    "chromium is not installed (scripts/install-deps.sh test)")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-chromium-\(UUID().uuidString)")
        defer { ExternalTool.removeTree(profile) }
        var dom = ""
        for _ in 0..<3 where !dom.contains("data-visual-ready=\"true\"") {
            let result = await ExternalTool.run(chromium, [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.path)", "--allow-file-access-from-files", "--virtual-time-budget=20000",
                "--dump-dom", written.files.html.absoluteString,
            ], timeout: 90)
            #expect(!result.timedOut && result.status == 0, "\(result.stderr.suffix(2000))")
            dom = result.stdout
        }
        #expect(dom.contains("data-visual-ready=\"true\""))
        let images = dom.components(separatedBy: "<img").count - 1
        let changed = written.changed.count
        // Per changed step: three side by side, two in the overlay, two under the slider.
        #expect(images >= changed * 7)
        #expect(dom.components(separatedBy: "data-loaded=\"true\"").count - 1 == changed * 7, "\(dom.suffix(3000))")
        #expect(!dom.contains("data-loaded=\"false\""))
        #expect(dom.contains("data-position=\"50\""))
        #expect(dom.contains("clip-path: inset(0px 50% 0px 0px)"))
    }
}
