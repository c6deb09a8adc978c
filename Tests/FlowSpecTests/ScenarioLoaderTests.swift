import FlowSpec
import Foundation
import Testing

@Suite("Scenario loading and validation")
struct ScenarioLoaderTests {
    @Test("a well-formed scenario decodes with every member, and keys are verb:target")
    func decodesFullScenario() throws {
        let scenario = try ScenarioLoader.loadValidated(contentsOf: Fixture.url("good/checkout.json"))
        #expect(scenario.id == "checkout-happy-path")
        #expect(scenario.actor == "shopper")
        #expect(scenario.preconditions == ["signed in"])
        #expect(scenario.tags == ["checkout", "smoke"])
        #expect(scenario.steps.count == 10)
        #expect(scenario.steps[1] == Step(verb: .wait, target: "catalog.list", arg: "5"))
        #expect(scenario.steps[0].key == "open:catalog")
        #expect(Set(scenario.steps.map(\.verb)) == Set(Verb.allCases))
    }

    @Test("missing preconditions and tags decode to empty lists; actor stays nil")
    func defaults() throws {
        let scenario = try ScenarioLoader.load(contentsOf: Fixture.url("good/minimal.json"))
        #expect(scenario.preconditions == [])
        #expect(scenario.tags == [])
        #expect(scenario.actor == nil)
    }

    @Test("a scenario is found by id in a search folder")
    func loadByID() throws {
        let scenario = try ScenarioLoader.load(id: "checkout-happy-path", searchFolder: Fixture.url("good"))
        #expect(scenario.title == "A signed-in shopper buys one item")
        #expect(throws: ScenarioLoadError.self) { try ScenarioLoader.load(id: "nope", searchFolder: Fixture.url("good")) }
    }

    @Test("a whole corpus folder loads in path order")
    func loadCorpusFolder() throws {
        let scenarios = try ScenarioLoader.loadCorpus(folder: Fixture.url("good"))
        #expect(scenarios.map(\.id) == ["checkout-happy-path", "minimal"])
    }

    @Test("every step rule of a broken file is reported in one pass with its code and step path")
    func everyStepRule() throws {
        let error = #expect(throws: ScenarioLoadError.self) {
            try ScenarioLoader.loadValidated(contentsOf: Fixture.url("broken/bad-steps.json"))
        }
        let found = (error?.findings ?? []).map { "\($0.code) \($0.path)" }
        #expect(found == [
            "FS008 $.steps[0]",
            "FS009 $.steps[1].arg",
            "FS010 $.steps[2].arg",
            "FS011 $.steps[3].arg",
            "FS011 $.steps[4].arg",
            "FS010 $.steps[5].arg",
            "FS012 $.steps[6]",
            "FS013 $.steps[7].arg",
            "FS014 $.steps[8]",
            "FS007 $.steps[9].target",
            "FS006 $.steps[10].verb",
            "FS003 $.steps[11].arg",
        ])
        let unknownVerb = try #require(error?.findings.first { $0.code == "FS006" })
        #expect(unknownVerb.line == 15)
        #expect(unknownVerb.message.contains("teleport"))
        #expect(unknownVerb.message.contains("open, tap, type"))
    }

    @Test("an empty steps list is FS005")
    func noSteps() {
        let error = #expect(throws: ScenarioLoadError.self) {
            try ScenarioLoader.loadValidated(contentsOf: Fixture.url("broken/no-steps.json"))
        }
        #expect(error?.findings.map(\.code) == ["FS005"])
    }

    @Test("malformed JSON is FS001 with the line and column of the error")
    func malformedJSON() throws {
        let error = #expect(throws: ScenarioLoadError.self) {
            try ScenarioLoader.load(contentsOf: Fixture.url("broken/malformed.json"))
        }
        let finding = try #require(error?.findings.first)
        #expect(finding.code == "FS001")
        #expect(finding.line == 5)
        #expect(finding.column == 21)
        #expect(finding.message.contains("line 5, column 21"))
    }

    @Test("wrong types, missing members and unknown members are all reported")
    func shapeFindings() {
        let error = #expect(throws: ScenarioLoadError.self) {
            try ScenarioLoader.loadValidated(contentsOf: Fixture.url("broken/shape.json"))
        }
        let codes = Set((error?.findings ?? []).map(\.code))
        #expect(codes == ["FS003", "FS004", "FS017"])
        #expect(error?.findings.contains { $0.message.contains("did you mean 'steps'") } == true)
    }

    @Test("duplicate ids within a corpus are FS015, naming the first file")
    func duplicateIDs() {
        let load = ScenarioLoader.loadCorpus(paths: [Fixture.url("duplicates")])
        #expect(load.scenarios.count == 1)
        #expect(load.findings.map(\.code) == ["FS015"])
        #expect(load.findings.first?.message.contains("a.json") == true)
    }

    @Test("a corpus load reports the findings of every file together")
    func allFindingsOfCorpus() {
        let load = ScenarioLoader.loadCorpus(paths: [Fixture.url("broken"), Fixture.url("good")])
        let files = Set(load.findings.map { URL(fileURLWithPath: $0.file).lastPathComponent })
        #expect(files == ["bad-steps.json", "malformed.json", "no-steps.json", "shape.json"])
        #expect(load.scenarios.map(\.scenario.id).contains("checkout-happy-path"))
    }

    @Test("a matrix file kept in its corpus folder is not read as a scenario; named on its own, it still is")
    func matrixBesideScenarios() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let matrix = folder.appendingPathComponent("nightly.json")
        try Data(#"{"corpus": ".", "registry": "catalog", "axes": {"locale": ["en", "de"]}}"#.utf8).write(to: matrix)
        try Data(#"{"id": "s1", "title": "S1", "steps": [{"verb": "open", "target": "home"}]}"#.utf8)
            .write(to: folder.appendingPathComponent("s1.json"))
        // A scenario with a misspelt member is still a scenario with a finding, not skipped as a matrix.
        try Data(#"{"id": "s2", "title": "S2", "axes": 1, "steps": [{"verb": "open", "target": "home"}]}"#.utf8)
            .write(to: folder.appendingPathComponent("s2.json"))
        let load = ScenarioLoader.loadCorpus(paths: [folder])
        #expect(load.scenarios.map(\.scenario.id) == ["s1", "s2"])
        #expect(load.findings.map(\.code) == ["FS017"])
        #expect(load.files.map { URL(fileURLWithPath: $0).lastPathComponent } == ["s1.json", "s2.json"])
        let named = ScenarioLoader.loadCorpus(paths: [matrix])
        #expect(named.scenarios.isEmpty && named.findings.contains { $0.code == "FS004" })
    }

    @Test("an unreadable path is FS002, not a crash")
    func unreadable() {
        let load = ScenarioLoader.loadCorpus(paths: [Fixture.url("does-not-exist.json")])
        #expect(load.findings.map(\.code) == ["FS002"])
    }

    @Test("every rule code is documented in docs/SCENARIOS.md")
    func rulesDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/SCENARIOS.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for rule in ScenarioRule.allCases { #expect(text.contains(rule.code), "\(rule.code) is not documented") }
    }
}
