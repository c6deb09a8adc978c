import Foundation
import ProcessSpawn
import Testing

/// The Catalog corpus, unchanged, against the Catalog's web UI (Workers/Catalog/Web) through `flowmatrix run` with
/// two local workers in real Chromium: everything passes but the seeded drift, each where it should fail.
extension RealChromium {
    @Suite("Catalog web UI: the 30-scenario corpus through the web registry (real Chromium)", .serialized)
    struct CatalogWebTests {
        /// A finished run's job count, and its jobs that did not pass (what the summary lists): scenario, locale,
        /// failure message.
        static func failures(in store: URL) throws -> (total: Int, failing: [(scenario: String, locale: String, message: String)]) {
            let runs = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("runs").path)
            let run = try #require(runs.first)
            let data = try Data(contentsOf: store.appendingPathComponent("runs/\(run)/summary.json"))
            let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let failing = try #require(summary["jobs"] as? [[String: Any]])
                .filter { $0["outcome"] as? String != "passed" }
                .map { job in
                    (
                        job["scenarioID"] as? String ?? "",
                        (job["configuration"] as? [String: String])?["locale"] ?? "",
                        job["failureMessage"] as? String ?? ""
                    )
                }
            return (summary["total"] as? Int ?? 0, failing)
        }

        @Test("validate checks a web matrix's scenarios against the page objects: an undeclared target is FS021")
        func validateAgainstPageObjects() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            try Data(
                #"{"id": "typo", "title": "A typo", "steps": [{"verb": "open", "target": "catalog"}, {"verb": "tap", "target": "catalog.retyr"}]}"#
                    .utf8
            ).write(to: root.appendingPathComponent("corpus/typo.json"))
            try Data(#"{"name": "v", "corpus": "corpus", "registry": "web", "axes": {"locale": ["en"]}}"#.utf8)
                .write(to: root.appendingPathComponent("m.json"))
            let output = root.appendingPathComponent("out.txt")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let handle = try FileHandle(forWritingTo: output)
            defer { try? handle.close() }
            let process = Process()
            process.executableURL = WebShopTests.binary
            process.arguments = ["validate", root.appendingPathComponent("m.json").path]
            var environment = ProcessInfo.processInfo.environment
            environment["FLOWMATRIX_WEB_PAGES"] = WebShopTests.repository
                .appendingPathComponent("Workers/Catalog/Web/Pages").path
            process.environment = environment
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            guard await process.exited(timeout: .seconds(60)) else {
                kill(process.processIdentifier, SIGKILL)
                Issue.record("validate did not finish")
                return
            }
            let text = try String(contentsOf: output, encoding: .utf8)
            #expect(process.terminationStatus == 1, "\(text)")
            #expect(text.contains("FS021") && text.contains("catalog.retyr") && text.contains("catalog.retry"), "\(text)")
        }

        @Test("English at full window passes but the dropped model rule; German at 320 px adds the CSS-only defect")
        func corpusOnTheWebUI() async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let corpus = WebShopTests.repository.appendingPathComponent("Workers/Catalog/Scenarios").path
            let matrix = """
                {"name": "catalog-web", "corpus": "\(corpus)", "registry": "web",
                 "policy": {"retries": 0, "timeout": 60, "seed": 3, "keep": "failures"},
                 "axes": {"locale": ["en"], "direction": ["auto"], "orientation": ["portrait"], "window": ["full-window"], "network": ["lte"]},
                 "include": [{"locale": "de", "direction": "auto", "orientation": "portrait", "window": "narrow-portrait", "network": "lte"}]}
                """
            try Data(matrix.utf8).write(to: root.appendingPathComponent("m.json"))
            let store = root.appendingPathComponent("store")
            let status = try await WebShopTests.run(
                root.appendingPathComponent("m.json"), store: store, site: "Workers/Catalog/Web/site")
            guard let status else { return }  // recorded as an issue
            #expect(status == 1, "failures found")
            let (total, failing) = try Self.failures(in: store)
            #expect(total == 60)
            func failure(_ scenario: String, _ locale: String) -> String? {
                failing.first { $0.scenario == scenario && $0.locale == locale }?.message
            }
            // The port leaves out "a line whose quantity reaches 0 is removed": fails in every configuration.
            for locale in ["en", "de"] {
                #expect(failure("cart-quantity", locale)?.contains(#"[data-testid="cart.empty"]"#) == true)
            }
            // The chips' `flex-wrap: nowrap` (CSS only): the last chip runs off a 320 px screen in German. (In
            // filter-by-category the tap on a chip scrolls the page sideways first, which brings the row on screen.)
            #expect(failure("browse-catalog", "de")?.contains("off-screen: catalog.filter.accessories") == true)
            #expect(failure("browse-catalog", "en") == nil)
            // The model's own defects at 320 px in German show in the browser too ("fails in both"): the title
            // overlapping the back button, "In den Warenkorb legen" truncated beside the price.
            #expect(failure("cart-total-layout", "de")?.contains("overlapping: cart.back and cart.title") == true)
            for scenario in ["item-detail", "out-of-stock-item"] {
                #expect(failure(scenario, "de")?.contains("truncated: item.add-to-cart") == true, "\(failing)")
            }
            // Nothing else fails. `timer-refresh` asserts "Updating…" right after the refresh: the evidence taken
            // after that step waits for the page's requests, and the refresh's answer is applied only when
            // `network.settle` says so, as in the model (it used to fail everywhere in the browser).
            for locale in ["en", "de"] { #expect(failure("timer-refresh", locale) == nil, "\(failing)") }
            let expected: Set<String> = [
                "cart-quantity", "browse-catalog", "filter-by-category", "cart-total-layout", "item-detail",
                "out-of-stock-item",
            ]
            for job in failing {
                // `item.added` is a toast that leaves after 2 s of real time: on a loaded machine the assert after
                // the tap can come later (seen once in 270 jobs at a load average of 36).
                let lateToast = job.scenario == "add-to-cart-from-detail" && job.message.contains("item.added")
                let anywhere = job.scenario == "cart-quantity"
                #expect(
                    lateToast || expected.contains(job.scenario) && (job.locale == "de" || anywhere),
                    "unexpected failure: \(job)")
            }
        }
    }
}
