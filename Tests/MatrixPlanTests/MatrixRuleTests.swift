import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

@Suite("every MX rule is triggered by a real broken matrix file")
struct MatrixRuleTests {
    @Test("the fixture named after a rule produces that rule", arguments: MatrixRule.allCases)
    func ruleFixture(_ rule: MatrixRule) throws {
        let url = try Fixtures.brokenMatrix(rule.code)
        var settings = PlanSettings()
        if rule == .unpublishedRegistry {
            // Registry names are checked against the manifests the CLI knows (its built-in registries).
            settings.registryManifests = ["catalog", "web", "noop", "command"].map { RegistryManifest(name: $0) }
        }
        var (matrix, findings) = MatrixPlanner.validate(matrixAt: url, settings: settings)
        if rule.isWarning {
            // A warning stops nothing: the matrix plans, and says it.
            #expect(matrix != nil, "\(findings)")
            findings = MatrixPlanner.check(matrixAt: url).warnings
            #expect(findings.allSatisfy { $0.isWarning })
        } else {
            #expect(matrix == nil, "a broken matrix must not plan")
        }
        let finding = try #require(findings.first { $0.code == rule.code }, "\(rule.code) not reported; got \(findings)")
        #expect(finding.file.hasSuffix("\(rule.code).json"))
        #expect(!finding.message.isEmpty)
        if rule != .unreadable && rule != .noScenarioSelected {
            #expect(finding.line != nil && finding.column != nil, "\(rule.code) has no position")
        }
    }

    @Test("malformed JSON names its line and column")
    func malformedPosition() throws {
        let (_, findings) = MatrixFile.load(from: try Fixtures.brokenMatrix("MX001"))
        let finding = try #require(findings.first)
        #expect(finding.code == "MX001")
        #expect(finding.line == 3 && finding.column == 1)
        #expect(finding.message.contains("line 3, column 1"))
    }

    @Test("all findings are reported in one pass")
    func allAtOnce() throws {
        let (_, findings) = MatrixFile.load(from: try Fixtures.brokenMatrix("MX018"))
        #expect(findings.filter { $0.code == "MX018" }.count == 3)
        let (_, more) = MatrixFile.parse(Array("""
            {"name": 1, "corpus": ".", "registry": "r", "axes": {"locale": ["en_GB"], "window": ["9x"], "direction": []},
             "exclude": [{"planet": "mars"}], "reduction": "sometimes"}
            """.utf8), file: "many.json")
        #expect(Set(more.map(\.code)) == ["MX003", "MX008", "MX009", "MX006", "MX012", "MX016"])
    }

    @Test("a strength whose tuples cannot fit in memory is refused")
    func hugeStrength() {
        let axes = (0..<100).map { "\"f\($0)\": [\"0\", \"1\"]" }.joined(separator: ", ")
        let (matrix, findings) = MatrixFile.parse(Array(#"{"name": "h", "corpus": ".", "registry": "r", "axes": {\#(axes)}, "reduction": {"strategy": "t-wise", "t": 8}}"#.utf8), file: "h.json")
        #expect(matrix == nil)
        #expect(findings.map(\.code) == ["MX015"])
    }

    @Test("a matrix's corpus findings come with its own (FS codes)")
    func corpusFindings() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mx-corpus-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Scenarios"), withIntermediateDirectories: true)
        try Data(#"{"id": "x", "title": "X", "steps": []}"#.utf8).write(to: folder.appendingPathComponent("Scenarios/x.json"))
        let matrixURL = folder.appendingPathComponent("m.json")
        try Data(#"{"name": "m", "corpus": "Scenarios", "registry": "r", "axes": {"locale": ["en", "xx_YY"]}}"#.utf8).write(to: matrixURL)
        let (_, findings) = MatrixPlanner.validate(matrixAt: matrixURL)
        #expect(Set(findings.map(\.code)) == ["MX008", "FS005"])
    }
}
