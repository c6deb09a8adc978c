@testable import MatrixPlan
import Testing

/// `MatrixSpace.whyNotPlanned`: `isolate` asks it whether the matrix, edited since a run, would still plan each of the
/// run's configurations.
@Suite("whether a matrix plans a configuration")
struct PlannedMembershipTests {
    /// GitHub Actions' worked example of include (`GitHubActionsSemanticsTests`), with an exclude and a constraint.
    static let matrix = """
        {"name": "m", "corpus": ".", "registry": "r",
         "axes": {"fruit": ["apple", "pear"], "animal": ["cat", "dog"], "size": ["s", "m", "l"]},
         "include": [
           {"color": "green"},
           {"color": "pink", "animal": "cat"},
           {"fruit": "apple", "shape": "circle"},
           {"fruit": "banana"},
           {"fruit": "banana", "animal": "cat"},
           {"fruit": "pear", "animal": "dog", "size": "l"}
         ],
         "exclude": [{"fruit": "pear", "animal": "dog"}],
         "constraints": [{"if": {"size": "l"}, "then": {"animal": "cat"}}]}
        """

    @Test("exactly the configurations of the full plan: every candidate over the keys, each present or absent")
    func exactlyThePlanned() throws {
        let matrix = try Fixtures.matrix(Self.matrix)
        let planned = Set(matrix.plan(scenarios: []).configurations)
        let space = MatrixSpace(matrix)
        let keys: [(String, [String])] = [("fruit", ["apple", "pear", "banana"]), ("animal", ["cat", "dog"]),
                                          ("size", ["s", "m", "l"]), ("color", ["green", "pink"]), ("shape", ["circle"])]
        var candidates: [[String: String]] = [[:]]
        for (key, values) in keys {
            candidates = candidates.flatMap { c in [c] + values.map { var d = c; d[key] = $0; return d } }
        }
        var agreed = 0
        for c in candidates {
            let why = space.whyNotPlanned(c)
            #expect((why == nil) == planned.contains(Configuration(c)), "\(c): \(why ?? "planned")")
            agreed += 1
        }
        #expect(agreed == 4 * 3 * 4 * 3 * 2 && planned.count > 5)
    }

    @Test("the reason names the rule: an exclude, a constraint, the includes, an unknown key or value")
    func reasons() throws {
        let space = MatrixSpace(try Fixtures.matrix(Self.matrix))
        let pink = ["fruit": "apple", "animal": "cat", "color": "pink", "shape": "circle"]
        #expect(space.whyNotPlanned(pink.merging(["size": "m"]) { $1 }) == nil)
        #expect(space.whyNotPlanned(["fruit": "pear", "animal": "dog", "size": "s", "color": "green"])
            == "exclude #1 {animal=dog,fruit=pear} now removes the configuration animal=dog + color=green + fruit=pear + size=s")
        #expect(space.whyNotPlanned(["fruit": "apple", "animal": "dog", "size": "l", "color": "green", "shape": "circle"])?
            .hasPrefix("constraint #1 (") == true)
        // An include adds pear + dog + l (excluded as an original), but the constraint still rules it out.
        #expect(space.whyNotPlanned(["fruit": "pear", "animal": "dog", "size": "l"])?.hasPrefix("constraint #1") == true)
        #expect(space.whyNotPlanned(["fruit": "apple", "animal": "cat", "size": "m"])?
            .hasPrefix("the includes no longer give the configuration") == true)
        #expect(space.whyNotPlanned(["fruit": "pear"]) == "no include adds the configuration fruit=pear any more")
        #expect(space.whyNotPlanned(["flavour": "x"]) == "no axis or include key 'flavour'")
        #expect(space.whyNotPlanned(["fruit": "kiwi"]) == "no value fruit=kiwi")
    }

    @Test("withIncludes gives an original combination's axis values the keys the plan gives them")
    func withIncludes() throws {
        let matrix = try Fixtures.matrix(Self.matrix)
        let space = MatrixSpace(matrix)
        let axes = Set(matrix.axes.map(\.name))
        var originals = 0
        for c in matrix.plan(scenarios: []).configurations {
            let axisValues = c.values.filter { axes.contains($0.key) }
            // Combinations only an include adds (`fruit=banana`) carry just their own keys; the others are originals.
            guard axisValues.count == axes.count, matrix.axes.allSatisfy({ $0.values.contains(axisValues[$0.name] ?? "") })
            else { continue }
            originals += 1
            #expect(space.withIncludes(axisValues) == c.values, "\(c)")
        }
        #expect(originals > 5)
        #expect(space.withIncludes(["fruit": "apple", "animal": "cat", "size": "s", "color": "blue"])
            == ["fruit": "apple", "animal": "cat", "size": "s", "color": "pink", "shape": "circle"])
    }
}
