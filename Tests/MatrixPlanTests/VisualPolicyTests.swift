import Foundation
import MatrixPlan
import Testing

/// `policy.visual`: parsed settings, the keep default it implies, and every bad setting reported at once.
@Suite("policy.visual")
struct VisualPolicyTests {
    private func parse(_ policy: String) -> (MatrixFile?, [String]) {
        let text = #"{"name": "v", "corpus": "c", "registry": "web", "policy": "# + policy + #", "axes": {"locale": ["en"]}}"#
        let (matrix, findings) = MatrixFile.parse(Array(text.utf8), file: "v.json")
        return (matrix, findings.map(\.code))
    }

    @Test("settings are read, masks by identifier and rectangle; keep defaults to all with policy.visual")
    func parsesSettings() throws {
        let (matrix, codes) = parse(#"{"visual": {"threshold": 0.2, "maxDiffPixels": 10, "maxDiffRatio": 0.01, "#
            + #""masks": ["clock", {"x": 1, "y": 2, "width": 30, "height": 4}], "onChange": "report", "includeAntiAliasing": true}}"#)
        #expect(codes.isEmpty)
        let visual = try #require(matrix?.visual)
        #expect(visual.threshold == 0.2 && visual.maxDiffPixels == 10 && visual.maxDiffRatio == 0.01)
        #expect(visual.masks == [.identifier("clock"), .rect(x: 1, y: 2, width: 30, height: 4)])
        #expect(visual.onChange == .report && visual.includeAntiAliasing)
        #expect(matrix?.keep == .all)
        // Round trip through the run's journaled settings.
        #expect(VisualPolicy(json: Data(visual.json.utf8)) == visual)
        // An explicit keep stays; no policy.visual: nil, keep failures.
        #expect(parse(#"{"keep": "failures", "visual": {}}"#).0?.keep == .failures)
        #expect(parse(#"{"visual": {}}"#).0?.visual?.onChange == .fail)
        #expect(parse(#"{"retries": 1}"#).0?.visual == nil)
    }

    @Test("tolerances: a change must exceed both maxDiffPixels and maxDiffRatio")
    func tolerances() {
        var policy = VisualPolicy()
        #expect(policy.isChange(differentPixels: 1, totalPixels: 100))
        #expect(!policy.isChange(differentPixels: 0, totalPixels: 100))
        policy.maxDiffPixels = 5
        #expect(!policy.isChange(differentPixels: 5, totalPixels: 100) && policy.isChange(differentPixels: 6, totalPixels: 100))
        policy.maxDiffRatio = 0.1
        #expect(!policy.isChange(differentPixels: 10, totalPixels: 100) && policy.isChange(differentPixels: 11, totalPixels: 100))
    }

    @Test("every bad setting is reported at once with its code")
    func badSettings() {
        let (matrix, codes) = parse(#"{"keep": "none", "visual": {"threshold": -1, "maxDiffPixels": 1.5, "#
            + #""masks": [""], "onChange": "warn", "treshold": 1}}"#)
        #expect(matrix == nil)
        #expect(Set(codes) == ["MX045", "MX046", "MX047", "MX048", "MX049", "MX005"], "\(codes)")
    }
}
