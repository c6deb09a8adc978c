@testable import MatrixPlan
import Testing

/// The t = 3 paths of `TupleTable` (the inner loops of 3-wise plans) answer exactly what the paths for any strength
/// answer, on random tables with some tuples covered: the same gains, and the same sampled tuple after the same
/// random draws (so a 3-wise plan is the one the general code builds, row for row).
@Suite("3-wise tuple table: the t = 3 paths equal the general ones")
struct TupleTableStrengthThreeTests {
    /// A 3-wise table over `levels` with about a third of its tuples covered by random rows.
    static func table(levels: [Int], rng: inout SplitMix64) -> TupleTable {
        var table = TupleTable(levels: levels, t: 3)
        table.markRequired(relevant: [], isCompletable: nil)
        for _ in 0..<(levels.reduce(0, +) * 2) {
            table.cover(levels.map { Int32(rng.below($0)) })
        }
        return table
    }

    @Test("gain3 equals gainAnyStrength for every factor and fixed set", arguments: [
        [2, 3, 4, 5], [10, 2, 7, 3, 3, 9, 2, 4, 6, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    ])
    func gains(levels: [Int]) {
        var rng = SplitMix64(seed: UInt64(levels.count))
        let table = Self.table(levels: levels, rng: &rng)
        #expect(table.remaining > 0, "some tuples stay uncovered, so gains are not all 0")
        var nonZero = 0
        for _ in 0..<200 {
            let row = levels.map { Int32(rng.below($0)) }
            var order = Array(0..<levels.count)
            order.shuffle(using: &rng)
            let f = order[0], fixed = Array(order.dropFirst().prefix(rng.below(levels.count)))
            let fast = table.gain3(row: row, factor: f, fixed: fixed)
            #expect(fast == table.gainAnyStrength(row: row, factor: f, fixed: fixed), "factor \(f), fixed \(fixed)")
            if fast > 0 { nonZero += 1 }
        }
        #expect(nonZero > 0)
    }

    @Test("sampleTuple3 draws the same tuple as sampleTuple under the same seed", arguments: [
        [2, 3, 4, 5], [10, 2, 7, 3, 3, 9, 2, 4, 6, 2],
    ])
    func samples(levels: [Int]) {
        var rng = SplitMix64(seed: 99)
        let table = Self.table(levels: levels, rng: &rng)
        for p in 0..<levels.count {
            for v in 0..<levels[p] {
                var a = SplitMix64(seed: UInt64(p * 31 + v)), b = a
                let fast = table.sampleTuple3(containing: p, value: Int32(v), rng: &a)
                let general = table.sampleTuple(containing: p, value: Int32(v), rng: &b)
                #expect(fast?.map { "\($0.0)=\($0.1)" } == general?.map { "\($0.0)=\($0.1)" }, "factor \(p) = \(v)")
                #expect(a.next() == b.next(), "the same number of draws")
            }
        }
    }
}
