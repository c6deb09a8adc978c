import DevTools
import FlowMatrixTestKit
import Foundation
import Reports
import Testing

/// The job panel's review views in real headless Chromium driven over the DevTools pipe: the timeline scrubbed with
/// the keyboard and the mouse, the element overlay and "did you mean" at the failing step, the configurations side by
/// side, and the recording's frames.
@Suite("Job panel timeline in a real browser", .timeLimit(.minutes(5)))
struct TimelineBrowserTests {
    typealias Page = HeatMapBrowserTests

    /// Opens `job`'s panel in a fresh page and waits until its timeline shows the failing step's overlay (or, for a job
    /// without one, its strip).
    static func open(_ browser: Browser, _ files: ReportFiles, job: String) async throws -> PageTarget {
        let page = try await browser.newPage()
        _ = try await page.send("Emulation.setDeviceMetricsOverride", [
            "width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": false,
        ])
        _ = try await page.send("Page.navigate", ["url": .string(files.html.absoluteString + "#job=" + job)])
        try await waitUntil("the panel's review views are drawn", timeout: .seconds(60)) {
            try await Page.evaluate(page, """
                (function () {
                  var p = document.querySelector('.job-panel.open'), s = p && p.querySelector('.configs[data-shown]');
                  if (!s) return false;
                  var imgs = p.querySelectorAll('img[data-picture]');
                  for (var i = 0; i < imgs.length; i++) if (!imgs[i].hasAttribute('data-painted')) return false;
                  return true;
                })()
                """).bool == true
        }
        return page
    }

    static func step(_ page: PageTarget) async throws -> String? {
        try await Page.evaluate(page, "document.querySelector('.job-panel.open [data-timeline]').getAttribute('data-step')").string
    }

    /// The centre of the first element matching `selector` in the open panel, scrolled into view.
    static func centre(_ page: PageTarget, _ selector: String) async throws -> (x: Double, y: Double) {
        let r = try await Page.evaluate(page, """
            (function () {
              var e = document.querySelector('.job-panel.open').querySelector(\(JSONValue.string(selector).serialized));
              e.scrollIntoView({block: 'center', inline: 'center'});
              var b = e.getBoundingClientRect();
              return {x: b.left + b.width / 2, y: b.top + b.height / 2};
            })()
            """)
        return (try #require(r["x"]?.double), try #require(r["y"]?.double))
    }

    static func strings(_ value: JSONValue?) -> [String] { (value?.array ?? []).compactMap(\.string) }

    static func mouse(_ page: PageTarget, _ type: String, _ p: (x: Double, y: Double), buttons: Int) async throws {
        _ = try await page.send("Input.dispatchMouseEvent", [
            "type": .string(type), "x": .number(p.x), "y": .number(p.y), "button": "left",
            "buttons": .number(Double(buttons)), "clickCount": 1,
        ])
    }

    @Test("the timeline: one dot and frame per step, the failure marked, arrow keys, Home/End, F, a click and a drag")
    func scrubbing() async throws {
        let (fixture, files) = try ReviewFixture.written()
        defer { _ = fixture }
        let browser = try await Browser.launch()
        defer { browser.close() }
        let page = try await Self.open(browser, files, job: ReviewFixture.job("de").jobID)

        let shape = try await Page.evaluate(page, """
            (function () {
              var t = document.querySelector('.job-panel.open [data-timeline]');
              return {dots: t.querySelectorAll('.tl-dot').length, frames: t.querySelectorAll('.tl-frame img[data-painted="true"]').length,
                      failing: t.querySelector('.tl-dot.failing').getAttribute('data-step'),
                      failingFrame: t.querySelector('.tl-frame.failing').getAttribute('data-step'),
                      picture: t.querySelector('img[data-timeline-picture]').getAttribute('data-painted'),
                      caption: t.querySelector('.tl-caption').textContent};
            })()
            """)
        #expect(shape["dots"]?.int == 3, "\(shape)")  // the failing attempt ran steps 1 to 3
        #expect(shape["frames"]?.int == 3)
        #expect(shape["failing"]?.string == "2" && shape["failingFrame"]?.string == "2")
        #expect(shape["picture"]?.string == "true")
        #expect(shape["caption"]?.string?.hasPrefix("Step 3 of 3 · assert:checkout.pay · failed") == true, "\(shape)")
        #expect(try await Self.step(page) == "2", "the timeline opens at the failure")

        // The keyboard.
        _ = try await Page.evaluate(page, "document.querySelector('.job-panel.open [data-timeline]').focus()")
        try await Page.key(page, "ArrowLeft", code: 37)
        #expect(try await Self.step(page) == "1")
        try await Page.key(page, "Home", code: 36)
        #expect(try await Self.step(page) == "0")
        try await Page.key(page, "End", code: 35)
        #expect(try await Self.step(page) == "2")
        try await Page.key(page, "ArrowLeft", code: 37)
        try await Page.key(page, "ArrowLeft", code: 37)
        #expect(try await Self.step(page) == "0")
        try await Page.key(page, "f", code: 70)
        #expect(try await Self.step(page) == "2", "F jumps to the failure")

        // The mouse: press on the first dot, drag to the second, release; a click on a filmstrip frame; the button.
        let first = try await Self.centre(page, ".tl-dot[data-step=\"0\"]")
        let second = try await Self.centre(page, ".tl-dot[data-step=\"1\"]")
        try await Self.mouse(page, "mouseMoved", first, buttons: 0)
        try await Self.mouse(page, "mousePressed", first, buttons: 1)
        #expect(try await Self.step(page) == "0")
        try await Self.mouse(page, "mouseMoved", second, buttons: 1)
        #expect(try await Self.step(page) == "1", "dragging across the dots scrubs")
        try await Self.mouse(page, "mouseReleased", second, buttons: 0)
        let frame = try await Self.centre(page, ".tl-frame[data-step=\"0\"]")
        try await Self.mouse(page, "mousePressed", frame, buttons: 1)
        try await Self.mouse(page, "mouseReleased", frame, buttons: 0)
        #expect(try await Self.step(page) == "0")
        let jump = try await Self.centre(page, "[data-jump]")
        try await Self.mouse(page, "mousePressed", jump, buttons: 1)
        try await Self.mouse(page, "mouseReleased", jump, buttons: 0)
        #expect(try await Self.step(page) == "2", "the button jumps to the failure")

        // The recording: nine frames (three per step), a dot where each step starts, the failing step's marked.
        let recording = try await Page.evaluate(page, """
            (function () {
              var r = document.querySelector('.job-panel.open [data-recording]');
              return {frames: r.getAttribute('data-recording'), dots: r.querySelectorAll('.tl-dot').length,
                      failing: r.querySelector('.tl-dot.failing').getAttribute('data-step'), at: r.getAttribute('data-frame')};
            })()
            """)
        #expect(recording["frames"]?.string == "9" && recording["dots"]?.int == 3, "\(recording)")
        #expect(recording["failing"]?.string == "2" && recording["at"]?.string == "0")
        let third = try await Self.centre(page, "[data-recording] .tl-dot[data-step=\"2\"]")
        try await Self.mouse(page, "mousePressed", third, buttons: 1)
        try await Self.mouse(page, "mouseReleased", third, buttons: 0)
        let at = try await Page.evaluate(page, "document.querySelector('.job-panel.open [data-recording]').getAttribute('data-frame')")
        #expect(at.string == "6", "a step's dot shows its first frame")
        try? await page.dispose()
    }

    @Test("at the failing step the target is outlined where it is; a missing target gets did-you-mean from the screen")
    func overlay() async throws {
        let (fixture, files) = try ReviewFixture.written()
        defer { _ = fixture }
        let browser = try await Browser.launch()
        defer { browser.close() }

        // de: checkout.pay is on screen; its outline sits on its box of the picture (200, 150, 104 × 32 of 320 × 240).
        let de = try await Self.open(browser, files, job: ReviewFixture.job("de").jobID)
        try await waitUntil("the overlay is drawn", timeout: .seconds(30)) {
            try await Page.evaluate(de, "!!document.querySelector('.job-panel.open [data-overlay=\"2\"]')").bool == true
        }
        let outlined = try await Page.evaluate(de, """
            (function () {
              var t = document.querySelector('.job-panel.open [data-timeline]');
              var img = t.querySelector('img[data-timeline-picture]').getBoundingClientRect();
              var box = t.querySelector('.tl-box.target').getBoundingClientRect();
              return {element: t.querySelector('.tl-box.target').getAttribute('data-element'),
                      boxes: t.querySelectorAll('.tl-box').length,
                      left: (box.left - img.left) / img.width, top: (box.top - img.top) / img.height,
                      width: box.width / img.width, height: box.height / img.height,
                      rows: Array.prototype.map.call(t.querySelectorAll('.tl-elements tr[data-element]'), function (r) {
                        return r.textContent; }),
                      targetRow: t.querySelector('.tl-elements tr.target').getAttribute('data-element'),
                      missing: !!t.querySelector('.tl-missing')};
            })()
            """)
        #expect(outlined["element"]?.string == "checkout.pay")
        #expect(outlined["boxes"]?.int == 3)
        #expect(abs((outlined["left"]?.double ?? 0) - 200.0 / 320) < 0.01, "\(outlined)")
        #expect(abs((outlined["top"]?.double ?? 0) - 150.0 / 240) < 0.01, "\(outlined)")
        #expect(abs((outlined["width"]?.double ?? 0) - 104.0 / 320) < 0.01, "\(outlined)")
        #expect(abs((outlined["height"]?.double ?? 0) - 32.0 / 240) < 0.01, "\(outlined)")
        #expect(outlined["targetRow"]?.string == "checkout.pay")
        #expect(Self.strings(outlined["rows"]).contains("checkout.pay200, 150, 104, 32Bezahlen"), "\(outlined)")
        #expect(outlined["missing"]?.bool == false)
        try? await de.dispose()

        // ar: checkout.pay is not on screen; the note names it and suggests the nearest identifiers, nearest first.
        let ar = try await Self.open(browser, files, job: ReviewFixture.job("ar").jobID)
        try await waitUntil("the overlay is drawn", timeout: .seconds(30)) {
            try await Page.evaluate(ar, "!!document.querySelector('.job-panel.open [data-overlay=\"2\"]')").bool == true
        }
        let missing = try await Page.evaluate(ar, """
            (function () {
              var t = document.querySelector('.job-panel.open [data-timeline]'), note = t.querySelector('.tl-missing');
              return {target: note.getAttribute('data-missing'), text: note.textContent,
                      suggestions: Array.prototype.map.call(note.querySelectorAll('[data-suggestion]'), function (b) {
                        return b.getAttribute('data-suggestion'); }),
                      outlined: t.querySelectorAll('.tl-box.target').length,
                      suggested: Array.prototype.map.call(t.querySelectorAll('.tl-box.suggested'), function (b) {
                        return b.getAttribute('data-element'); })};
            })()
            """)
        #expect(missing["target"]?.string == "checkout.pay")
        #expect(missing["text"]?.string?.contains("is not on screen at step 3. Did you mean") == true, "\(missing)")
        #expect(Self.strings(missing["suggestions"]) == ["checkout.pay-button", "checkout.back"], "\(missing)")
        #expect(missing["outlined"]?.int == 0)
        #expect(missing["suggested"]?.array?.count == 2)
        try? await ar.dispose()
    }

    @Test("configurations side by side: the same step in en | de | ar, following the timeline; the recording's frames")
    func configurationStrip() async throws {
        let (fixture, files) = try ReviewFixture.written()
        defer { _ = fixture }
        let browser = try await Browser.launch()
        defer { browser.close() }
        let ar = ReviewFixture.job("ar").jobID
        let page = try await Self.open(browser, files, job: ar)
        let strip = try await Page.evaluate(page, """
            (function () {
              var s = document.querySelector('.job-panel.open .configs');
              return {title: s.querySelector('h3').textContent, shown: s.getAttribute('data-shown'),
                      jobs: Array.prototype.map.call(s.querySelectorAll('figure'), function (f) { return f.getAttribute('data-config-job'); }),
                      captions: Array.prototype.map.call(s.querySelectorAll('figcaption a'), function (a) { return a.textContent; }),
                      painted: s.querySelectorAll('img[data-picture][data-painted="true"]').length,
                      none: Array.prototype.map.call(s.querySelectorAll('.tl-none'), function (n) { return n.textContent; }),
                      self: s.querySelector('figure.self').getAttribute('data-config-job')};
            })()
            """)
        #expect(strip["title"]?.string == "Step 3 in every configuration")
        #expect(strip["shown"]?.string == "2")
        #expect(strip["self"]?.string == ar)
        // This job first, then the other failing one, then the passing one; named by the axis that differs.
        #expect(Self.strings(strip["jobs"]) == [ar, ReviewFixture.job("de").jobID, ReviewFixture.job("en").jobID])
        #expect(Self.strings(strip["captions"]) == ["ar", "de", "en"], "\(strip)")
        #expect(strip["painted"]?.int == 2)
        #expect(Self.strings(strip["none"]) == ["no picture kept"], "en passed: its evidence is not carried")

        // The strip follows the timeline.
        _ = try await Page.evaluate(page, "document.querySelector('.job-panel.open [data-timeline]').focus()")
        try await Page.key(page, "Home", code: 36)
        try await waitUntil("the strip shows step 1", timeout: .seconds(30)) {
            try await Page.evaluate(page, "document.querySelector('.job-panel.open .configs').getAttribute('data-shown')").string == "0"
        }
        let title = try await Page.evaluate(page, "document.querySelector('.job-panel.open .configs h3').textContent")
        #expect(title.string == "Step 1 in every configuration")

        // ar's attempts have no recording.
        let recording = try await Page.evaluate(page, "document.querySelectorAll('.job-panel.open [data-recording]').length")
        #expect(recording.int == 0)
        try? await page.dispose()
    }
}
