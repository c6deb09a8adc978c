import Foundation
import Reports
import Testing

/// Renders report.html in headless Chromium (Debian `chromium`) and checks the DOM after the page's script ran.
@Suite("Report in a real browser", .timeLimit(.minutes(5)))
struct BrowserTests {
    private func chromium() throws -> String {
        if let path = ExternalTool.which("chromium") ?? ExternalTool.which("chromium-browser") { return path }
        let tool = ExternalTool.ensure("chromium", package: "chromium")
        return try #require(tool.path, "\(tool.reason) (or run scripts/install-deps.sh test)")
    }

    /// The DOM of `url` once the page says it is ready, as Chromium serialises it. `--dump-dom` serialises when the
    /// virtual-time budget runs out; on a loaded machine that can come before the page's first animation frame (its
    /// ready marker), so a dump without the marker is taken again, up to three times.
    private func dumpDOM(_ url: String) async throws -> String {
        var dom = ""
        for _ in 0..<3 {
            dom = try await dumpOnce(url)
            if dom.contains("data-ready=\"true\"") { break }
        }
        return dom
    }

    private func dumpOnce(_ url: String) async throws -> String {
        let chromium = try chromium()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-chromium-\(UUID().uuidString)")
        defer { ExternalTool.removeTree(profile) }
        let result = await ExternalTool.run(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-component-update", "--disable-sync",
            "--disable-background-networking", "--disable-breakpad", "--user-data-dir=\(profile.path)",
            "--virtual-time-budget=30000", "--dump-dom", url,
        ], timeout: 90)
        #expect(!result.timedOut, "chromium did not finish within 90 s")
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        return result.stdout
    }

    @Test("heat map cells, a failed job's panel opened from the URL, wireframe images loaded, titles as text")
    func renderedDOM() async throws {
        let written = try WrittenReport()
        let failed = try written.job("checkout", "ar", "rtl", "landscape")
        let url = written.files.html.absoluteString + "#job=\(failed.jobID)"
        let dom = try await dumpDOM(url)

        // The script ran (the CSP hash admits it) and opened the panel named by the fragment.
        #expect(dom.contains("data-ready=\"true\""))
        #expect(dom.contains("data-open-job=\"\(failed.jobID)\""))
        #expect(dom.contains("<section class=\"job-panel open\" id=\"job-\(failed.jobID)\""))
        #expect(occurrences("class=\"job-panel open\"", in: dom) == 1)
        #expect(dom.contains("class=\"cell s-failed selected\" data-job=\"\(failed.jobID)\""))

        // One cell per job.
        #expect(occurrences(" data-job=\"", in: dom) == written.run.jobs.count)

        // The opened panel was built from its chunk: both attempts' wireframes and the failing step's, each decoded
        // from the one carried blob and loaded as an image; none failed.
        #expect(occurrences("<img data-artifact=", in: dom) == 3)
        #expect(occurrences("data-loaded=\"true\"", in: dom) == 3)
        #expect(!dom.contains("data-loaded=\"false\""))
        #expect(dom.contains("<tr class=\"step failing\" data-step=\"2\">"))
        #expect(dom.contains("interruptions handled: alert 'Allow notifications?' dismissed"))

        // The script-tag title stayed text: escaped in the serialised DOM, never an element; so did the log's markup,
        // decompressed in the page into the panel's preview, and the snapshot is pretty-printed.
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!dom.contains("<script>alert(1)</script>"))
        #expect(dom.contains("&lt;b&gt;not bold&lt;/b&gt;"))
        #expect(!dom.contains("<b>not bold</b>"))
        #expect(dom.contains("\"clipped\": true"))
    }

    @Test("without a fragment no panel is open; a blob missing from the folder marks its images as not loaded")
    func brokenImage() async throws {
        let written = try WrittenReport()
        let failed = try written.job("checkout", "ar", "rtl", "landscape")
        let closed = try await dumpDOM(written.files.html.absoluteString)
        #expect(closed.contains("data-ready=\"true\""))
        #expect(!closed.contains("job-panel open"))
        #expect(!closed.contains("<img"))
        // Blank out the wireframe's entry in its pack: the page finds no blob there.
        let refs = try #require((try written.jobData(failed.jobID)[8] as? [[Any]])?.first?[9] as? [[Any]])
        let place = try #require(refs.first { $0[1] as? String == "wireframe.png" }?[5] as? [Int])
        let pack = written.files.blobs[place[0]]
        var entries = try String(contentsOf: pack, encoding: .utf8).components(separatedBy: ",\n")
        let entry = entries.indices.filter { entries[$0].hasPrefix("\"") || entries[$0].hasPrefix("FM.pack") }[place[1]]
        entries[entry] = entries[entry].hasPrefix("FM.pack") ? "FM.pack(0,[\n0" : "0"
        try entries.joined(separator: ",\n").write(to: pack, atomically: true, encoding: .utf8)
        let dom = try await dumpDOM(written.files.html.absoluteString + "#job=\(failed.jobID)")
        #expect(dom.contains("data-open-job=\"\(failed.jobID)\""))
        #expect(occurrences("data-loaded=\"false\"", in: dom) == 3)
        #expect(!dom.contains("data-loaded=\"true\""))
    }

    /// What `Fixtures/click_cell.py` saw after its click.
    struct ClickState: Decodable {
        struct Image: Decodable { var loaded: String?; var width: Int }
        var hash: String, openPanels: Int, panel: String?, openJob: String?, panelVisible: Bool, images: [Image]
        var failingStep: String?, clicked: String?, openBefore: Int, matches: [String]
        /// The aggregated heat map's group cells lit up by a pattern (`row.group`).
        var matchedGroups: [String]
        var steps: Int?, attemptTitle: String?
        /// The aggregated heat map's open group (`row.group`) and its job cells.
        var drilled: String?, drillCells: Int
    }

    /// What `Fixtures/click_cell.py --ready` saw: when the page was ready (ms after navigation start), its cells.
    struct ReadyState: Decodable { var readyMs: Double, cells: Int }

    /// Sends a real mouse click to the element `selector` of `written`'s report over the DevTools protocol.
    private func click(_ selector: String, in written: WrittenReport, page: URL? = nil) async throws -> ClickState {
        try JSONDecoder().decode(ClickState.self, from: await drive(selector, in: written, page: page))
    }

    /// Runs `Fixtures/click_cell.py` on the report (or `page`); its JSON output.
    private func drive(_ selector: String, in written: WrittenReport, page: URL? = nil) async throws -> Data {
        let chromium = try chromium()
        let pythonTool = ExternalTool.ensure("python3", package: "python3")
        let python = try #require(pythonTool.path, "\(pythonTool.reason)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/click_cell.py")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-chromium-\(UUID().uuidString)")
        defer { ExternalTool.removeTree(profile) }
        let url = (page ?? written.files.html).absoluteString
        let result = await ExternalTool.run(python, [script.path, chromium, url, selector, profile.path], timeout: 200)
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.stderr)")
        return Data(result.stdout.utf8)
    }

    @Test("a mouse click on a failed cell opens its job panel with the wireframes loaded (DevTools protocol)")
    func clickFailedCell() async throws {
        let written = try WrittenReport()
        let failed = try written.job("checkout", "ar", "rtl", "landscape")
        let state = try await click("a.cell[data-job=\"\(failed.jobID)\"]", in: written)
        #expect(state.openBefore == 0)
        #expect(state.clicked == failed.jobID)
        #expect(state.hash == "#job=\(failed.jobID)")
        #expect(state.openPanels == 1)
        #expect(state.panel == failed.jobID)
        #expect(state.openJob == failed.jobID)
        #expect(state.panelVisible)
        #expect(state.images.count == 3)
        #expect(state.images.allSatisfy { $0.loaded == "true" && $0.width == 24 })
        #expect(state.failingStep?.hasPrefix("step 3 (expect 'Total' visible): expected 'Total' to be visible") == true)
    }

    @Test("past the cell limit a group's cell opens its jobs below the map; a failed one there opens its panel")
    func aggregatedDrillDown() async throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapCellLimit: 10))
        let failing = try ["en-US", "ar", "de-DE"].map { try written.job("checkout", $0, "rtl", "landscape").jobID }
        let state = try await click(".hr[data-scenario=\"checkout\"] a.cell.agg.s-failed >> #drill a.cell.s-failed", in: written)
        let group = try #require(state.drilled)
        #expect(written.html.contains("data-cells=\"\(group)\""))
        #expect(state.drillCells > 1)
        let panel = try #require(state.panel)
        #expect(failing.contains(panel))
        #expect(state.clicked == panel)
        #expect(state.hash == "#job=\(panel)")
        #expect(state.panelVisible)
        #expect(state.steps == 6)
        #expect(state.images.count == 3)
        #expect(state.images.allSatisfy { $0.loaded == "true" && $0.width == 24 })
    }

    @Test("on an aggregated map a pattern lights the group cells whose shown values match, in its scenario's row only")
    func aggregatedPattern() async throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapCellLimit: 10))
        let kept = Int(try #require(written.html.firstMatch(of: /data-levels="([0-9]+)"/)?.1)) ?? -1
        #expect(kept >= 1)
        let state = try await click("tr[data-pattern]", in: written)
        #expect(!state.matchedGroups.isEmpty)
        // The first pattern is checkout with rtl + landscape: every lit group is in checkout's row, and holds a
        // failing job of the pattern (its drill-down tells which).
        let rows = written.html.components(separatedBy: "<div class=\"hr\" ").dropFirst()
        let checkout = try #require(rows.first { $0.contains("data-scenario=\"checkout\"") })
        for group in state.matchedGroups {
            #expect(checkout.contains("data-cells=\"\(group)\""), "group \(group) is outside checkout's row")
            #expect(checkout.contains("class=\"cell agg s-failed\" data-cells=\"\(group)\""), "group \(group) holds no failure")
        }
    }

    @Test("the parity view: a click on web's verdict of a disagreement opens that job's panel with its wireframes")
    func clickParityVerdict() async throws {
        let written = try ParitySweep.written()
        let web = try #require(written.run.jobs.first { $0.registry == "web" && $0.scenarioID == "browse" && $0.plan == .fail })
        let state = try await click("#parity-rows tr[data-kind=\"fails-only-in\"] td[data-registry=\"web\"] a", in: written)
        #expect(state.hash == "#job=\(web.jobID)")
        #expect(state.openPanels == 1)
        #expect(state.openJob == web.jobID)
        #expect(state.panelVisible)
        #expect(state.images.count == 3)
        #expect(state.images.allSatisfy { $0.loaded == "true" && $0.width == 24 })
        let dom = try await dumpDOM(written.files.html.absoluteString)
        #expect(dom.contains("data-ready=\"true\""))
        #expect(occurrences("data-kind=\"fails-only-in\"", in: dom) == 4)
        #expect(dom.contains("id=\"parity-headline\""))
    }

    @Test("a click on a pattern lights up exactly its jobs on the heat map")
    func clickPattern() async throws {
        let written = try WrittenReport()
        let state = try await click("tr[data-pattern]", in: written)
        let expected = try ["en-US", "ar", "de-DE"].map { try written.job("checkout", $0, "rtl", "landscape").jobID }
        #expect(Set(state.matches) == Set(expected))
        #expect(state.openPanels == 0)
    }

    @Test("2,000 jobs: a click on a passed cell builds its panel from the data island; the URL opens one too")
    func clickPassedCell() async throws {
        let run = LargeSweep.run()
        let written = try WrittenReport(runs: [run], report: run.runID)
        let job = try #require(run.jobs.first { $0.plan == .pass && $0.scenarioID == "s12" })
        #expect(!written.html.contains("id=\"job-\(job.jobID)\""))
        let state = try await click("a.cell[data-job=\"\(job.jobID)\"]", in: written)
        #expect(state.openBefore == 0)
        #expect(state.clicked == job.jobID)
        #expect(state.hash == "#job=\(job.jobID)")
        #expect(state.openPanels == 1)
        #expect(state.panel == job.jobID)
        #expect(state.openJob == job.jobID)
        #expect(state.panelVisible)
        #expect(state.steps == 4)
        #expect(state.attemptTitle?.hasPrefix("Attempt 1: passed on worker worker-a") == true)
        #expect(state.images.isEmpty)

        let other = try #require(run.jobs.last { $0.plan == .pass })
        let dom = try await dumpDOM(written.files.html.absoluteString + "#job=\(other.jobID)")
        #expect(dom.contains("data-open-job=\"\(other.jobID)\""))
        #expect(dom.contains("<section class=\"job-panel open\" id=\"job-\(other.jobID)\" data-job-panel=\"\(other.jobID)\">"))
        #expect(dom.contains("class=\"cell s-passed selected\" data-job=\"\(other.jobID)\""))
        let start = try #require(dom.range(of: "<section class=\"job-panel open\""))
        let end = try #require(dom.range(of: "</section>", range: start.upperBound..<dom.endIndex))
        #expect(occurrences("<tr class=\"step\" data-step=\"", in: String(dom[start.lowerBound..<end.upperBound])) == 4)
    }

    @Test("2,000 jobs: a click on the pattern lights up exactly the failing jobs, bare cells included in the search")
    func clickPatternLarge() async throws {
        let run = LargeSweep.run()
        let written = try WrittenReport(runs: [run], report: run.runID)
        let state = try await click("tr[data-pattern]", in: written)
        #expect(Set(state.matches) == Set(run.jobs.filter { $0.plan == .fail }.map(\.jobID)))
        #expect(state.matches.count == 10)
    }

    @Test("a report folder copied elsewhere keeps working: the panel and its wireframes load from the copy")
    func movedFolder() async throws {
        let written = try WrittenReport()
        let failed = try written.job("checkout", "ar", "rtl", "landscape")
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-moved-\(UUID().uuidString)")
        defer { ExternalTool.removeTree(elsewhere) }
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let copy = elsewhere.appendingPathComponent("nightly report")
        try FileManager.default.copyItem(at: written.files.folder, to: copy)
        // The store (and the original folder) are gone: only the copy can serve the page.
        ExternalTool.removeTree(written.fixture.directory)
        let state = try await click("a.cell[data-job=\"\(failed.jobID)\"]", in: written,
                              page: copy.appendingPathComponent("report.html"))
        #expect(state.panel == failed.jobID)
        #expect(state.images.count == 3)
        #expect(state.images.allSatisfy { $0.loaded == "true" && $0.width == 24 })
        #expect(state.steps == 6)
    }

    @Test("100,000 jobs: the static report opens, becomes ready, and a failed cell's panel loads its steps and wireframes")
    func largeRun() async throws {
        let run = LargeSweep.run(scenarios: 1_000)
        #expect(run.jobs.count == 100_000)
        let written = try WrittenReport(runs: [run], report: run.runID)
        let ready = try JSONDecoder().decode(ReadyState.self, from: await drive("--ready", in: written))
        // A generous bound for a shared machine and a debug build of the test (the bench measures the real figure).
        #expect(ready.readyMs > 0 && ready.readyMs < 60_000, "ready after \(ready.readyMs) ms")
        #expect(ready.cells == 100_000)
        let failed = try #require(run.jobs.first { $0.plan == .fail && $0.scenarioID == "s803" })
        let state = try await click("a.cell[data-job=\"\(failed.jobID)\"]", in: written)
        #expect(state.panel == failed.jobID)
        #expect(state.panelVisible)
        #expect(state.steps == 6)
        #expect(state.images.count == 3)
        #expect(state.images.allSatisfy { $0.loaded == "true" && $0.width == 24 })
        #expect(state.failingStep?.hasPrefix("step 3 (expect 'Total' visible)") == true)
    }
}
