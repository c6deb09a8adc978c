import DevTools
import FlowMatrixTestKit
import Foundation
import Testing

/// A run of the Catalog corpus on both renderers as a user makes it: `flowmatrix run` on a matrix that names the web
/// UI's site (`web.root`, relative to the matrix file) with `flowmatrix worker`s in real Chromium and nothing set in
/// the environment; then its report in Chromium, where the disagreement shows both renderers' pictures.
@Suite("A parity run from the matrix alone (real processes, real Chromium)", .serialized, .timeLimit(.minutes(10)))
struct ParityRunTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `cart-quantity` (the web port leaves out "a line whose quantity reaches 0 is removed") and `empty-cart`, in
    /// English and German at full window: the catalog registry passes all four jobs, the web one fails
    /// `cart-quantity` in both locales.
    static func workspace() throws -> E2EWorkspace {
        let ws = try E2EWorkspace()
        let scenarios = repository.appendingPathComponent("Workers/Catalog/Scenarios")
        for id in ["cart-quantity", "empty-cart"] {
            try FileManager.default.copyItem(at: scenarios.appendingPathComponent("\(id).json"),
                                             to: ws.root.appendingPathComponent("corpus/\(id).json"))
        }
        // The site beside the matrix (its page objects in `Pages` beside `site`, as the worker finds them).
        try FileManager.default.createSymbolicLink(
            at: ws.root.appendingPathComponent("catalog-web"),
            withDestinationURL: repository.appendingPathComponent("Workers/Catalog/Web"))
        let matrix = """
            {"name": "parity-e2e", "corpus": "corpus", "registry": ["catalog", "web"],
             "web": {"root": "catalog-web/site"},
             "policy": {"retries": 0, "timeout": 60, "seed": 7, "keep": "all"},
             "axes": {"locale": ["en", "de"], "direction": ["auto"], "orientation": ["portrait"],
                      "window": ["full-window"], "network": ["lte"]}}
            """
        try Data(matrix.utf8).write(to: ws.root.appendingPathComponent("m.json"))
        return ws
    }

    @Test("the site comes from the matrix; the dropped model rule fails only in web, read as a renderer defect")
    func parityRun() async throws {
        let ws = try Self.workspace()
        defer { ws.cleanUp() }
        // Nothing in the environment names the site (the worker's default, Workers/Web/site, is not there).
        let (status, output) = try await ws.run(
            ["run", "m.json", "--workers", "1", "--slots", "2", "--store", "store"], label: "run",
            environment: ["FLOWMATRIX_WEB_ROOT": "", "FLOWMATRIX_WEB_PAGES": "", "FLOWMATRIX_WEB_BASE_URL": ""],
            timeout: .seconds(420), localWorkers: .flowmatrix)
        #expect(status == 1, "the web registry fails cart-quantity: \(output)")
        #expect(output.contains("renderers: The registries disagree on 2 of 4 scenario × configuration pairs: "
            + "2 fail only in web (a renderer defect)."), "\(output)")
        #expect(output.contains("time per registry: catalog "), "\(output)")
        let runs = try FileManager.default.contentsOfDirectory(atPath: ws.root.appendingPathComponent("store/runs").path)
        let runID = try #require(runs.first)
        let folder = ws.root.appendingPathComponent("store/runs/\(runID)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("summary.json"))) as? [String: Any])

        // The parity rows: cart-quantity in both locales, failing only in web, where the `−` tap leaves a line.
        let parity = try #require(summary["registryParity"] as? [String: Any])
        let rows = try #require(parity["rows"] as? [[String: Any]])
        #expect(rows.count == 2 && rows.allSatisfy { $0["scenarioID"] as? String == "cart-quantity" })
        #expect(rows.allSatisfy { $0["failing"] as? [String] == ["web"] && $0["kind"] as? String == "fails-only-in" })
        let partStep = try #require(rows.first?["partStep"] as? Int)

        // The pivot groups by registry: the pattern names registry=web, and its sentence says what that means.
        let headline = try #require(summary["headline"] as? String)
        #expect(headline.contains("registry=web") && headline.contains("fails only in web, a renderer defect"), "\(headline)")
        // Where the time went, per registry, from the attempts.
        let times = try #require((summary["registryTimes"] as? [String: Any])?["registries"] as? [[String: Any]])
        #expect(times.compactMap { $0["registry"] as? String } == ["catalog", "web"])
        #expect(times.allSatisfy { $0["jobs"] as? Int == 4 && ($0["attemptSeconds"] as? Double ?? 0) > 0 })

        try await Self.checkEvidence(report: folder.appendingPathComponent("report.html"), step: partStep)
    }

    /// The parity view in Chromium: under each disagreement the Catalog's wireframe beside the web screenshot of the
    /// step where they part, both painted, the failing side marked.
    static func checkEvidence(report: URL, step: Int) async throws {
        let browser = try await Browser.launch()
        defer { browser.close() }
        let page = try await browser.newPage()
        _ = try await page.send("Page.navigate", ["url": .string(report.absoluteString + "#parity")])
        func evaluate(_ expression: String) async throws -> JSONValue {
            let reply = try await page.send("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true])
            return reply["result"]?["value"] ?? .null
        }
        try await waitUntil("the parity evidence is painted", timeout: .seconds(90)) {
            try await evaluate("""
                (function () {
                  var boxes = document.querySelectorAll('details.parity-evidence');
                  if (boxes.length === 0) return false;
                  for (var i = 0; i < boxes.length; i++) {
                    if (boxes[i].getAttribute('data-filled') !== 'true') return false;
                    var imgs = boxes[i].querySelectorAll('img');
                    for (var k = 0; k < imgs.length; k++) if (!imgs[k].hasAttribute('data-painted')) return false;
                  }
                  return true;
                })()
                """).bool == true
        }
        let sides = try await evaluate("""
            Array.prototype.map.call(document.querySelectorAll('details.parity-evidence'), function (box) {
              return {step: box.getAttribute('data-step'), figures: Array.prototype.map.call(box.querySelectorAll('figure'), function (f) {
                var img = f.querySelector('img');
                return {registry: f.getAttribute('data-registry'), failing: f.classList.contains('failing'),
                        picture: img ? img.getAttribute('data-picture') : null,
                        painted: img ? img.getAttribute('data-painted') : null,
                        width: img ? img.naturalWidth : 0, text: f.textContent};
              })};
            })
            """)
        let boxes = sides.array ?? []
        #expect(boxes.count == 2, "\(sides)")
        for box in boxes {
            #expect(box["step"]?.string == String(step))
            let figures = box["figures"]?.array ?? []
            #expect(figures.map { $0["registry"]?.string } == ["catalog", "web"], "\(box)")
            guard figures.count == 2 else { continue }
            #expect(figures[0]["picture"]?.string == "wireframe.png" && figures[0]["failing"]?.bool == false, "\(box)")
            #expect(figures[1]["picture"]?.string == "screenshot.png" && figures[1]["failing"]?.bool == true, "\(box)")
            #expect(figures.allSatisfy { $0["painted"]?.string == "true" && ($0["width"]?.double ?? 0) > 100 }, "\(box)")
            #expect(figures[1]["text"]?.string?.contains("cart.empty") == true, "the failing side says why: \(box)")
        }
    }
}
