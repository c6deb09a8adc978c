@testable import MatrixPlan
import Testing

/// Exhaustive checks: every t-tuple that some valid configuration holds appears in the reduced plan, and no
/// planned configuration violates a constraint or an exclude.
@Suite("t-wise reduction covers every valid tuple")
struct CoverageTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var json: String
        var t: Int
        var description: String { "\(name) t=\(t)" }
    }

    static let landscape = """
        {"if": {"orientation": "landscape"}, "then": {"window": {"notIn": ["tall-narrow", "narrow-portrait"]}}}
        """

    static func matrix(axes: String, t: Int, constraints: String = "", exclude: String = "") -> String {
        """
        {"name": "c", "corpus": ".", "registry": "r", "axes": {\(axes)},
         "constraints": [\(constraints)], "exclude": [\(exclude)],
         "reduction": {"strategy": "t-wise", "t": \(t)}, "policy": {"seed": 3}}
        """
    }

    static let nightlyAxes = """
        "locale": ["en", "fr", "ar", "ja", "he"], "direction": ["auto", "ltr", "pseudo-double", "pseudo-rtl"],
        "orientation": ["portrait", "landscape"],
        "window": ["narrow-portrait", "tall-narrow", "short-wide", "regular-square", "full-window"],
        "network": ["lte", "3g", "offline"]
        """

    static let cases: [Case] = [
        Case(name: "nightly-like with the landscape constraint", json: matrix(axes: nightlyAxes, t: 2, constraints: landscape), t: 2),
        Case(name: "nightly-like with the landscape constraint", json: matrix(axes: nightlyAxes, t: 3, constraints: landscape), t: 3),
        Case(name: "custom axes with an exclude and two constraints", json: matrix(
            axes: #""a": ["1", "2", "3"], "b": ["1", "2", "3", "4"], "c": ["x", "y"], "d": ["p", "q", "r"], "e": ["0", "1"]"#, t: 2,
            constraints: #"{"if": {"a": "1"}, "then": {"b": {"in": ["1", "2"]}}}, {"if": {"c": "x", "d": "p"}, "then": {"e": "1"}}"#,
            exclude: #"{"a": "3", "c": "y"}"#), t: 2),
        Case(name: "custom axes with an exclude and two constraints", json: matrix(
            axes: #""a": ["1", "2", "3"], "b": ["1", "2", "3", "4"], "c": ["x", "y"], "d": ["p", "q", "r"], "e": ["0", "1"]"#, t: 3,
            constraints: #"{"if": {"a": "1"}, "then": {"b": {"in": ["1", "2"]}}}, {"if": {"c": "x", "d": "p"}, "then": {"e": "1"}}"#,
            exclude: #"{"a": "3", "c": "y"}"#), t: 3),
        Case(name: "3^4 unconstrained", json: matrix(axes: #""a": ["0","1","2"], "b": ["0","1","2"], "c": ["0","1","2"], "d": ["0","1","2"]"#, t: 2), t: 2),
        Case(name: "2^8 unconstrained", json: matrix(axes: (0..<8).map { "\"f\($0)\": [\"0\", \"1\"]" }.joined(separator: ","), t: 3), t: 3),
    ]

    @Test("every valid t-tuple is covered and every configuration is valid", arguments: cases)
    func exhaustiveCoverage(_ c: Case) throws {
        let matrix = try Fixtures.matrix(c.json)
        let plan = matrix.plan(scenarios: [], settings: .quick)
        // The valid configurations, by brute force over the cartesian product.
        let full = try Fixtures.matrix(c.json.replacingOccurrences(of: #""strategy": "t-wise", "t": \#(c.t)"#, with: #""strategy": "full""#))
            .plan(scenarios: [], settings: .quick).configurations
        #expect(!full.isEmpty)
        let valid = Set(full)
        for configuration in plan.configurations {
            #expect(valid.contains(configuration), "\(configuration) is not a valid configuration")
            for constraint in matrix.constraints {
                #expect(constraint.isSatisfied(by: configuration.values), "\(configuration) violates constraint #\(constraint.number)")
            }
        }
        let axes = matrix.axes.map(\.name)
        var required = Set<[String]>()
        for configuration in full {
            for subset in Fixtures.subsets(axes.count, c.t) {
                required.insert(subset.flatMap { [axes[$0], configuration[axes[$0]] ?? ""] })
            }
        }
        var covered = Set<[String]>()
        for configuration in plan.configurations {
            for subset in Fixtures.subsets(axes.count, c.t) {
                covered.insert(subset.flatMap { [axes[$0], configuration[axes[$0]] ?? ""] })
            }
        }
        let missing = required.subtracting(covered)
        #expect(missing.isEmpty, "uncovered tuples: \(missing.prefix(5))")
        #expect(plan.configurations.count < full.count)
    }

    @Test("seed rows appear first in the reduced plan")
    func seedRows() throws {
        let matrix = try Fixtures.matrix("""
            {"name": "s", "corpus": ".", "registry": "r", "axes": {\(Self.nightlyAxes)},
             "constraints": [\(Self.landscape)],
             "reduction": {"strategy": "pairwise", "seedRows": [
               {"locale": "he", "direction": "pseudo-rtl", "orientation": "landscape", "window": "short-wide", "network": "offline"},
               {"locale": "ja", "orientation": "portrait"}]}}
            """)
        let plan = matrix.plan(scenarios: [], settings: .quick)
        #expect(plan.configurations[0] == Configuration([
            "locale": "he", "direction": "pseudo-rtl", "orientation": "landscape", "window": "short-wide", "network": "offline"]))
        #expect(plan.configurations[1]["locale"] == "ja" && plan.configurations[1]["orientation"] == "portrait")
        #expect(plan.origins[1] == .reductionRow(row: 2, origin: .seedRow(2), strength: 2, includes: []))
    }
}
