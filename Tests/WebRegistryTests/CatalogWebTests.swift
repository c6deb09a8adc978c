import Foundation
import Testing

/// The Catalog corpus, unchanged, against the Catalog's web UI (Workers/Catalog/Web) through `flowmatrix run` with
/// two local workers in real Chromium: everything passes but the seeded drift, each where it should fail.
extension RealChromium {
    @Suite("Catalog web UI: the 30-scenario corpus through the web registry (real Chromium)", .serialized)
    struct CatalogWebTests {
        /// The jobs of a finished run's summary: scenario, configuration, outcome and failure message.
        static func jobs(in store: URL) throws -> [(scenario: String, locale: String, passed: Bool, message: String)] {
            let runs = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("runs").path)
            let run = try #require(runs.first)
            let data = try Data(contentsOf: store.appendingPathComponent("runs/\(run)/summary.json"))
            let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try #require(summary["jobs"] as? [[String: Any]]).map { job in
                (
                    job["scenarioID"] as? String ?? "", (job["configuration"] as? [String: String])?["locale"] ?? "",
                    job["outcome"] as? String == "passed", job["failureMessage"] as? String ?? ""
                )
            }
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
            let jobs = try Self.jobs(in: store)
            #expect(jobs.count == 60)
            // The port leaves out "a line whose quantity reaches 0 is removed": fails in every configuration.
            for job in jobs where job.scenario == "cart-quantity" {
                #expect(!job.passed && job.message.contains(#"[data-testid="cart.empty"]"#), "\(job)")
            }
            // The chips' `flex-wrap: nowrap` (CSS only): the last chip runs off a 320 px screen in German.
            for scenario in ["browse-catalog", "filter-by-category"] {
                let german = try #require(jobs.first { $0.scenario == scenario && $0.locale == "de" })
                #expect(!german.passed && german.message.contains("off-screen: catalog.filter."), "\(german)")
                #expect(jobs.first { $0.scenario == scenario && $0.locale == "en" }?.passed == true)
            }
            // Everything else passes in English at full window. `timer-refresh` asserts a state that lasts one
            // request (50 ms on lte): in a real browser it may be over before the assert looks (docs/CATALOG-WEB.md).
            let english = jobs.filter { $0.locale == "en" && !["cart-quantity", "timer-refresh"].contains($0.scenario) }
            #expect(english.count == 28)
            for job in english { #expect(job.passed, "\(job.scenario): \(job.message)") }
        }
    }
}
