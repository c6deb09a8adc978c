@testable import MatrixPlan
import Testing

@Suite("covering-array sizes and constructions")
struct CoveringArraySizeTests {
    /// Checks strength-2 coverage of raw rows.
    static func coversAllPairs(_ rows: [CoveringArray.Row], levels: [Int]) -> Bool {
        for a in 0..<levels.count {
            for b in (a + 1)..<levels.count {
                var seen = Set<[Int32]>()
                for row in rows { seen.insert([row.values[a], row.values[b]]) }
                if seen.count != levels[a] * levels[b] { return false }
            }
        }
        return true
    }

    @Test("3^4 pairwise needs 9 rows, the orthogonal array")
    func threeToTheFour() throws {
        let rows = try CoveringArray.generate(levels: [3, 3, 3, 3], strength: 2, seed: 0)
        #expect(rows.count == 9)
        #expect(Self.coversAllPairs(rows, levels: [3, 3, 3, 3]))
    }

    @Test("2^100 pairwise fits in 10 rows (Kleitman–Spencer), beating PICT's 15")
    func binaryHundred() throws {
        var settings = CoveringArray.Settings()
        settings.maximumRestarts = 1
        settings.candidates = 4
        let levels = Array(repeating: 2, count: 100)
        let rows = try CoveringArray.generate(levels: levels, strength: 2, seed: 0, settings: settings)
        #expect(rows.count <= 10)
        #expect(Self.coversAllPairs(rows, levels: levels))
    }

    @Test("3^13 pairwise is at most PICT's 18 rows")
    func threeToTheThirteen() throws {
        let levels = Array(repeating: 3, count: 13)
        var settings = CoveringArray.Settings()
        settings.maximumRestarts = 2
        let rows = try CoveringArray.generate(levels: levels, strength: 2, seed: 0, settings: settings)
        #expect(rows.count <= 18)
        #expect(Self.coversAllPairs(rows, levels: levels))
    }

    @Test("GF(q) orthogonal arrays cover every pair", arguments: [2, 3, 4, 5, 7, 8, 9])
    func orthogonalArrays(q: Int) throws {
        let field = try #require(GaloisField(order: q))
        let rows = CoveringArray.orthogonalArray(field).map { CoveringArray.Row(values: $0, origin: .construction("OA")) }
        #expect(rows.count == q * q)
        #expect(Self.coversAllPairs(rows, levels: Array(repeating: q, count: q + 1)))
    }

    @Test("a strength above the factor count is refused")
    func badStrength() {
        #expect(throws: CoveringArray.Problem.badStrength) {
            try CoveringArray.generate(levels: [2, 2], strength: 3, seed: 0)
        }
    }
}
