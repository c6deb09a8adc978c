import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// A plan over the job limit, or a reduction too large to build, is a finding before anything is listed.
@Suite("plan limits")
struct PlanLimitTests {
    /// The four scenarios of the test corpus, as `plan(scenarios:)` takes them.
    static func corpus() throws -> [(scenario: Scenario, file: String)] {
        let load = ScenarioLoader.loadCorpus(paths: [try Fixtures.corpus], validate: false)
        #expect(load.scenarios.count == 4)
        return load.scenarios.map { ($0.scenario, $0.file) }
    }

    static func settings(maximumJobs: Int) -> PlanSettings {
        var s = PlanSettings.quick
        s.maximumJobs = maximumJobs
        return s
    }

    @Test("a full matrix of 10^30 combinations is MX025, counted without listing (this test would never end otherwise)")
    func hugeFullMatrix() throws {
        let (matrix, findings) = MatrixPlanner.validate(matrixAt: try Fixtures.brokenMatrix("MX025"))
        #expect(matrix == nil)
        let finding = try #require(findings.first { $0.code == "MX025" })
        #expect(finding.message.contains("1" + String(repeating: "0", count: 30) + " configurations × 4 scenario(s)"))
        #expect(finding.message.contains("--max-jobs"))
        #expect(finding.path == "$.axes" && finding.line == 2)
        let (plan, loadFindings) = MatrixPlanner.load(matrixAt: try Fixtures.brokenMatrix("MX025"))
        #expect(plan == nil)
        #expect(loadFindings.map(\.code) == ["MX025"])
    }

    @Test("the job limit is inclusive, for the counted check and while planning; over it nothing is listed silently")
    func limitBoundary() throws {
        let matrix = try Fixtures.matrix(#"{"name": "m", "corpus": ".", "registry": "r", "axes": {"locale": ["en", "fr", "de"], "orientation": ["portrait", "landscape"]}}"#)
        let scenarios = try Self.corpus()
        #expect(matrix.limitFindings(scenariosSelected: 4, settings: Self.settings(maximumJobs: 24)).isEmpty)
        let atLimit = matrix.plan(scenarios: scenarios, settings: Self.settings(maximumJobs: 24))
        #expect(atLimit.jobs.count == 24 && atLimit.limitFindings.isEmpty)

        #expect(matrix.limitFindings(scenariosSelected: 4, settings: Self.settings(maximumJobs: 23)).map(\.code) == ["MX025"])
        // A caller that skips the counted check still gets a finding, never a truncated plan.
        let over = matrix.plan(scenarios: scenarios, settings: Self.settings(maximumJobs: 23))
        #expect(over.limitFindings.map(\.code) == ["MX025"])
        #expect(over.jobs.isEmpty)
        #expect(over.notes.isEmpty)
    }

    @Test("raising the limit lets a larger plan through; products that overflow 64 bits are still compared exactly")
    func raisedLimit() throws {
        let ten = #"["0","1","2","3","4","5","6","7","8","9"]"#
        let matrix = try Fixtures.matrix(#"{"name": "m", "corpus": ".", "registry": "r", "axes": {"a": \#(ten), "b": \#(ten), "c": \#(ten)}}"#)
        #expect(matrix.limitFindings(scenariosSelected: 4, settings: Self.settings(maximumJobs: 3_999)).map(\.code) == ["MX025"])
        #expect(matrix.limitFindings(scenariosSelected: 4, settings: Self.settings(maximumJobs: 4_000)).isEmpty)
        // 1000 configurations × Int.max scenarios overflows Int64: still MX025, no trap.
        let huge = matrix.limitFindings(scenariosSelected: Int.max, settings: Self.settings(maximumJobs: 1_000_000_000))
        #expect(huge.map(\.code) == ["MX025"])
        #expect(huge.first?.message.contains("9223372036854775807000 jobs") == true)
    }

    @Test("a pairwise plan whose lower bound of rows × scenarios exceeds the limit is MX025 before generation")
    func pairwiseLowerBound() throws {
        let eleven = "[" + (0..<11).map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let matrix = try Fixtures.matrix(#"{"name": "m", "corpus": ".", "registry": "r", "reduction": "pairwise", "axes": {"a": \#(eleven), "b": \#(eleven), "c": ["x", "y"]}}"#)
        // At least 11 × 11 = 121 rows × 4 scenarios = 484 jobs.
        let findings = matrix.limitFindings(scenariosSelected: 4, settings: Self.settings(maximumJobs: 483))
        #expect(findings.map(\.code) == ["MX025"])
        #expect(findings.first?.message.contains("at least 121 configurations") == true)
        let plan = matrix.plan(scenarios: try Self.corpus(), settings: Self.settings(maximumJobs: 483))
        #expect(plan.limitFindings.map(\.code) == ["MX025"] && plan.jobs.isEmpty)
        #expect(matrix.plan(scenarios: try Self.corpus(), settings: Self.settings(maximumJobs: 484)).jobs.count == 484)
    }

    @Test("pairwise over 100 axes × 100 values is MX026, refused by its estimated work before any tuple is built")
    func reductionWork() throws {
        let (matrix, findings) = MatrixPlanner.validate(matrixAt: try Fixtures.brokenMatrix("MX026"))
        #expect(matrix == nil)
        let finding = try #require(findings.first { $0.code == "MX026" })
        #expect(finding.path == "$.reduction" && finding.line == 2)
        #expect(finding.message.contains("100 axes (10000 values)"))
        let levels = Array(repeating: 100, count: 100)
        // 40 candidates × 100·100 rows at least × 10,000 values × 99 other factors.
        #expect(CoveringArray.estimatedWork(levels: levels, strength: 2) == 40 * 10_000 * 10_000 * 99)
        #expect(throws: CoveringArray.Problem.tooMuchWork(40 * 10_000 * 10_000 * 99)) {
            try CoveringArray.generate(levels: levels, strength: 2, seed: 0)
        }
        // The shipped matrices stay far below the limit.
        #expect(CoveringArray.estimatedWork(levels: [12, 5, 2, 7, 5], strength: 3) < CoveringArray.Settings().maximumWork / 100)
    }

    @Test("a member named twice is MX024 wherever it stands, not 'the last one wins'")
    func duplicateMembers() {
        let (matrix, findings) = MatrixFile.parse(Array("""
            {"name": "m", "corpus": ".", "registry": "r", "axes": {"locale": ["en"]},
             "exclude": [{"locale": "en", "locale": "fr"}], "axes": {"locale": ["de"]}}
            """.utf8), file: "dup.json")
        #expect(matrix == nil)
        let duplicates = findings.filter { $0.code == "MX024" }
        #expect(duplicates.map(\.path) == ["$.exclude[0].locale", "$.axes"])
        #expect(duplicates.last?.line == 2)
    }
}
