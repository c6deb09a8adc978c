import CatalogApp
import FlowSpec
import Foundation
import RunConditions
import Testing
import WebRegistry

/// Page-object files without a browser: loading, the `verb:target` pairs they wire, locators with holes, and the
/// findings of bad files.
@Suite("page objects: the files, what they wire, and their findings")
struct PageObjectsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let catalogPages = repository.appendingPathComponent("Workers/Catalog/Web/Pages")

    static func corpus() throws -> [Scenario] {
        try ScenarioLoader.loadCorpus(folder: repository.appendingPathComponent("Workers/Catalog/Scenarios"))
    }

    @Test("the Catalog's page objects wire every step of its 30-scenario corpus, and nothing the corpus misspells")
    func catalogCorpusIsWired() throws {
        let objects = try PageObjects.load(folder: Self.catalogPages)
        let scenarios = try Self.corpus()
        #expect(scenarios.count == 30)
        for scenario in scenarios {
            for step in scenario.steps {
                #expect(objects.wires(step), "\(scenario.id): \(step.key) is not wired")
            }
        }
        #expect(!objects.wires(Step(verb: .tap, target: "catalog.retyr")))
        #expect(!objects.wires(Step(verb: .open, target: "checkout")))
        #expect(!objects.wires(Step(verb: .request, target: "catalog.prodcts", arg: "empty")))
        #expect(!objects.wires(Step(verb: .ambient, target: "timer.refrsh")))
        // The manifest validate checks against: FS021 for the misspelled target, with the known ones listed.
        let manifest = objects.manifest
        #expect(manifest.name == "web")
        let folder = try Self.folder([
            "bad.json": #"{"id": "bad", "title": "bad", "steps": [{"verb": "tap", "target": "catalog.retyr"}]}"#
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let loaded = try #require(ScenarioLoader.loadCorpus(paths: [folder]).scenarios.first)
        let findings = manifest.findings(for: loaded)
        #expect(findings.map(\.code) == ["FS021"])
        #expect(findings.first?.message.contains("catalog.retry") == true, "\(findings)")
    }

    @Test("targets resolve through their locators; `#` holes fill `{#}` in the order they appear")
    func locatorsWithHoles() throws {
        let folder = try Self.folder([
            "shop.json": #"""
            {"screen": "shop", "url": "index.html", "elements": {
              "shop.search": {"label": "Search products"},
              "shop.item.#.add": {"css": "#products li:nth-child({#}) button"},
              "shop.row.#.cell.#": {"testId": "cell-{#}-{#}"},
              "shop.add": {"role": "button", "name": "Add"},
              "shop.cart": {}}}
            """#
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let objects = try PageObjects.load(folder: folder)
        #expect(objects.locator(for: "shop.search") == .label("Search products"))
        #expect(objects.locator(for: "shop.item.3.add") == .css("#products li:nth-child(3) button"))
        #expect(objects.locator(for: "shop.row.2.cell.10") == .testID("cell-2-10"))
        #expect(objects.locator(for: "shop.add") == .role("button", name: "Add"))
        #expect(objects.locator(for: "shop.cart") == .testID("shop.cart"))
        #expect(objects.locator(for: "shop.item.x.y.add") == nil)
        #expect(objects.screen(of: "shop.item.3.add") == "shop")
        #expect(objects.url(opening: "shop", arg: nil) == "index.html")
    }

    @Test("every problem of a page-object folder is reported at once, each with its rule code")
    func findings() throws {
        let folder = try Self.folder([
            "a.json": #"{"screen": "a", "url": "a.html", "elements": {"x": {"role": "button"}, "y": {"css": "p", "label": "P"}, "z": {"xpath": "//p"}}}"#,
            "b.json": #"{"screen": "a", "url": "b.html", "elements": {"w": {}}}"#,
            "c.json": #"{"elements": {}}"#,
            "d.json": "not json",
            "app.json": #"{"strings": "missing.js", "interruptions": [{"name": "n", "element": "nowhere", "dismiss": "w"}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: PageObjectError.self) { try PageObjects.load(folder: folder) }
        let codes = error.findings.map { "\($0.file) \($0.code)" }.sorted()
        #expect(
            codes == [
                "a.json FS028", "a.json FS028", "a.json FS028", "app.json FS029", "app.json FS029", "b.json FS029",
                "c.json FS027", "d.json FS027",
            ], "\(error)")
        #expect(error.description.contains("a role locator needs the accessible name"))
    }

    @Test("the site's strings.js holds exactly the Catalog's string tables (CatalogStrings.swift)")
    func stringsAreTheModels() throws {
        let tables = try PageObjects.stringTables(
            at: Self.repository.appendingPathComponent("Workers/Catalog/Web/site/strings.js"))
        #expect(tables.base == CatalogStrings.tables.base)
        #expect(tables.tables == CatalogStrings.tables.tables)
        let objects = try PageObjects.load(folder: Self.catalogPages)
        #expect(objects.strings?.tables == CatalogStrings.tables.tables)
    }

    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }
}
