import DevTools
import FlowMatrixTestKit
import Foundation
@testable import Reports
import Testing

/// The heat map at nightly scale and past it, in real headless Chromium driven over the DevTools pipe: header lines
/// and scenario names stay in view while the map scrolls, every header value and cell reads in full on hover and on
/// keyboard focus, the arrow keys walk the map, and nothing is left unrendered for print.
@Suite("Heat map at nightly scale in a real browser", .timeLimit(.minutes(5)))
struct HeatMapBrowserTests {
    /// `rows` scenarios × the columns of three axes with `sizes` values each (values too long for a 24 px column);
    /// scenario s3 fails wherever `flavor` has its first value.
    static func wideRun(rows: Int, sizes: [Int]) -> FixtureRun {
        var jobs: [FixtureJob] = []
        for s in 0..<rows {
            for a in 0..<sizes[0] {
                for b in 0..<sizes[1] {
                    for c in 0..<sizes[2] {
                        jobs.append(FixtureJob(
                            scenarioID: "s\(s)", title: "Scenario number \(s) with a long title",
                            configuration: [("flavor", "flavor-variant-\(a)"), ("language", "language-\(b)"), ("layout", "layout-\(c)")],
                            plan: s == 3 && a == 0 ? .fail : .pass))
                    }
                }
            }
        }
        return FixtureRun(runID: "20261205-0100-wide", startedAt: Date(timeIntervalSince1970: 1_796_500_000),
                          matrixName: "wide", jobs: jobs)
    }

    /// The value of `expression` evaluated in the page (nil while the page navigates).
    static func evaluate(_ page: PageTarget, _ expression: String) async throws -> JSONValue {
        do {
            let reply = try await page.send("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true])
            return reply["result"]?["value"] ?? .null
        } catch let error as DevToolsError where error.code == .commandFailed {
            return .null
        }
    }

    static func key(_ page: PageTarget, _ name: String, code: Int) async throws {
        for type in ["keyDown", "keyUp"] {
            _ = try await page.send("Input.dispatchKeyEvent", [
                "type": .string(type), "key": .string(name), "code": .string(name), "windowsVirtualKeyCode": .number(Double(code)),
            ])
        }
    }

    @Test("84 and 1,000 columns: sticky headers and names, full values on hover and focus, arrow keys, print draws all",
          arguments: [[7, 4, 3], [10, 10, 10]])
    func wideMap(sizes: [Int]) async throws {
        let columns = sizes.reduce(1, *)
        let run = Self.wideRun(rows: 30, sizes: sizes)
        let written = try WrittenReport(runs: [run], report: run.runID)
        #expect(written.html.contains("id=\"cell-info\""))
        #expect(!written.html.contains("id=\"aggregated\""), "one cell per job at \(columns) columns")

        let browser = try await Browser.launch()
        defer { browser.close() }
        let page = try await browser.newPage()
        _ = try await page.send("Emulation.setDeviceMetricsOverride", [
            "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false,
        ])
        _ = try await page.send("Page.navigate", ["url": .string(written.files.html.absoluteString)])
        try await waitUntil("the report is ready", timeout: .seconds(60)) {
            try await Self.evaluate(page, "document.documentElement.getAttribute('data-ready')").string == "true"
        }
        let ready = try await Self.evaluate(page, "document.documentElement.getAttribute('data-ready-ms')").string ?? "?"
        print("heat map of \(columns) columns × 30 rows: page ready after \(ready) ms")

        try await Self.checkHeaders(page, columns: columns)
        try await Self.checkSticky(page)
        try await Self.checkHover(page)
        try await Self.checkKeyboard(page)
        try await Self.checkPrint(page)
        try? await page.dispose()
    }

    static func checkHeaders(_ page: PageTarget, columns: Int) async throws {
        // Every header value is in its title, in full; the last line has one label per column.
        let headers = try await Self.evaluate(page, """
            (function () {
              var lines = document.querySelectorAll('#heatmap-table .hl'), all = true, cut = 0;
              lines.forEach(function (line) { line.querySelectorAll('.h').forEach(function (h) {
                if (h.title !== h.textContent) all = false;
                if (h.scrollWidth > h.clientWidth) cut++;
              }); });
              return {lines: lines.length, last: lines[lines.length - 1].querySelectorAll('.h').length, titled: all, cut: cut};
            })()
            """)
        #expect(headers["lines"]?.int == 3)
        #expect(headers["last"]?.int == columns)
        #expect(headers["titled"]?.bool == true)
        #expect((headers["cut"]?.int ?? 0) > 0, "the long values are cut on screen, which is why the titles matter")
    }

    static func checkSticky(_ page: PageTarget) async throws {
        // Scrolled to the far corner, the header lines stay at the top of the map's box (one under the other) and
        // the scenario names at its left.
        let sticky = try await Self.evaluate(page, """
            (function () {
              var box = document.querySelector('#heatmap .scroll');
              box.scrollTop = box.scrollHeight; box.scrollLeft = box.scrollWidth;
              var b = box.getBoundingClientRect(), lines = document.querySelectorAll('#heatmap-table .hl');
              var rows = document.querySelectorAll('#heatmap-table .hr'), name = rows[rows.length - 1].querySelector('.rh');
              var cell = rows[rows.length - 1].lastElementChild.getBoundingClientRect();
              return {top: box.scrollTop, left: box.scrollLeft, first: lines[0].getBoundingClientRect().top - b.top,
                      third: lines[2].getBoundingClientRect().top - b.top, name: name.getBoundingClientRect().left - b.left,
                      nameWidth: name.getBoundingClientRect().width, lastCellInside: cell.right <= b.right + 1};
            })()
            """)
        #expect((sticky["top"]?.double ?? 0) > 0 && (sticky["left"]?.double ?? 0) > 0, "the map scrolls both ways: \(sticky)")
        #expect(abs(sticky["first"]?.double ?? 99) < 1.5, "\(sticky)")
        #expect(abs((sticky["third"]?.double ?? 99) - 48) < 1.5, "\(sticky)")
        #expect(abs(sticky["name"]?.double ?? 99) < 1.5, "\(sticky)")
        #expect(sticky["lastCellInside"]?.bool == true)
    }

    static func checkHover(_ page: PageTarget) async throws {
        // The pointer on a failing cell: its tooltip and the line above the map say where it is and what happened.
        let target = try await Self.evaluate(page, """
            (function () {
              var cell = document.querySelector('#heatmap-table .hr[data-scenario="s3"] a.cell.s-failed:nth-of-type(2)')
                || document.querySelectorAll('#heatmap-table .hr[data-scenario="s3"] a.cell.s-failed')[1];
              cell.scrollIntoView({block: 'center', inline: 'center'});
              var r = cell.getBoundingClientRect();
              return {x: r.left + r.width / 2, y: r.top + r.height / 2, job: cell.getAttribute('data-job')};
            })()
            """)
        let x = try #require(target["x"]?.double), y = try #require(target["y"]?.double)
        _ = try await page.send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": .number(x), "y": .number(y)])
        let hovered = try await Self.evaluate(page, """
            (function () {
              var cell = document.querySelector('#heatmap-table a.cell[data-job="\(target["job"]?.string ?? "")"]');
              return {info: document.getElementById('cell-info').textContent, title: cell.getAttribute('title'),
                      atPoint: document.elementFromPoint(\(x), \(y)) === cell};
            })()
            """)
        #expect(hovered["atPoint"]?.bool == true, "nothing sticky covers the cell")
        let info = hovered["info"]?.string ?? ""
        #expect(info == hovered["title"]?.string)
        for part in ["Scenario number 3 with a long title", "flavor=flavor-variant-0", "language=language-", "layout=layout-", "failed"] {
            #expect(info.contains(part), "\(info)")
        }
    }

    static func checkKeyboard(_ page: PageTarget) async throws {
        // The keyboard: from the map's first cell, one right and three down reach row 4, column 2, which the
        // line above the map then describes; Enter opens its panel.
        _ = try await Self.evaluate(page, "document.querySelector('#heatmap-table .hr a.cell[tabindex=\"0\"]').focus()")
        try await Self.key(page, "ArrowRight", code: 39)
        for _ in 0..<3 { try await Self.key(page, "ArrowDown", code: 40) }
        let focused = try await Self.evaluate(page, """
            (function () {
              var rows = document.querySelectorAll('#heatmap-table .hr'), expected = rows[3].children[2];
              var active = document.activeElement;
              return {same: active === expected, job: active.getAttribute('data-job'),
                      info: document.getElementById('cell-info').textContent,
                      row: rows[3].querySelector('.rh').firstChild.textContent.trim()};
            })()
            """)
        #expect(focused["same"]?.bool == true)
        let focusInfo = focused["info"]?.string ?? ""
        #expect(focusInfo.hasPrefix(focused["row"]?.string ?? "?"), "\(focusInfo)")
        let job = try #require(focused["job"]?.string)
        try await Self.key(page, "Enter", code: 13)
        try await waitUntil("Enter opened the focused job's panel", timeout: .seconds(30)) {
            try await Self.evaluate(page, "document.body.getAttribute('data-open-job')").string == job
        }
    }

    static func checkPrint(_ page: PageTarget) async throws {
        // Nothing is rendered lazily where a full-page capture or print would find it blank.
        let rendering = try await Self.evaluate(page, """
            getComputedStyle(document.getElementById('failures')).contentVisibility
            """)
        #expect(rendering.string == "visible")
        _ = try await page.send("Emulation.setEmulatedMedia", ["media": "print"])
        let printed = try await Self.evaluate(page, """
            (function () {
              var row = document.querySelector('#heatmap-table .hr'), box = document.querySelector('#heatmap .scroll');
              return getComputedStyle(row).contentVisibility + ' ' + getComputedStyle(box).overflowX;
            })()
            """)
        #expect(printed.string == "visible visible")
    }
}
