import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("configurations as value indices: the plan's table, its rows and the jobs that share it")
struct ConfigurationTableTests {
    static let scenario = Scenario(id: "s", title: "S", steps: [Step(verb: .open, target: "home")])

    @Test("a plan's jobs share one table of value-index rows, and read back the configurations of the expansion")
    func sharedTable() throws {
        let matrix = try Fixtures.matrix(#"""
            {"name": "t", "corpus": "x", "registry": "catalog",
             "axes": {"zeta": ["1", "2"], "alpha": ["a", "b", "c"]},
             "include": [{"zeta": "2", "alpha": "c", "note": "q\"uote"}], "exclude": [{"zeta": "1", "alpha": "b"}]}
            """#)
        let plan = matrix.plan(scenarios: [(Self.scenario, "s.json"), (Scenario(id: "t", title: "T", steps: []), "t.json")])
        #expect(plan.configurations.count == 5)
        #expect(plan.configurations.names == ["zeta", "alpha", "note"])
        #expect(plan.jobs.count == 10)
        for (n, job) in plan.jobs.enumerated() {
            #expect(job.configurations == plan.configurations && job.configurationIndex == n % 5)
            let c = job.configuration
            // The row's strings and identity are those of the `Configuration` it stands for.
            #expect(plan.configurations.canonicalString(job.configurationIndex) == c.canonicalString)
            #expect(plan.configurations.canonicalJSON(job.configurationIndex) == JobIdentity.canonicalJSON(c))
            #expect(job.id == JobIdentity.id(scenario: job.scenario, configuration: c, registry: "catalog"))
        }
        #expect(plan.configurations[4] == Configuration(["zeta": "2", "alpha": "c", "note": "q\"uote"]))
        #expect(plan.configurations.canonicalJSON(4) == #"{"alpha":"c","note":"q\"uote","zeta":"2"}"#)
    }

    @Test("a table made of configurations keeps each one, absent keys left out")
    func fromConfigurations() {
        let configurations = [Configuration(["b": "1", "a": "x"]), Configuration(["a": "y"]), Configuration([:])]
        let table = ConfigurationTable(configurations)
        #expect(Array(table) == configurations)
        #expect(table.pairs(1).map(\.key) == ["a"])
        #expect(table.canonicalString(0) == "a=x,b=1" && table.canonicalString(2).isEmpty)
        #expect(ConfigurationTable([Configuration([:])]).count == 1, "the empty configuration is a row of its own")
    }

    @Test("rows out of range or of the wrong width are refused, not trusted")
    func publicRows() {
        #expect(ConfigurationTable(names: ["n"], values: [["0", "1"]], rows: [0, 1, -1])?.count == 3)
        #expect(ConfigurationTable(names: ["n"], values: [["0"]], rows: [1]) == nil)
        #expect(ConfigurationTable(names: ["n", "m"], values: [["0"], ["0"]], rows: [0]) == nil)
        #expect(ConfigurationTable(names: ["n", "n"], values: [["0"], ["0"]], rows: [0, 0]) == nil)
    }

    @Test("the builder keeps the first of equal rows, through many growths of its slots")
    func builderDeduplicates() {
        var builder = ConfigurationTable.Builder(names: ["a", "b"], values: [(0..<100).map(String.init), ["x", "y"]])
        var added = 0
        for round in 0..<2 {
            for a in 0..<100 { for b in [-1, 0, 1] where builder.append([Int32(a), Int32(b)]) { added += 1 } }
            #expect(added == 300, "round \(round)")
        }
        let table = builder.build()
        #expect(table.count == 300 && Set(table).count == 300)
        #expect(table[1] == Configuration(["a": "0", "b": "x"]))
    }

    @Test("repetitions extend each job's row with the repetition axis; ids are those of the configuration with it")
    func repetitions() throws {
        let matrix = try Fixtures.matrix(#"{"name": "t", "corpus": "x", "registry": "catalog", "axes": {"locale": ["en", "ar"]}}"#)
        let plan = matrix.plan(scenarios: [(Self.scenario, "s.json")])
        let repeated = Repetitions.expand(plan.jobs, count: 3)
        #expect(repeated.map { $0.configuration.canonicalString } == [
            "locale=en,repetition=1", "locale=en,repetition=2", "locale=en,repetition=3",
            "locale=ar,repetition=1", "locale=ar,repetition=2", "locale=ar,repetition=3",
        ])
        for job in repeated {
            #expect(job.id == JobIdentity.id(scenario: Self.scenario, configuration: job.configuration, registry: "catalog"))
        }
        #expect(Set(repeated.map { ObjectIdentifier($0.configurations.storage) }).count == 1, "one table for all")
    }
}
