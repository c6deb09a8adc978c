import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// A typo must not silently remove the dimension it meant to test (issue 27 §3): an axis named like a typed axis is
/// MX031 unless declared custom, and the registry's manifest says which axes change nothing.
@Suite("typed-axis typos, customAxes, accessibility axes and the registry's ignored axes")
struct TypedAxisSpellingTests {
    static func parse(_ json: String) -> (MatrixFile?, [ValidationFinding]) {
        MatrixFile.parse(Array(json.utf8), file: "typo.json")
    }

    @Test("an axis named like a typed axis is MX031 with 'did you mean', and the matrix does not plan",
          arguments: [("lcoale", "locale"), ("netwrok", "network"), ("orientaton", "orientation"), ("Locale", "locale"),
                      ("windows", "window"), ("textsize", "textSize"), ("apperance", "appearance"), ("contrats", "contrast")])
    func misspeltAxis(_ written: String, _ meant: String) throws {
        let (matrix, findings) = Self.parse(#"{"name": "m", "corpus": ".", "registry": "web", "axes": {"\#(written)": ["ar", "en"]}}"#)
        #expect(matrix == nil)
        let finding = try #require(findings.first { $0.code == MatrixRule.typedAxisMisspelt.code }, "\(findings)")
        #expect(finding.message.contains("did you mean '\(meant)'?"))
        #expect(finding.path == "$.axes.\(written)")
        #expect(finding.line == 1 && finding.column != nil)
    }

    @Test("custom axes far from every typed name stay free, as before", arguments: ["flavor", "theme", "os", "browser", "fruit", "repetition"])
    func farNamesAreCustom(_ name: String) throws {
        let matrix = try Fixtures.matrix(#"{"name": "m", "corpus": ".", "registry": "web", "axes": {"\#(name)": ["a", "b"]}}"#)
        #expect(matrix.axes.first?.kind == nil)
    }

    @Test("customAxes declares a near name custom on purpose: no finding, a custom axis with free values")
    func declaredCustom() throws {
        let matrix = try Fixtures.matrix(#"""
            {"name": "m", "corpus": ".", "registry": "web", "customAxes": ["windows"],
             "axes": {"windows": ["xp", "11"], "locale": ["en"]}, "include": [{"windows": "xp", "color": "blue"}]}
            """#)
        #expect(matrix.axes.map(\.kind) == [nil, .locale])
        #expect(matrix.axes.first?.values == ["xp", "11"])
    }

    @Test("an include key named like a typed axis is MX031 too, unless declared")
    func includeKey() throws {
        let json = #"{"name": "m", "corpus": ".", "registry": "web", %@ "axes": {"locale": ["en"]}, "include": [{"locale": "en", "netwrok": "3g"}]}"#
        let (_, findings) = Self.parse(json.replacingOccurrences(of: "%@", with: ""))
        #expect(findings.map(\.code) == ["MX031"])
        #expect(findings.first?.path == "$.include[0].netwrok")
        let (matrix, none) = Self.parse(json.replacingOccurrences(of: "%@", with: #""customAxes": ["netwrok"],"#))
        #expect(none.isEmpty && matrix != nil, "\(none)")
    }

    @Test("customAxes may not name a typed axis, nor a name the matrix does not have (MX032)")
    func badDeclarations() throws {
        let (_, findings) = Self.parse(#"""
            {"name": "m", "corpus": ".", "registry": "web", "customAxes": ["locale", "flavour", 3],
             "axes": {"locale": ["en"], "flavor": ["a"]}}
            """#)
        #expect(findings.map(\.code) == ["MX032", "MX032", "MX003"])
        #expect(findings.contains { $0.path == "$.customAxes[1]" && $0.message.contains("did you mean 'flavor'?") })
        #expect(findings.contains { $0.path == "$.customAxes[0]" && $0.message.contains("typed axis") })
    }

    @Test("the accessibility axes are typed: their values are checked, with a hint")
    func accessibilityAxes() throws {
        let matrix = try Fixtures.matrix(#"""
            {"name": "m", "corpus": ".", "registry": "web", "axes": {"appearance": ["light", "dark"],
             "textSize": ["xSmall", "large", "xxxLarge", "AX1", "AX5"], "motion": ["full", "reduced"], "contrast": ["standard", "more"]}}
            """#)
        #expect(matrix.axes.map(\.kind) == [.appearance, .textSize, .motion, .contrast])
        #expect(TextSize.allCases.count == 12)
        let (_, findings) = Self.parse(#"""
            {"name": "m", "corpus": ".", "registry": "web", "axes": {"appearance": ["Dark"], "textSize": ["AX6"], "motion": ["none"]}}
            """#)
        #expect(findings.map(\.code) == ["MX007", "MX007", "MX007"])
        #expect(findings.first?.message.contains("did you mean 'dark'?") == true)
        #expect(findings.first?.message.contains("use one of light, dark") == true)
    }

    @Test("the plan notes each axis the registry's manifest does not honour, typed or custom")
    func ignoredAxisNotes() throws {
        let matrix = try Fixtures.matrix(#"""
            {"name": "m", "corpus": ".", "registry": "web", "axes": {"locale": ["en", "ar"], "flavor": ["a", "b"],
             "motion": ["reduced"], "timezone": ["UTC"]}, "include": [{"locale": "ar", "banner": "x"}]}
            """#)
        let web = RegistryManifest(name: "web", axes: ["locale", "direction", "timezone"])
        #expect(matrix.ignoredAxisNotes(web) == [
            "registry web ignores axis 'flavor' (custom): its values do not change what runs",
            "registry web ignores axis 'motion' (typed, not applied by this registry): its values do not change what runs",
            "registry web ignores axis 'banner' (custom): its values do not change what runs",
        ])
        #expect(matrix.ignoredAxisNotes(RegistryManifest(name: "web")).isEmpty, "axes not published: nothing said")
        #expect(matrix.ignoredAxisNotes(RegistryManifest(name: "web", axes: ["*"])).isEmpty)
    }

    @Test("planning with the registry's manifest refuses unwired steps and unknown clauses, and notes ignored axes")
    func planWithManifest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mx-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        let scenario = #"{"id": "s", "title": "S", "steps": [{"verb": "open", "target": "home"}, {"verb": "assert", "target": "title", "arg": "5; visble"}]}"#
        try Data(scenario.utf8).write(to: folder.appendingPathComponent("corpus/s.json"))
        let matrixURL = folder.appendingPathComponent("m.json")
        try Data(#"{"name": "m", "corpus": "corpus", "registry": "r", "axes": {"locale": ["en"], "flavor": ["a"]}}"#.utf8)
            .write(to: matrixURL)
        var settings = PlanSettings()
        settings.registryManifests = [RegistryManifest(
            name: "r", steps: [.init(verb: "open", targets: ["home"]), .init(verb: "assert", targets: ["*"])],
            assertClauses: [.init(targets: ["*"], clauses: ["visible", "text="])], axes: ["locale"])]
        let (refused, findings) = MatrixPlanner.load(matrixAt: matrixURL, settings: settings)
        #expect(refused == nil)
        #expect(findings.map(\.code) == ["FS022"])
        #expect(findings.first?.message.contains("did you mean 'visible'?") == true)
        #expect(MatrixPlanner.check(matrixAt: matrixURL, settings: settings).findings.map(\.code) == ["FS022"])
        #expect(MatrixPlanner.check(matrixAt: matrixURL).findings.isEmpty, "no manifest: nothing checked")

        try Data(scenario.replacingOccurrences(of: "visble", with: "visible").utf8).write(to: folder.appendingPathComponent("corpus/s.json"))
        let (plan, clean) = MatrixPlanner.load(matrixAt: matrixURL, settings: settings)
        #expect(clean.isEmpty)
        #expect(plan?.notes == ["registry r ignores axis 'flavor' (custom): its values do not change what runs"])
    }
}
