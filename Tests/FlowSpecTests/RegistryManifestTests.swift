import FlowSpec
import Foundation
import Testing

/// The registry manifest: target patterns, the checks it drives (FS021, FS022) and its JSON form.
@Suite("registry manifests")
struct RegistryManifestTests {
    static let catalogLike = RegistryManifest(
        name: "catalog",
        steps: [
            .init(verb: "open", targets: ["catalog", "cart"]),
            .init(verb: "tap", targets: ["catalog.retry", "catalog.item.#.add", "cart.checkout"]),
            .init(verb: "assert", targets: ["layout", "catalog.title", "catalog.item.#"]),
        ],
        assertClauses: [
            .init(targets: ["layout"], clauses: ["clean", "no-overlap"]),
            .init(targets: ["*"], clauses: ["absent", "visible", "text=", "contains="]),
        ],
        axes: ["locale", "direction"])

    @Test("patterns: exact, '*' for any target, '#' for a run of letters, digits and '-'")
    func patterns() {
        #expect(RegistryManifest.matches("catalog.item.3.add", pattern: "catalog.item.#.add"))
        #expect(RegistryManifest.matches("catalog.item.a-b.add", pattern: "catalog.item.#.add"))
        #expect(!RegistryManifest.matches("catalog.item..add", pattern: "catalog.item.#.add"))
        #expect(!RegistryManifest.matches("catalog.item.3.4.add", pattern: "catalog.item.#.add"))
        #expect(!RegistryManifest.matches("catalog.item.3", pattern: "catalog.item.#.add"))
        #expect(RegistryManifest.matches("x.1.y.2", pattern: "x.#.y.#"))
        #expect(RegistryManifest.matches("#anything .css > sel", pattern: "*"))
        #expect(!RegistryManifest.matches("", pattern: "*"))
        #expect(RegistryManifest.matches("cart", pattern: "cart") && !RegistryManifest.matches("cart", pattern: "carts"))
    }

    static func load(_ steps: String) throws -> LoadedScenario {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("s.json")
        try Data("{\"id\": \"s\", \"title\": \"S\",\n \"steps\": [\(steps)]}".utf8).write(to: file)
        let corpus = ScenarioLoader.loadCorpus(paths: [file])
        #expect(corpus.findings.isEmpty, "\(corpus.findings)")
        return try #require(corpus.scenarios.first)
    }

    @Test("a step the registry does not wire is FS021, with the nearest target; an unwired verb names the verbs")
    func unwiredSteps() throws {
        let scenario = try Self.load("""
            {"verb": "open", "target": "catalog"},
            {"verb": "tap", "target": "catalog.retyr"},
            {"verb": "tap", "target": "catalog.item.7.add"},
            {"verb": "swipe", "target": "catalog.list", "arg": "up"}
            """)
        let findings = Self.catalogLike.findings(for: scenario)
        #expect(findings.map(\.code) == ["FS021", "FS021"])
        #expect(findings.map(\.path) == ["$.steps[1].target", "$.steps[3].target"])
        #expect(findings[0].message.contains("did you mean 'tap:catalog.retry'?"))
        #expect(findings[0].line == 3, "positions come from the file: \(findings[0])")
        #expect(findings[1].message.contains("does not wire the verb swipe (it wires: open, tap, assert)"))
        // A person reads steps numbered from 1; the JSON path keeps the 0-based index.
        #expect(findings[0].message.hasPrefix("step 2 'tap:catalog.retyr'"), "\(findings[0].message)")
        #expect(findings[1].message.hasPrefix("step 4 "), "\(findings[1].message)")
    }

    @Test("an assert clause outside the target's vocabulary is FS022 with 'did you mean'; timeouts always pass")
    func unknownClauses() throws {
        let scenario = try Self.load("""
            {"verb": "assert", "target": "catalog.title", "arg": "5; text=Hello; visibel; leading"},
            {"verb": "assert", "target": "layout", "arg": "timeout=2; clean; no-overlap; absent"},
            {"verb": "assert", "target": "catalog.item.2", "arg": "contains=Lamp"}
            """)
        let findings = Self.catalogLike.findings(for: scenario)
        #expect(findings.map(\.code) == ["FS022", "FS022", "FS022"])
        #expect(findings.map(\.path) == ["$.steps[0].arg", "$.steps[0].arg", "$.steps[1].arg"])
        #expect(findings[0].message.contains("'visibel'") && findings[0].message.contains("did you mean 'visible'?"))
        #expect(findings[1].message.contains("'leading'") && findings[1].message.contains("clauses there: absent, visible, text=, contains="))
        #expect(findings[2].message.contains("'absent' on layout"), "the layout group applies to layout: \(findings[2])")
    }

    @Test("what a manifest does not publish is not checked")
    func unpublished() throws {
        let scenario = try Self.load(#"{"verb": "rotate", "target": "device", "arg": "landscape"}, {"verb": "assert", "target": "x", "arg": "anything"}"#)
        #expect(RegistryManifest(name: "counter").findings(for: scenario).isEmpty)
        #expect(RegistryManifest(name: "web", steps: RegistryManifest.everyStep).findings(for: scenario).isEmpty)
        #expect(RegistryManifest(name: "x").honours(axis: "flavor"))
        #expect(!Self.catalogLike.honours(axis: "flavor") && Self.catalogLike.honours(axis: "locale"))
        #expect(RegistryManifest(name: "command", axes: [RegistryManifest.everyAxis]).honours(axis: "flavor"))
    }

    @Test("the JSON document carries manifestVersion and round-trips; members not published are left out")
    func document() throws {
        let document = RegistryManifest.Document(registries: [RegistryManifest(name: "z"), Self.catalogLike])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(document)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"{"manifestVersion":1,"registries":[{"assertClauses""#))
        #expect(text.hasSuffix(#"{"name":"z"}]}"#))
        #expect(try JSONDecoder().decode(RegistryManifest.Document.self, from: data) == document)
    }
}
