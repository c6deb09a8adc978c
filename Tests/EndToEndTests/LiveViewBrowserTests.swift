import DevTools
import Foundation
import Testing

/// `flowmatrix run --http` in real headless Chromium (Debian `chromium`, driven over the DevTools pipe): the token
/// becomes a cookie, the page's cells change state while the run goes, and at the end the page is the static report.
@Suite("Live view in a real browser", .timeLimit(.minutes(4)))
struct LiveViewBrowserTests {
    /// The page's state as one JSON object: what the test waits on.
    static let probe = """
        (function () {
          var cells = document.querySelectorAll('a.cell[data-job]'), final = 0, failed = 0;
          for (var i = 0; i < cells.length; i++) {
            var s = cells[i].getAttribute('data-status') || (cells[i].classList.contains('s-passed') ? 'passed' : 'notRun');
            if (s !== 'notRun') final++;
            if (s === 'failed') failed++;
          }
          return {live: document.documentElement.getAttribute('data-live'), cells: cells.length, final: final,
                  failed: failed, liveScript: document.querySelector('script[src="live.js"]') !== null,
                  ready: document.documentElement.getAttribute('data-ready'),
                  title: Array.prototype.map.call(document.querySelectorAll('.rh'), function (r) { return r.textContent; }).join('|'),
                  injected: document.querySelectorAll('script:not([src]):not([id])').length,
                  workers: document.querySelectorAll('#live-workers li').length,
                  workerText: document.getElementById('live-workers') ? document.getElementById('live-workers').textContent : '',
                  markup: document.querySelectorAll('#live-workers b, .rh script').length,
                  finished: document.getElementById('run-finished') ? document.getElementById('run-finished').textContent : '',
                  duration: document.getElementById('run-duration') ? document.getElementById('run-duration').textContent : '',
                  attempts: document.getElementById('run-attempts') ? document.getElementById('run-attempts').textContent : '',
                  barRed: document.getElementById('live-bar') !== null && document.getElementById('live-bar').classList.contains('bad')};
        })()
        """

    /// What the probe reads from the page. The page reloads itself (live → static report): an evaluation that meets
    /// the navigation fails, and the next one sees the new page, so such a failure reads as "no state yet".
    static func state(of page: PageTarget) async throws -> JSONValue {
        do {
            let r = try await page.send("Runtime.evaluate", ["expression": .string(probe), "returnByValue": true])
            return r["result"]?["value"] ?? .null
        } catch let error as DevToolsError
            where error.code == .commandFailed
            && ("\(error)".contains("navigated or closed") || "\(error)".contains("context was destroyed")) {
            return .null
        }
    }

    /// Gives the corpus scenario `id` (written by `ws.scenario`) another title.
    static func retitle(_ id: String, to title: String, in ws: E2EWorkspace) throws {
        let scenario = ws.root.appendingPathComponent("corpus/\(id).json")
        let text = try String(contentsOf: scenario, encoding: .utf8)
            .replacingOccurrences(of: "\"title\": \"\(id)\"", with: "\"title\": \"\(title)\"")
        try Data(text.utf8).write(to: scenario)
    }

    @Test("the token becomes a cookie, cells change state before the run ends, and the end is the static report")
    func liveRun() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // Six jobs of ~1.5 s for one single-slot worker, started only once the page is open: the page sees every
        // cell change. One scenario fails; the other is titled like a script.
        try ws.scenario("slow-pass", ["busy:1500", "pass"])
        try ws.scenario("slow-fail", ["busy:1500", "fail"])
        let title = #"<script>alert(1)</script>"#
        try Self.retitle("slow-pass", to: title, in: ws)
        let matrix = try ws.matrix(locales: ["en", "de", "fr"])
        let token = "live-view-token-0123456789abcdef"
        for (file, content) in [("http.token", token), ("fleet.token", "fleet-" + token)] {
            try Data(content.utf8).write(to: ws.root.appendingPathComponent(file))
            chmod(ws.root.appendingPathComponent(file).path, 0o600)
        }
        let (run, fleet) = try await ws.startServe(
            ["serve", matrix, "--token-file", "fleet.token", "--http", "127.0.0.1:0", "--http-token-file", "http.token",
             "--http-linger", "60"], label: "run")
        var port = 0
        try await waitUntil("the live view's address is printed", timeout: .seconds(60)) {
            guard let line = ws.output("run").split(separator: "\n").first(where: { $0.hasPrefix("live view: ") }) else {
                return false
            }
            port = Int(line.split(separator: ":").last?.split(separator: "/").first ?? "") ?? 0
            return port > 0
        }

        let browser = try await Browser.launch()
        defer { browser.close() }
        let page = try await browser.newPage()
        _ = try await page.send("Page.enable")
        _ = try await page.send("Page.navigate", ["url": .string("http://127.0.0.1:\(port)/?token=\(token)")])
        func state() async throws -> JSONValue { try await Self.state(of: page) }

        // The cookie let the page in (no 401: its script ran) and its event stream (EventSource sends no headers).
        var seen: JSONValue = .null
        try await waitUntil("the page's event stream is open", timeout: .seconds(90)) {
            seen = try await state()
            return seen["live"]?.string == "open"
        }
        #expect(seen["final"]?.int == 0)
        try await Self.runBlockCounts(page, from: seen)
        try ws.startTestWorker(["--connect", "127.0.0.1:\(fleet)", "--token-file", "fleet.token", "--registry", "test",
                      "--slots", "1", "--name", "<b>worker</b>"], label: "worker")
        try await waitUntil("a cell changed state while the run was still going", timeout: .seconds(90)) {
            seen = try await state()
            guard seen["live"]?.string == "open", let final = seen["final"]?.int, let cells = seen["cells"]?.int else {
                return false
            }
            return final > 0 && final < cells && run.isRunning
        }
        try await Self.redAfterFailure(page)
        try await waitUntil("the worker is listed with its job", timeout: .seconds(30)) {
            seen = try await state()
            return seen["workers"]?.int == 1
        }
        #expect(seen["workerText"]?.string?.contains("<b>worker</b>") == true, "the worker's name is text")
        #expect(seen["markup"]?.int == 0)
        #expect(seen["cells"]?.int == 6)
        #expect(seen["liveScript"]?.bool == true)
        #expect(seen["title"]?.string?.contains(title) == true, "the hostile title is text")
        #expect(seen["injected"]?.int == 1, "only the report's own inline script")

        // The run ends, the reports are written, and the page reloads into the static report.
        try await waitUntil("the page became the static report", timeout: .seconds(120)) {
            seen = try await state()
            return seen["liveScript"]?.bool == false && seen["ready"]?.string == "true"
        }
        #expect(seen["final"]?.int == 6)
        #expect(seen["failed"]?.int == 3)
        #expect(seen["injected"]?.int == 1)
        let staticReport = try String(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs").appendingPathComponent(
            try #require(try ws.latestRunID())).appendingPathComponent("report.html"), encoding: .utf8)
        #expect(!staticReport.contains("live.js"))
        try? await page.dispose()
        await ws.kill9(run)
    }

    /// Before any job ended: the progress bar is not red, and the Run block counts while the run goes (its duration
    /// moves on every second).
    static func runBlockCounts(_ page: PageTarget, from first: JSONValue) async throws {
        #expect(first["barRed"]?.bool == false, "nothing failed yet: the progress bar is not red")
        let firstDuration = first["duration"]?.string ?? ""
        try await waitUntil("the Run block's duration moves on", timeout: .seconds(30)) {
            let seen = try await state(of: page)
            return seen["finished"]?.string == "running" && seen["duration"]?.string != firstDuration
        }
    }

    /// Once a job failed: the bar is red, and the Run block's attempts follow the run.
    static func redAfterFailure(_ page: PageTarget) async throws {
        try await waitUntil("the Run block counts attempts and the bar is red after a failure", timeout: .seconds(90)) {
            let seen = try await state(of: page)
            guard let failed = seen["failed"]?.int, failed > 0 else { return false }
            return seen["barRed"]?.bool == true && seen["attempts"]?.string?.hasPrefix("0 ") == false
        }
    }
}
