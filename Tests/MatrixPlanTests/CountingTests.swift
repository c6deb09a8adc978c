@testable import MatrixPlan
import Testing

@Suite("stage counts stream without materialising configurations")
struct CountingTests {
    @Test("streamed counts equal the materialised expansion")
    func streamedEqualsMaterialised() throws {
        let matrix = try Fixtures.matrix(ExplainTests.json.replacingOccurrences(of: #""reduction": "pairwise""#, with: #""reduction": "full""#))
        let space = MatrixSpace(matrix)
        let stages = try #require(space.countStages())
        let p = matrix.plan(scenarios: [], settings: .quick)
        #expect(stages.cartesian == BigCount(24))
        #expect(stages.afterConstraints == BigCount(UInt64(p.configurations.count)))
        let all = space.enumerateAll()
        #expect(BigCount(all.notExcluded) == stages.afterExclude)
        #expect(BigCount(all.valid + 1) == stages.afterConstraints) // + the include-only {locale: fr}
    }

    @Test("counts of huge spaces are exact without enumerating them")
    func huge() throws {
        let axes = (0..<100).map { "\"f\($0)\": [\"0\", \"1\"]" }.joined(separator: ", ")
        let matrix = try Fixtures.matrix("""
            {"name": "h", "corpus": ".", "registry": "r", "axes": {\(axes)},
             "exclude": [{"f0": "1", "f1": "1"}], "reduction": "pairwise"}
            """)
        let stages = try #require(MatrixSpace(matrix).countStages())
        #expect(stages.cartesian.description == "1267650600228229401496703205376")
        #expect(stages.afterExclude.description == "950737950171172051122527404032") // 3/4 of 2^100
    }

    @Test("big counts multiply and add exactly")
    func bigCount() {
        #expect((BigCount(UInt64.max) * UInt64.max).description == "340282366920938463426481119284349108225")
        #expect((BigCount(999_999_999) + BigCount(1)).description == "1000000000")
        #expect(BigCount(12345).uint64 == 12345)
        #expect(BigCount(3) < BigCount(1_000_000_000_000))
    }
}
