import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("a matrix may name several registries: each is a dimension of the plan")
struct MultiRegistryTests {
    static let scenarios: [(scenario: Scenario, file: String)] = [
        (Scenario(id: "s1", title: "one", steps: [Step(verb: .tap, target: "pass")]), "s1.json"),
        (Scenario(id: "s2", title: "two", steps: [Step(verb: .tap, target: "fail")]), "s2.json"),
    ]

    static func matrix(_ members: String) -> String {
        """
        {"name": "m", "corpus": ".", "registry": ["catalog", "web"],
         "axes": {"locale": ["en", "ar"], "network": ["lte", "offline"]}\(members.isEmpty ? "" : ", " + members)}
        """
    }

    @Test("every scenario runs under every configuration on each registry; configurations never hold the registry")
    func crossing() throws {
        let plan = try Fixtures.matrix(Self.matrix("")).plan(scenarios: Self.scenarios)
        #expect(plan.configurations.count == 4)
        #expect(plan.jobs.count == 2 * 4 * 2)
        #expect(plan.counts.scenariosSelected == 2)
        #expect(Set(plan.jobs.map(\.registry)) == ["catalog", "web"])
        #expect(plan.jobs.allSatisfy { $0.configuration[MatrixFile.registryKey] == nil })
        #expect(Set(plan.jobs.map(\.id)).count == plan.jobs.count)
    }

    @Test("a job has the same id as in the single-registry matrix of its registry")
    func stableIDs() throws {
        let several = try Fixtures.matrix(Self.matrix("")).plan(scenarios: Self.scenarios)
        let single = try Fixtures.matrix(Self.matrix("").replacingOccurrences(of: "[\"catalog\", \"web\"]", with: "\"web\""))
            .plan(scenarios: Self.scenarios)
        #expect(Set(single.jobs.map(\.id)).isSubset(of: Set(several.jobs.map(\.id))))
        #expect(several.jobs.filter { $0.registry == "web" }.map(\.id) == single.jobs.map(\.id))
    }

    @Test("a single registry name and a one-name list plan the same jobs")
    func oneNameList() throws {
        let list = try Fixtures.matrix(Self.matrix("").replacingOccurrences(of: "[\"catalog\", \"web\"]", with: "[\"web\"]"))
        let name = try Fixtures.matrix(Self.matrix("").replacingOccurrences(of: "[\"catalog\", \"web\"]", with: "\"web\""))
        #expect(list.plan(scenarios: Self.scenarios).jobs.map(\.id) == name.plan(scenarios: Self.scenarios).jobs.map(\.id))
        #expect(list.plan(scenarios: Self.scenarios).hash == name.plan(scenarios: Self.scenarios).hash)
    }

    @Test("an exclude naming the registry keeps it off the matching configurations only")
    func exclude() throws {
        let m = try Fixtures.matrix(Self.matrix("\"exclude\": [{\"registry\": \"web\", \"network\": \"offline\"}]"))
        let plan = m.plan(scenarios: Self.scenarios)
        #expect(plan.configurations.count == 4)
        let web = plan.jobs.filter { $0.registry == "web" }
        #expect(web.count == 2 * 2)
        #expect(web.allSatisfy { $0.configuration["network"] == "lte" })
        #expect(plan.jobs.filter { $0.registry == "catalog" }.count == 2 * 4)
    }

    @Test("a constraint naming the registry chooses registries per configuration")
    func constraint() throws {
        let m = try Fixtures.matrix(Self.matrix("\"constraints\": [{\"if\": {\"locale\": \"ar\"}, \"then\": {\"registry\": \"catalog\"}}]"))
        let plan = m.plan(scenarios: Self.scenarios)
        #expect(plan.jobs.filter { $0.registry == "web" }.allSatisfy { $0.configuration["locale"] == "en" })
        #expect(plan.jobs.count == 2 * (4 + 2))
        let arabic = try #require(plan.configurations.firstIndex { $0["locale"] == "ar" })
        #expect(plan.registries(ofConfiguration: arabic) == ["catalog"])
    }

    @Test("a pairwise reduction covers the axes and each kept row runs on every registry")
    func pairwise() throws {
        let m = try Fixtures.matrix(Self.matrix("\"reduction\": \"pairwise\"").replacingOccurrences(
            of: "\"network\": [\"lte\", \"offline\"]", with: "\"network\": [\"lte\", \"offline\"], \"window\": [\"full-window\", \"tall-narrow\"]"))
        let plan = m.plan(scenarios: Self.scenarios, settings: .quick)
        for c in plan.configurations.indices { #expect(plan.registries(ofConfiguration: c) == ["catalog", "web"]) }
        #expect(plan.jobs.count == plan.configurations.count * 2 * 2)
    }

    @Test("a registry every rule removes is MX043; plan --explain says which rule keeps a registry off a configuration")
    func runsNothingAndExplain() throws {
        let none = try Fixtures.matrix(Self.matrix("\"exclude\": [{\"registry\": \"web\"}]"))
        #expect(none.plan(scenarios: Self.scenarios).limitFindings.map(\.code) == ["MX043"])
        let m = try Fixtures.matrix(Self.matrix("\"exclude\": [{\"network\": \"lte\", \"locale\": \"ar\"}, {\"registry\": \"web\", \"network\": \"offline\"}]"))
        let plan = m.plan(scenarios: Self.scenarios)
        let text = plan.explain("registry=web,network=offline")
        #expect(text.contains("runs 0 of the 2 configuration(s)"), "\(text)")
        #expect(text.contains("exclude #2 {network=offline,registry=web}"), "\(text)")
        #expect(plan.explain("locale=ar,network=lte").contains("excluded by exclude #1"))
        let job = try #require(plan.jobs.first { $0.registry == "web" })
        #expect(plan.explain(job.id).contains("on registry 'web'"))
        #expect(plan.explain(job.id).contains("runs on catalog, web"))
        #expect(plan.explanation("registry=wbe").answered == false)
        #expect(plan.table().contains("catalog+web"))
        #expect(plan.table().contains(" catalog "))
    }

    @Test("bad registry lists and misplaced registry keys are MX040, MX041, MX042, MX023", arguments: [
        ("\"registry\": []", "MX040"),
        ("\"registry\": [\"web\", \"web\"]", "MX040"),
        ("\"registry\": [\"web\", \"\"]", "MX023"),
        ("\"registry\": [\"web\", 3]", "MX003"),
        ("\"registry\": [\"web\", \"catalog\"], \"exclude\": [{\"registry\": \"wbe\"}]", "MX041"),
        ("\"registry\": [\"web\", \"catalog\"], \"constraints\": [{\"if\": {\"registry\": \"catalgo\"}, \"then\": {\"locale\": \"en\"}}]", "MX041"),
        ("\"registry\": [\"web\", \"catalog\"], \"include\": [{\"registry\": \"web\", \"locale\": \"fr\"}]", "MX042"),
    ])
    func findings(members: String, code: String) throws {
        let json = "{\"name\": \"m\", \"corpus\": \".\", \(members), \"axes\": {\"locale\": [\"en\"]}}"
        let (matrix, findings) = MatrixFile.parse(Array(json.utf8), file: "m.json")
        #expect(matrix == nil)
        #expect(findings.map(\.code).contains(code), "\(findings)")
        if code == "MX041" { #expect(findings.contains { $0.message.contains("did you mean") }) }
    }

    @Test("an axis named registry is MX042")
    func registryAxis() {
        let json = "{\"name\": \"m\", \"corpus\": \".\", \"registry\": \"web\", \"axes\": {\"registry\": [\"web\"]}}"
        #expect(MatrixFile.parse(Array(json.utf8), file: "m.json").1.map(\.code).contains("MX042"))
    }

    @Test("a step one registry wires and another does not is FS023 on the other; one neither wires is FS021 on both")
    func parityGap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multi-registry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            {"id": "s", "title": "s", "steps": [{"verb": "tap", "target": "catalog.retry"}, {"verb": "tap", "target": "nowhere"}]}
            """
        try Data(text.utf8).write(to: folder.appendingPathComponent("s.json"))
        let corpus = ScenarioLoader.loadCorpus(paths: [folder])
        let catalog = RegistryManifest(name: "catalog", steps: StepTable(["tap:catalog.retry", "open:catalog"]).wiredSteps)
        let web = RegistryManifest(name: "web").wired(by: StepTable(["tap:shop.#", "open:*"]))
        let m = try Fixtures.matrix(Self.matrix(""))
        let findings = m.registryFindings(corpus.scenarios, manifests: [catalog, web])
        #expect(findings.map(\.code) == ["FS021", "FS023", "FS021"], "\(findings)")
        #expect(findings[1].message.contains("wired by catalog but not by registry web"))
        #expect(findings[1].path == "$.steps[0].target")
    }

    @Test("a wiring table entry that is not verb:target with a known verb is FS024")
    func badWiring() {
        let table = StepTable(["tap:a", "poke:b", "nocolon", "assert:"])
        #expect(table.badKeys == ["poke:b", "nocolon", "assert:"])
        #expect(table.findings(file: "web.pages").map(\.code) == ["FS024", "FS024", "FS024"])
        #expect(table.wiredSteps == [RegistryManifest.StepPatterns(verb: "tap", targets: ["a"])])
    }
}
