@testable import MatrixPlan
import Testing

@Suite("reductions are deterministic for a file and seed")
struct DeterminismTests {
    static func nightly(seed: Int) -> String {
        """
        {"name": "d", "corpus": ".", "registry": "r", "policy": {"seed": \(seed)},
         "axes": {"locale": ["en", "fr", "ar", "ja", "he", "de"], "direction": ["auto", "ltr", "pseudo-double"],
                  "orientation": ["portrait", "landscape"],
                  "window": ["narrow-portrait", "tall-narrow", "short-wide", "full-window"], "network": ["lte", "3g", "edge"]},
         "constraints": [\(CoverageTests.landscape)], "reduction": "pairwise"}
        """
    }

    @Test("the same file and seed give the same configurations, in the same order")
    func sameSeed() throws {
        let a = try Fixtures.matrix(Self.nightly(seed: 11)).plan(scenarios: [], settings: .quick)
        let b = try Fixtures.matrix(Self.nightly(seed: 11)).plan(scenarios: [], settings: .quick)
        #expect(a.configurations == b.configurations)
        #expect(a.origins == b.origins)
    }

    @Test("a different seed may pick different rows but keeps the guarantees")
    func differentSeed() throws {
        let a = try Fixtures.matrix(Self.nightly(seed: 11)).plan(scenarios: [], settings: .quick)
        let b = try Fixtures.matrix(Self.nightly(seed: 12)).plan(scenarios: [], settings: .quick)
        #expect(a.configurations.count >= 24 && b.configurations.count >= 24) // locale × window lower bound
        #expect(Set(a.configurations) != Set(b.configurations))
    }

    @Test("covering arrays are identical for equal seeds", arguments: [UInt64(0), 1, 99])
    func coveringArraySeed(seed: UInt64) throws {
        let levels = [4, 3, 3, 2, 2, 5]
        let settings = PlanSettings.quick.coveringArray
        let a = try CoveringArray.generate(levels: levels, strength: 2, seed: seed, settings: settings)
        let b = try CoveringArray.generate(levels: levels, strength: 2, seed: seed, settings: settings)
        #expect(a == b)
    }
}
