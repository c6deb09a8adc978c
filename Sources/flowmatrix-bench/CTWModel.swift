import Foundation
import Isolation
import MatrixPlan

/// A CTWedge model whose constraints are its failure-inducing combinations, negated: the form of the benchmarks BEN's
/// published figures were measured on (github.com/fmselab/mixtgte, `benchmarks/*.ctw`: "the true MFICs expressed as
/// negated constraints (the constraints represent the passing tests)"). `bench isolate` reads such models from a
/// directory the user names (`FLOWMATRIX_BENCH_ISOLATE_CTW`); none ships with FlowMatrix.
///
/// The subset read: `Model name`, `Parameters:` of `name: Boolean` or `name: { v1 v2 … }` (commas and trailing
/// semicolons allowed), and `Constraints:` of `# … #`, each either a negated conjunction (`!(a and !b and d=d3)`,
/// `!a`) or a disjunction of Boolean literals (`High==true || Low==true`, the negation of `High=false + Low=false`; `p9`,
/// the negation of `p9=false`).
struct CTWModel: Equatable {
    var name: String
    var axes: [Axis]
    /// The failure-inducing combinations, one per constraint.
    var faults: [Combination]

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    init(name: String, axes: [Axis], faults: [Combination]) {
        self.name = name
        self.axes = axes
        self.faults = faults
    }

    init(parsing text: String, file: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        }
        let body = lines.joined(separator: "\n")
        guard let parameters = body.range(of: "Parameters:"), let constraints = body.range(of: "Constraints:"),
              parameters.upperBound <= constraints.lowerBound
        else { throw ParseError(description: "\(file): no 'Parameters:' section followed by a 'Constraints:' section") }
        let header = body[..<parameters.lowerBound].split(whereSeparator: \.isWhitespace)
        name = header.first == "Model" && header.count > 1 ? String(header[1]) : file
        axes = try Self.axes(in: body[parameters.upperBound..<constraints.lowerBound], file: file)
        let expressions = body[constraints.upperBound...].split(separator: "#", omittingEmptySubsequences: false)
        // Between the '#' pairs: odd pieces are expressions, even ones what separates them.
        var faults: [Combination] = []
        for (i, piece) in expressions.enumerated() where i % 2 == 1 {
            faults.append(try Self.fault(negatedBy: piece.trimmingCharacters(in: .whitespacesAndNewlines), axes: axes, file: file))
        }
        guard !faults.isEmpty else { throw ParseError(description: "\(file): no constraint between '#' marks") }
        self.faults = faults
    }

    /// `name: Boolean` and `name: { v1 v2 }` declarations, in order.
    private static func axes(in section: Substring, file: String) throws -> [Axis] {
        var out: [Axis] = []
        var rest = section[...]
        while let colon = rest.firstIndex(of: ":") {
            let name = rest[..<colon].trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
            rest = rest[rest.index(after: colon)...].drop { $0.isWhitespace }
            let values: [String]
            if rest.hasPrefix("Boolean") {
                values = ["true", "false"]
                rest = rest.dropFirst("Boolean".count)
            } else if rest.first == "{", let close = rest.firstIndex(of: "}") {
                values = rest[rest.index(after: rest.startIndex)..<close]
                    .split { $0.isWhitespace || $0 == "," }.map(String.init)
                rest = rest[rest.index(after: close)...]
            } else {
                throw ParseError(description: "\(file): parameter '\(name)' is neither Boolean nor an enumeration { … }")
            }
            guard !name.isEmpty, !name.contains(where: \.isWhitespace), values.count >= 2,
                  !out.contains(where: { $0.name == name })
            else { throw ParseError(description: "\(file): parameter '\(name)' is unnamed, repeated or has fewer than two values") }
            out.append(Axis(name: name, values: values))
        }
        guard !out.isEmpty else { throw ParseError(description: "\(file): no parameter") }
        return out
    }

    /// The combination a constraint forbids: `!(l1 and l2 …)` or `!l` forbids the literals' conjunction;
    /// `l1 || l2 …` or `l` (Boolean literals) forbids each one's negation at once.
    static func fault(negatedBy expression: String, axes: [Axis], file: String) throws -> Combination {
        let literals: [(axis: String, value: String)]
        if !expression.hasPrefix("!") || expression.contains("||") {
            literals = try expression.components(separatedBy: "||").map { text in
                let l = try literal(text, axes: axes, file: file)
                guard let axis = axes.first(where: { $0.name == l.axis }), axis.values == ["true", "false"] else {
                    throw ParseError(description: "\(file): '\(text.trimmingCharacters(in: .whitespaces))' in a disjunction is not a Boolean literal")
                }
                return (l.axis, l.value == "true" ? "false" : "true")
            }
        } else {
            var inner = expression.dropFirst().trimmingCharacters(in: .whitespaces)
            if inner.hasPrefix("("), inner.hasSuffix(")") { inner = String(inner.dropFirst().dropLast()) }
            literals = try inner.components(separatedBy: " and ").flatMap { $0.components(separatedBy: "&&") }
                .map { try literal($0, axes: axes, file: file) }
        }
        var values: [String: String] = [:]
        for l in literals {
            guard values.updateValue(l.value, forKey: l.axis) == nil else {
                throw ParseError(description: "\(file): constraint '\(expression)' names '\(l.axis)' twice")
            }
        }
        return Combination(values)
    }

    /// `a`, `!a`, `a=v`, `a==v` (Boolean values `true`/`false`), checked against the parameters.
    static func literal(_ text: String, axes: [Axis], file: String) throws -> (axis: String, value: String) {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let (axisName, value): (String, String)
        if let eq = t.range(of: "==") ?? t.range(of: "=") {
            (axisName, value) = (t[..<eq.lowerBound].trimmingCharacters(in: .whitespaces), t[eq.upperBound...].trimmingCharacters(in: .whitespaces))
        } else if t.hasPrefix("!") {
            (axisName, value) = (t.dropFirst().trimmingCharacters(in: .whitespaces), "false")
        } else {
            (axisName, value) = (t, "true")
        }
        guard let axis = axes.first(where: { $0.name == axisName }), axis.values.contains(value) else {
            throw ParseError(description: "\(file): '\(t)' names no parameter value of the model")
        }
        return (axisName, value)
    }
}
