import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("job identity is stable and sensitive")
struct JobIdentityTests {
    static let scenario = Scenario(id: "browse", title: "Browse", tags: ["smoke"],
                                   steps: [Step(verb: .open, target: "catalog"), Step(verb: .tap, target: "item", arg: "1")])
    static let configuration = Configuration(["locale": "ar", "direction": "rtl", "window": "390x844"])

    @Test("the id is a documented function of the inputs (a golden value, the same on every machine)")
    func golden() {
        let id = JobIdentity.id(scenario: Self.scenario, configuration: Self.configuration, registry: "catalog")
        #expect(id.count == JobIdentity.length)
        #expect(JobIdentity.canonicalJSON(Self.configuration) == #"{"direction":"rtl","locale":"ar","window":"390x844"}"#)
        #expect(JobIdentity.canonicalJSON(Self.scenario)
            == #"{"id":"browse","preconditions":[],"steps":[{"target":"catalog","verb":"open"},{"arg":"1","target":"item","verb":"tap"}],"tags":["smoke"],"title":"Browse"}"#)
        #expect(id == "\(Self.expectedID)")
    }

    /// SHA-256 of the documented canonical bytes, first 16 hex characters (computed independently with Python hashlib).
    static let expectedID = "e520b58bdec02c84"

    @Test("changing the scenario, a configuration value or the registry changes the id")
    func sensitivity() {
        let base = JobIdentity.id(scenario: Self.scenario, configuration: Self.configuration, registry: "catalog")
        var changedScenario = Self.scenario
        changedScenario.steps[1].arg = "2"
        var values = Self.configuration.values
        values["window"] = "390x845"
        #expect(JobIdentity.id(scenario: changedScenario, configuration: Self.configuration, registry: "catalog") != base)
        #expect(JobIdentity.id(scenario: Self.scenario, configuration: Configuration(values), registry: "catalog") != base)
        #expect(JobIdentity.id(scenario: Self.scenario, configuration: Self.configuration, registry: "device") != base)
        values["window"] = "390x844"
        values["theme"] = "dark"
        #expect(JobIdentity.id(scenario: Self.scenario, configuration: Configuration(values), registry: "catalog") != base)
    }

    @Test("key order, file whitespace and member order do not change the id")
    func insensitivity() throws {
        let a = Configuration(["window": "390x844", "locale": "ar", "direction": "rtl"])
        #expect(a.canonicalString == "direction=rtl,locale=ar,window=390x844")
        #expect(JobIdentity.id(scenario: Self.scenario, configuration: a, registry: "catalog")
            == JobIdentity.id(scenario: Self.scenario, configuration: Self.configuration, registry: "catalog"))
        let compact = #"{"id":"browse","title":"Browse","tags":["smoke"],"steps":[{"verb":"open","target":"catalog"},{"verb":"tap","target":"item","arg":"1"}]}"#
        let spaced = """
            {
              "steps": [ {"target": "catalog", "verb": "open"},
                         {"arg": "1", "verb": "tap", "target": "item"} ],
              "tags": [ "smoke" ],   "title": "Browse",
              "id": "browse"
            }
            """
        let s1 = try #require(Scenario.validated(from: try JSONParser.parse(compact), file: "a").scenario)
        let s2 = try #require(Scenario.validated(from: try JSONParser.parse(spaced), file: "b").scenario)
        #expect(JobIdentity.id(scenario: s1, configuration: a, registry: "catalog")
            == JobIdentity.id(scenario: s2, configuration: a, registry: "catalog"))
    }

    @Test("a plan's job ids are identical across runs and unique within the plan")
    func planIDs() throws {
        let corpus = ScenarioLoader.loadCorpus(paths: [try Fixtures.corpus])
        let matrix = try Fixtures.matrix(DeterminismTests.nightly(seed: 5))
        let a = plan(matrix, scenarios: corpus.scenarios, settings: .quick)
        let b = plan(matrix, scenarios: corpus.scenarios, settings: .quick)
        #expect(a.jobs.map(\.id) == b.jobs.map(\.id))
        #expect(Set(a.jobs.map(\.id)).count == a.jobs.count)
        #expect(a.jobs.count == a.configurations.count * corpus.scenarios.count)
    }
}
