import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("a matrix names the site its web registry tests (web.root, web.pages)")
struct WebSiteTests {
    /// A folder with `m.json`, `corpus/`, and `app/site` + `app/Pages` (a web UI and its page objects).
    static func folder(_ web: String, registry: String = #"["catalog", "web"]"#) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-site-\(UUID().uuidString)")
        for sub in ["corpus", "app/site", "app/Pages"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data(#"{"id": "s", "title": "s", "steps": [{"verb": "tap", "target": "x"}]}"#.utf8)
            .write(to: root.appendingPathComponent("corpus/s.json"))
        try Data("""
            {"name": "m", "corpus": "corpus", "registry": \(registry), \(web)
             "axes": {"locale": ["en"]}}
            """.utf8).write(to: root.appendingPathComponent("m.json"))
        return root
    }

    @Test("root is resolved against the matrix file; the page objects beside it are found; the workers' environment")
    func resolved() throws {
        let root = try Self.folder(#""web": {"root": "app/site"},"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let (matrix, findings) = MatrixFile.load(from: root.appendingPathComponent("m.json"))
        #expect(findings.isEmpty, "\(findings)")
        let site = try #require(matrix?.webSite)
        #expect(site.root?.path == root.appendingPathComponent("app/site").standardizedFileURL.path)
        #expect(site.pageObjects?.path == root.appendingPathComponent("app/Pages").standardizedFileURL.path)
        #expect(site.workerEnvironment == ["FLOWMATRIX_WEB_ROOT": root.appendingPathComponent("app/site").standardizedFileURL.path])
        let explicit = try Self.folder(#""web": {"root": "app/site", "pages": "corpus"},"#)
        defer { try? FileManager.default.removeItem(at: explicit) }
        let pages = try #require(MatrixFile.load(from: explicit.appendingPathComponent("m.json")).0?.webSite)
        #expect(pages.pageObjects?.lastPathComponent == "corpus")
        #expect(pages.workerEnvironment["FLOWMATRIX_WEB_PAGES"] == explicit.appendingPathComponent("corpus").standardizedFileURL.path)
    }

    @Test("every problem at once: a missing folder, a wrong type, no root, an unknown member, no web registry")
    func findings() throws {
        let missing = try Self.folder(#""web": {"root": "app/sitee", "pages": "nowhere"},"#)
        defer { try? FileManager.default.removeItem(at: missing) }
        let (matrix, found) = MatrixFile.load(from: missing.appendingPathComponent("m.json"))
        #expect(matrix == nil)
        #expect(found.filter { $0.code == "MX050" }.map(\.path) == ["$.web.root", "$.web.pages"], "\(found)")
        #expect(found.allSatisfy { $0.line != nil })
        let (_, typed) = MatrixFile.parse(Array(#"{"name": "m", "corpus": ".", "registry": "web", "web": {"pages": 3, "rooot": "x"}, "axes": {"locale": ["en"]}}"#.utf8), file: "m.json")
        #expect(Set(typed.map(\.code)) == ["MX050", "MX005"], "\(typed)")
        #expect(typed.filter { $0.code == "MX050" }.count == 2)
        let (_, notWeb) = MatrixFile.parse(Array(#"{"name": "m", "corpus": ".", "registry": "catalog", "web": {"root": "x"}, "axes": {"locale": ["en"]}}"#.utf8), file: "m.json")
        #expect(notWeb.map(\.code) == ["MX051"], "\(notWeb)")
    }

    @Test("the matrix's site replaces the web manifest it is checked against; other matrices keep the given one")
    func manifest() throws {
        let root = try Self.folder(#""web": {"root": "app/site"},"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let matrix = try #require(MatrixFile.load(from: root.appendingPathComponent("m.json")).0)
        var settings = PlanSettings()
        settings.registryManifests = [RegistryManifest(name: "catalog"), RegistryManifest(name: "web")]
        settings.webSiteManifest = { site in
            RegistryManifest(name: "web", steps: [.init(verb: "tap", targets: [site.pageObjects?.lastPathComponent ?? "-"])])
        }
        let manifests = settings.manifests(for: matrix)
        #expect(manifests.map(\.name).sorted() == ["catalog", "web"])
        #expect(manifests.first { $0.name == "web" }?.steps?.first?.targets == ["Pages"])
        // The scenario taps `x`, which the site's page objects do not wire: FS021 for web, before anything runs.
        let (_, findings) = MatrixPlanner.validate(matrixAt: root.appendingPathComponent("m.json"), settings: settings)
        #expect(findings.contains { $0.code == "FS021" }, "\(findings)")
        var without = matrix
        without.webSite = nil
        #expect(settings.manifests(for: without).first { $0.name == "web" }?.steps == nil)
    }
}
