@testable import MatrixPlan
import Testing

@Suite("include and exclude follow GitHub Actions")
struct GitHubActionsSemanticsTests {
    static let workedExample = """
        {"name": "gha", "corpus": ".", "registry": "r",
         "axes": {"fruit": ["apple", "pear"], "animal": ["cat", "dog"]},
         "include": [
           {"color": "green"},
           {"color": "pink", "animal": "cat"},
           {"fruit": "apple", "shape": "circle"},
           {"fruit": "banana"},
           {"fruit": "banana", "animal": "cat"}
         ]}
        """

    @Test("the workflow-syntax documentation's worked example gives exactly its six combinations, in order")
    func workedExample() throws {
        let plan = try Fixtures.matrix(Self.workedExample).plan(scenarios: [])
        #expect(Array(plan.configurations) == [
            Configuration(["fruit": "apple", "animal": "cat", "color": "pink", "shape": "circle"]),
            Configuration(["fruit": "apple", "animal": "dog", "color": "green", "shape": "circle"]),
            Configuration(["fruit": "pear", "animal": "cat", "color": "pink"]),
            Configuration(["fruit": "pear", "animal": "dog", "color": "green"]),
            Configuration(["fruit": "banana"]),
            Configuration(["fruit": "banana", "animal": "cat"]),
        ])
        #expect(plan.origins[4] == .include(4))
        #expect(plan.origins[5] == .include(5))
        #expect(plan.origins[0] == .combination(index: 0, includes: [1, 2, 3]))
        let stages = try #require(plan.counts.stages)
        #expect(stages.cartesian == BigCount(4))
        #expect(stages.afterExclude == BigCount(4))
        #expect(stages.afterInclude == BigCount(6))
        #expect(stages.afterConstraints == BigCount(6))
    }

    @Test("an include may overwrite a value an earlier include added, never an original value")
    func overwriteOnlyAddedValues() throws {
        let plan = try Fixtures.matrix("""
            {"name": "m", "corpus": ".", "registry": "r", "axes": {"os": ["linux", "mac"]},
             "include": [{"shell": "bash"}, {"os": "mac", "shell": "zsh"}, {"os": "windows", "shell": "pwsh"}]}
            """).plan(scenarios: [])
        #expect(Array(plan.configurations) == [
            Configuration(["os": "linux", "shell": "bash"]),
            Configuration(["os": "mac", "shell": "zsh"]),
            Configuration(["os": "windows", "shell": "pwsh"]),
        ])
    }

    @Test("an exclude matches partially, and includes are applied after excludes")
    func excludeThenInclude() throws {
        let plan = try Fixtures.matrix("""
            {"name": "m", "corpus": ".", "registry": "r",
             "axes": {"fruit": ["apple", "pear"], "animal": ["cat", "dog"], "size": ["s", "l"]},
             "exclude": [{"fruit": "apple", "animal": "dog"}],
             "include": [{"fruit": "apple", "animal": "dog", "note": "re-added"}, {"animal": "dog", "note": "dog"}]}
            """).plan(scenarios: [])
        // apple/dog/* are excluded (partial match); the first include cannot extend any remaining combination,
        // so it adds its own; the second extends both pear/dog combinations.
        #expect(!plan.configurations.contains { $0["fruit"] == "apple" && $0["animal"] == "dog" && $0["size"] != nil })
        #expect(plan.configurations.contains(Configuration(["fruit": "apple", "animal": "dog", "note": "re-added"])))
        #expect(plan.configurations.filter { $0["note"] == "dog" }.count == 2)
        #expect(plan.configurations.count == 7)
        #expect(plan.counts.stages?.afterExclude == BigCount(6))
        #expect(plan.counts.stages?.afterInclude == BigCount(7))
    }
}
