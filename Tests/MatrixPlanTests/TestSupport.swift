import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// Shared helpers: fixture locations and matrices written inline.
enum Fixtures {
    /// The copied `Fixtures` folder of this test target.
    static var root: URL {
        get throws {
            let url = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures")
            return url
        }
    }

    static var corpus: URL { get throws { try root.appendingPathComponent("Corpus") } }

    static func brokenMatrix(_ code: String) throws -> URL { try root.appendingPathComponent("Broken/\(code).json") }

    /// The repository's `Matrices` folder (found from this source file).
    static var shippedMatrices: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Matrices")
    }

    /// Parses a matrix written inline; fails the test with the findings when it does not parse.
    static func matrix(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> MatrixFile {
        let (matrix, findings) = MatrixFile.parse(Array(json.utf8), file: "inline.json")
        #expect(findings.isEmpty, "\(findings)", sourceLocation: sourceLocation)
        return try #require(matrix, sourceLocation: sourceLocation)
    }

    /// Every t-subset of `0..<k`.
    static func subsets(_ k: Int, _ t: Int) -> [[Int]] {
        guard t <= k else { return [] }
        if t == 0 { return [[]] }
        var out: [[Int]] = []
        for last in (t - 1)..<k { for s in subsets(last, t - 1) { out.append(s + [last]) } }
        return out
    }
}

extension Configuration {
    init(_ pairs: KeyValuePairs<String, String>) {
        var d: [String: String] = [:]
        for (k, v) in pairs { d[k] = v }
        self.init(d)
    }
}

extension PlanSettings {
    /// Fewer greedy restarts: the guarantees (coverage, validity, determinism) do not depend on them, and
    /// debug builds are slow. Sizes are measured by `flowmatrix bench matrix` on release builds.
    static var quick: PlanSettings {
        var s = PlanSettings()
        s.coveringArray.maximumRestarts = 2
        return s
    }
}
