/// Which configurations of a list hold each `axis=value` pair, as bitsets: whether some configuration holds a
/// combination, and how many do, from its pairs' bitsets — without hashing every sub-combination of every
/// configuration (a 3-wise plan's ranking hashed 793 per passing job, round after round).
struct PairIndex {
    private var holders: [Combination.Pair: [UInt64]] = [:]
    private let words: Int

    init(_ configurations: [[String: String]]) {
        let words = (configurations.count + 63) / 64
        for (i, configuration) in configurations.enumerated() {
            for (axis, value) in configuration {
                holders[Combination.Pair(axis: axis, value: value), default: [UInt64](repeating: 0, count: words)][i / 64]
                    |= 1 << UInt64(i % 64)
            }
        }
        self.words = words
    }

    /// How many configurations hold every pair of `combination` (with `stopAt`, counting stops there).
    func count(_ combination: Combination, stopAt limit: Int = .max) -> Int {
        var sets: [[UInt64]] = []
        sets.reserveCapacity(combination.count)
        for pair in combination.pairs {
            guard let s = holders[pair] else { return 0 }
            sets.append(s)
        }
        var total = 0
        for w in 0..<words {
            var word = UInt64.max
            for s in sets { word &= s[w] }
            total += word.nonzeroBitCount
            if total >= limit { return total }
        }
        return total
    }

    /// Whether some configuration holds every pair of `combination`.
    func holdsAny(_ combination: Combination) -> Bool { count(combination, stopAt: 1) > 0 }
}
