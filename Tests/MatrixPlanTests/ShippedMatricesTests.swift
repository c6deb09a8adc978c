import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("the shipped matrices plan against a corpus")
struct ShippedMatricesTests {
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: Fixtures.shippedMatrices.path)) ?? [])
            .filter { $0.hasSuffix(".json") && !commandMatrices.contains($0) }.sorted()
    }

    /// Matrices of command jobs (docs/COMMAND-JOBS.md): no corpus.
    static let commandMatrices: Set<String> = ["pytest-locale-window.json"]

    @Test("the pytest matrix runs the sample suite per locale × window, its settings in the environment")
    func pytestMatrix() throws {
        let url = Fixtures.shippedMatrices.appendingPathComponent("pytest-locale-window.json")
        let (matrix, findings) = MatrixFile.load(from: url)
        #expect(findings.isEmpty, "\(findings)")
        let command = try #require(matrix?.command)
        #expect(command.argv.contains("--junitxml={output}/junit.xml"))
        #expect(command.environment == ["APP_LOCALE": "{locale}", "APP_WINDOW_WIDTH": "{window.width}"])
        let p = try #require(matrix).plan(scenarios: [])
        #expect(p.jobs.count == 8)
        #expect(p.jobs.allSatisfy { $0.registry == CommandTemplate.registry })
    }

    @Test("the four documented matrices are shipped")
    func shipped() {
        #expect(Set(Self.files).isSuperset(of: ["smoke.json", "locale-rtl-sweep.json", "nightly.json", "pairwise-example.json"]))
    }

    @Test("each shipped matrix is valid and plans jobs with its corpus swapped for the fixture corpus", arguments: files)
    func plans(_ name: String) throws {
        let url = Fixtures.shippedMatrices.appendingPathComponent(name)
        let (loaded, findings) = MatrixFile.load(from: url)
        // The only acceptable finding is the catalog corpus not existing yet in this checkout.
        #expect(findings.allSatisfy { $0.code == MatrixRule.missingCorpus.code }, "\(findings)")
        var matrix: MatrixFile
        if let loaded { matrix = loaded } else {
            let (parsed, parseFindings) = MatrixFile.parse(Array(try Data(contentsOf: url)), file: name, directory: url.deletingLastPathComponent())
            #expect(parseFindings.isEmpty)
            matrix = try #require(parsed)
        }
        // The Catalog matrices drive the headless model; the web ones (web-*.json) the sample shop in Chromium, and
        // a11y.json audits the shop with its own scenarios (docs/ACCESSIBILITY.md).
        // a11y-catalog.json audits two scenarios of the Catalog corpus; item-detail-3wise.json isolates one
        // (docs/ISOLATE.md).
        // parity-web.json runs the Catalog corpus on its web UI, parity.json on both renderers (docs/CATALOG-WEB.md).
        let web = name.hasPrefix("web-") || name == "a11y.json" || name == "parity-web.json"
        let corpusPaths: [String] =
            name == "a11y.json" ? ["../Workers/Web/Accessibility"]
            : name == "a11y-catalog.json"
            ? ["../Workers/Catalog/Scenarios/add-to-cart-from-detail.json", "../Workers/Catalog/Scenarios/cart-quantity.json"]
            : name == "item-detail-3wise.json" ? ["../Workers/Catalog/Scenarios/item-detail.json"]
            : [web && !name.hasPrefix("parity") ? "../Workers/Web/Scenarios" : "../Workers/Catalog/Scenarios"]
        #expect(matrix.corpus == corpusPaths)
        #expect(matrix.registries == (name == "parity.json" ? ["catalog", "web"] : [web ? "web" : "catalog"]))
        matrix.corpusURLs = [try Fixtures.corpus]
        let corpus = ScenarioLoader.loadCorpus(paths: matrix.corpusURLs)
        #expect(corpus.findings.isEmpty)
        let p = plan(matrix, scenarios: corpus.scenarios, settings: .quick)
        #expect(!p.configurations.isEmpty)
        #expect(p.counts.scenariosSelected > 0)
        #expect(p.jobs.count == p.configurations.count * p.counts.scenariosSelected * matrix.registries.count)
        for c in p.configurations {
            for constraint in matrix.constraints { #expect(constraint.isSatisfied(by: c.values)) }
        }
    }

    @Test("nightly is pairwise with the landscape constraint and reaches the locale × window bound")
    func nightly() throws {
        let url = Fixtures.shippedMatrices.appendingPathComponent("nightly.json")
        let (parsed, _) = MatrixFile.parse(Array(try Data(contentsOf: url)), file: "nightly.json")
        let matrix = try #require(parsed)
        #expect(matrix.reduction == .tWise(2))
        let p = matrix.plan(scenarios: [], settings: .quick)
        #expect(p.configurations.count == 84) // 12 locales × 7 windows is a lower bound
        #expect(!p.configurations.contains { $0["orientation"] == "landscape" && ["tall-narrow", "narrow-portrait"].contains($0["window"]) })
        #expect(p.explain("orientation=landscape,window=tall-narrow").contains("excluded by constraint #1"))
    }
}
