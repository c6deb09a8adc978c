import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// A misspelt registry must not silently drop a renderer, and one broken member must not hide the others' findings:
/// `validate` on a matrix with an axis typo, a registry typo and a missing corpus reports all three at once.
@Suite("registry names a worker publishes (MX059), and findings that a parse error does not hide")
struct RegistryNameTests {
    static func settings(_ names: [String] = ["catalog", "web", "noop", "command"]) -> PlanSettings {
        var settings = PlanSettings()
        settings.registryManifests = names.map { RegistryManifest(name: $0) }
        return settings
    }

    static func check(_ json: String, settings: PlanSettings = settings()) throws -> MatrixPlanner.Check {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"id": "s", "title": "s", "steps": [{"verb": "open", "target": "home"}]}"#.utf8)
            .write(to: folder.appendingPathComponent("corpus/s.json"))
        let url = folder.appendingPathComponent("m.json")
        try Data(json.utf8).write(to: url)
        return MatrixPlanner.check(matrixAt: url, settings: settings)
    }

    @Test("an axis typo, a registry typo and a missing corpus are reported together")
    func everythingAtOnce() throws {
        let check = try Self.check(#"{"name": "m", "corpus": ["corpus", "nope"], "registry": ["catalog", "wbe"], "axes": {"locle": ["en", "de"]}}"#)
        #expect(check.matrix == nil)
        #expect(Set(check.findings.map(\.code)) == ["MX031", "MX059", "MX017"], "\(check.findings)")
        let registry = try #require(check.findings.first { $0.code == "MX059" })
        #expect(registry.path == "$.registry[1]" && !registry.isWarning)
        #expect(registry.message.contains("did you mean 'web'?"))
        #expect(check.findings.first { $0.code == "MX017" }?.path == "$.corpus[1]")
        #expect(check.scenarioFiles.count == 1, "the corpus folder that exists is still checked")
    }

    @Test("a registry typo alone stops the matrix from planning, as a single name too")
    func typoAlone() throws {
        for registry in [#"["catalog", "wbe"]"#, #""catalgo""#] {
            let check = try Self.check(#"{"name": "m", "corpus": "corpus", "registry": \#(registry), "axes": {"locale": ["en"]}}"#)
            #expect(check.matrix == nil)
            #expect(check.findings.map(\.code) == ["MX059"], "\(check.findings)")
        }
    }

    @Test("a registry far from every known name is a warning: the matrix still plans")
    func ownRegistry() throws {
        let check = try Self.check(#"{"name": "m", "corpus": "corpus", "registry": ["catalog", "myapp"], "axes": {"locale": ["en"]}}"#)
        #expect(check.matrix != nil)
        #expect(check.findings.isEmpty, "\(check.findings)")
        #expect(check.warnings.map(\.code) == ["MX059"])
        #expect(check.warnings.first?.message.contains("--worker-executable") == true)
    }

    @Test("known registries, or no manifests at all, give no MX059")
    func known() throws {
        let json = #"{"name": "m", "corpus": "corpus", "registry": ["catalog", "web"], "axes": {"locale": ["en"]}}"#
        #expect(try Self.check(json).findings.isEmpty)
        let unknown = #"{"name": "m", "corpus": "corpus", "registry": "wbe", "axes": {"locale": ["en"]}}"#
        #expect(try Self.check(unknown, settings: PlanSettings()).findings.isEmpty)
    }
}
