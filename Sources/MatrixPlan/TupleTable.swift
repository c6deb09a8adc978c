/// Every t-tuple of a set of factors: state per tuple (0 uncovered and required, 1 covered, 2 impossible).
struct TupleTable {
    let levels: [Int]
    let t: Int
    /// binom[n][r] for n ≤ k, r ≤ t.
    let binom: [[Int]]
    /// Start of each t-subset's block, by colex rank.
    let offsets: [Int]
    let total: Int
    var state: [UInt8]
    var uncoveredPerValue: [[Int]]
    var remaining: Int
    /// binom[n][2] and binom[n][3] as flat arrays, for the t = 3 paths (`gain3`, `sampleTuple3`).
    let choose2: [Int]
    let choose3: [Int]

    init(levels: [Int], t: Int) {
        self.levels = levels
        self.t = t
        let k = levels.count
        binom = (0...k).map { n in (0...t).map { binomial(n, $0) } }
        choose2 = (0...k).map { binomial($0, 2) }
        choose3 = (0...k).map { binomial($0, 3) }
        var total = 0
        var offsets = [Int](repeating: 0, count: binomial(k, t))
        var sizes = [Int](repeating: 0, count: offsets.count)
        let binomCopy = binom
        TupleTable.forEachSubset(k: k, t: t) { subset in
            var rank = 0
            var size = 1
            for (i, f) in subset.enumerated() { rank += binomCopy[f][i + 1]; size *= levels[f] }
            sizes[rank] = size
        }
        for r in 0..<sizes.count {
            offsets[r] = total
            total += sizes[r]
            if total > Int(Int32.max) { break }
        }
        self.offsets = offsets
        self.total = total
        state = []
        uncoveredPerValue = levels.map { [Int](repeating: 0, count: $0) }
        remaining = 0
    }

    /// Calls `body` with every t-subset of 0..<k in lexicographic order.
    static func forEachSubset(k: Int, t: Int, _ body: ([Int]) -> Void) {
        guard t <= k else { return }
        var combo = Array(0..<t)
        while true {
            body(combo)
            var i = t - 1
            while i >= 0 && combo[i] == k - t + i { i -= 1 }
            if i < 0 { return }
            combo[i] += 1
            for j in (i + 1)..<t { combo[j] = combo[j - 1] + 1 }
        }
    }

    @inline(__always)
    func index(_ subset: [Int], _ row: [Int32]) -> Int {
        var rank = 0
        var idx = 0
        var mult = 1
        for (i, f) in subset.enumerated() {
            rank += binom[f][i + 1]
            idx += Int(row[f]) * mult
            mult *= levels[f]
        }
        return offsets[rank] + idx
    }

    /// Marks which tuples some valid row can hold; all when `isCompletable` is nil.
    mutating func markRequired(relevant: Set<Int>, isCompletable: (([Int32]) -> Bool)?) {
        state = [UInt8](repeating: 0, count: total)
        let k = levels.count
        var row = [Int32](repeating: -1, count: k)
        TupleTable.forEachSubset(k: k, t: t) { subset in
            let touchesRelevant = isCompletable != nil && subset.contains(where: relevant.contains)
            var values = [Int32](repeating: 0, count: t)
            while true {
                for (i, f) in subset.enumerated() { row[f] = values[i] }
                if touchesRelevant, let isCompletable, !isCompletable(row) {
                    state[index(subset, row)] = 2
                } else {
                    for (i, f) in subset.enumerated() { uncoveredPerValue[f][Int(values[i])] += 1 }
                    remaining += 1
                }
                var i = 0
                while i < t {
                    values[i] += 1
                    if Int(values[i]) < levels[subset[i]] { break }
                    values[i] = 0
                    i += 1
                }
                if i == t { break }
            }
            for f in subset { row[f] = -1 }
        }
    }

    /// Calls `body` with the index of every t-tuple of a full row.
    func forEachIndex(_ row: [Int32], _ body: (Int) -> Void) {
        TupleTable.forEachSubset(k: levels.count, t: t) { body(index($0, row)) }
    }

    /// Marks a full row's tuples covered.
    mutating func cover(_ row: [Int32]) {
        var newly: [([Int], Int)] = []
        TupleTable.forEachSubset(k: levels.count, t: t) { subset in
            let i = index(subset, row)
            if state[i] == 0 { newly.append((subset, i)) }
        }
        for (subset, i) in newly {
            state[i] = 1
            remaining -= 1
            for f in subset { uncoveredPerValue[f][Int(row[f])] -= 1 }
        }
    }

    /// Covers every row; true when afterwards no required tuple is left uncovered.
    mutating func coverAll(_ rows: [[Int32]]) -> Bool {
        for row in rows where row.count == levels.count { cover(row) }
        return remaining == 0
    }

    /// How many uncovered tuples fixing `factor` (already set in `row`) completes, given the `fixed` factors.
    func gain(row: [Int32], factor f: Int, fixed: [Int]) -> Int {
        t == 3 ? gain3(row: row, factor: f, fixed: fixed) : gainAnyStrength(row: row, factor: f, fixed: fixed)
    }

    /// ``gain(row:factor:fixed:)`` for t = 3, the inner loop of 3-wise plans: each pair of fixed factors with `f`,
    /// its tuple's index computed directly (no subset array, no sort). Equal to ``gainAnyStrength`` (tested).
    func gain3(row: [Int32], factor f: Int, fixed: [Int]) -> Int {
        let vf = Int(row[f]), n = fixed.count
        guard n >= 2 else { return 0 }
        var count = 0
        for x in 0..<(n - 1) {
            let g = fixed[x], vg = Int(row[g])
            for y in (x + 1)..<n {
                let h = fixed[y]
                var (a, va, b, vb, c, vc) = (f, vf, g, vg, h, Int(row[h]))
                if a > b { swap(&a, &b); swap(&va, &vb) }
                if b > c { swap(&b, &c); swap(&vb, &vc) }
                if a > b { swap(&a, &b); swap(&va, &vb) }
                if state[offsets[a + choose2[b] + choose3[c]] + va + (vb + vc * levels[b]) * levels[a]] == 0 { count += 1 }
            }
        }
        return count
    }

    /// ``gain(row:factor:fixed:)`` for any strength.
    func gainAnyStrength(row: [Int32], factor f: Int, fixed: [Int]) -> Int {
        let need = t - 1
        guard fixed.count >= need else { return 0 }
        var count = 0
        if t == 2 {
            let vf = Int(row[f])
            for g in fixed {
                let (a, b) = f < g ? (f, g) : (g, f)
                let rank = a + binom[b][2]
                let idx = offsets[rank] + (a == f ? vf + Int(row[b]) * levels[a] : Int(row[a]) + vf * levels[a])
                if state[idx] == 0 { count += 1 }
            }
            return count
        }
        var chosen = Array(0..<need)
        var subset = [Int](repeating: 0, count: t)
        while true {
            for (j, c) in chosen.enumerated() { subset[j] = fixed[c] }
            subset[need] = f
            // Insertion sort: `fixed` is in the order factors were fixed, ranks need ascending factors.
            for a in 1..<t {
                var b = a
                while b > 0 && subset[b - 1] > subset[b] { subset.swapAt(b - 1, b); b -= 1 }
            }
            if state[index(subset, row)] == 0 { count += 1 }
            var i = need - 1
            while i >= 0 && chosen[i] == fixed.count - need + i { i -= 1 }
            if i < 0 { break }
            chosen[i] += 1
            for m in (i + 1)..<need { chosen[m] = chosen[m - 1] + 1 }
        }
        return count
    }

    /// An uncovered tuple holding the most frequent uncovered (factor, value), chosen at random among them.
    func startTuple(rng: inout SplitMix64) -> [(Int, Int32)]? {
        guard remaining > 0 else { return nil }
        var best = (f: -1, v: -1, count: 0, tie: 0)
        for f in 0..<levels.count {
            for v in 0..<levels[f] where uncoveredPerValue[f][v] > 0 {
                let tie = rng.below(1 << 20)
                if uncoveredPerValue[f][v] > best.count || (uncoveredPerValue[f][v] == best.count && tie > best.tie) {
                    best = (f, v, uncoveredPerValue[f][v], tie)
                }
            }
        }
        guard best.f >= 0 else { return nil }
        return t == 3 ? sampleTuple3(containing: best.f, value: Int32(best.v), rng: &rng)
            : sampleTuple(containing: best.f, value: Int32(best.v), rng: &rng)
    }

    /// ``sampleTuple(containing:value:rng:)`` for t = 3: the same tuples in the same order (so the same random
    /// draws and the same choice), without a subset array per subset. Equal to it under one seed (tested).
    func sampleTuple3(containing p: Int, value: Int32, rng: inout SplitMix64) -> [(Int, Int32)]? {
        let k = levels.count
        var chosen: [(Int, Int32)]?
        var seen = 0
        for a in 0..<k {
            for b in (a + 1)..<k {
                for c in (b + 1)..<k where a == p || b == p || c == p {
                    // The two other factors, ascending; the first one's value varies fastest.
                    let (o0, o1) = a == p ? (b, c) : b == p ? (a, c) : (a, b)
                    let base = offsets[a + choose2[b] + choose3[c]]
                    for v1 in 0..<Int32(levels[o1]) {
                        for v0 in 0..<Int32(levels[o0]) {
                            let va = Int(a == p ? value : v0), vb = Int(b == p ? value : (a == p ? v0 : v1))
                            let vc = Int(c == p ? value : v1)
                            if state[base + va + (vb + vc * levels[b]) * levels[a]] == 0 {
                                seen += 1
                                if rng.below(seen) == 0 { chosen = [(p, value), (o0, v0), (o1, v1)] }
                            }
                        }
                    }
                }
            }
        }
        return chosen
    }

    /// Reservoir-samples one uncovered tuple with factor `p` = `value`, any strength.
    func sampleTuple(containing p: Int, value: Int32, rng: inout SplitMix64) -> [(Int, Int32)]? {
        var chosen: [(Int, Int32)]?
        var seen = 0
        var row = [Int32](repeating: 0, count: levels.count)
        row[p] = value
        TupleTable.forEachSubset(k: levels.count, t: t) { subset in
            guard subset.contains(p) else { return }
            let others = subset.filter { $0 != p }
            var values = [Int32](repeating: 0, count: others.count)
            while true {
                for (i, g) in others.enumerated() { row[g] = values[i] }
                if state[index(subset, row)] == 0 {
                    seen += 1
                    if rng.below(seen) == 0 { chosen = [(p, value)] + zip(others, values).map { ($0, $1) } }
                }
                var i = 0
                while i < others.count {
                    values[i] += 1
                    if Int(values[i]) < levels[others[i]] { break }
                    values[i] = 0
                    i += 1
                }
                if i == others.count { break }
            }
        }
        return chosen
    }
}
