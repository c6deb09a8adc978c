/// Builds t-wise covering arrays: every t-tuple of values that some valid row can hold appears in a row.
///
/// Greedy, AETG/density style: each new row is the best of several seeded candidates; each candidate starts
/// from an uncovered tuple of the most frequent uncovered (factor, value) and fixes the other factors in a
/// random order, each to the value covering the most uncovered tuples. Redundant rows are then removed, and
/// the whole run is repeated with derived seeds, keeping the smallest array. With no constraints and t = 2,
/// algebraic constructions compete too: Kleitman–Spencer/Katona for binary factors, orthogonal arrays
/// OA(q², q+1, q) over GF(q) (q a prime or 4, 8, 9, 16) and their products (Stevens–Moura–Mendelsohn).
public enum CoveringArray {
    /// Where a row of the array comes from.
    public enum RowOrigin: Sendable, Hashable, CustomStringConvertible {
        /// The n-th (1-based) seed row of the matrix, completed when partial.
        case seedRow(Int)
        /// A greedy row that covered this many tuples no earlier row covered.
        case greedy(newTuples: Int)
        /// A row of an algebraic construction.
        case construction(String)

        public var description: String {
            switch self {
            case .seedRow(let n): "seed row #\(n)"
            case .greedy(let n): "greedy row covering \(n) new tuple\(n == 1 ? "" : "s")"
            case .construction(let name): "row of the \(name) construction"
            }
        }
    }

    public struct Row: Sendable, Hashable {
        public var values: [Int32]
        public var origin: RowOrigin
    }

    /// Tunables, with their defaults.
    public struct Settings: Sendable {
        /// Candidate rows per step.
        public var candidates: Int = 40
        /// Upper bound of whole greedy runs with derived seeds (the smallest array wins).
        public var maximumRestarts: Int = 12
        /// Work budget (tuple checks) that bounds the number of restarts.
        public var workBudget: Double = 4e8
        /// Refuse more tuples than this (memory guard).
        public var maximumTuples: Int = 60_000_000
        /// Refuse a reduction whose `estimatedWork` exceeds this (time guard, MX026). Measured (release build,
        /// `flowmatrix bench reduction-limit`, docs/MATRIX.md): 7–10·10^7 value checks per CPU-second, so a
        /// reduction at the limit takes about 6 CPU-seconds (under a minute of wall time even when the shared
        /// 2-core machine runs five builds).
        public var maximumWork: Double = 5e8
        /// Row-deletion attempts of the post-optimization (each pass deletes at most one row).
        public var optimizationPasses: Int = 64

        public init() {}
    }

    /// Why an array could not be built.
    public enum Problem: Error, Sendable, Hashable {
        case tooManyTuples(Int)
        case badStrength
        /// `estimatedWork` is above `Settings.maximumWork`.
        case tooMuchWork(Double)
    }

    /// The work one greedy run implies, in value checks: `candidates` candidate rows for each of at least
    /// `∏ t largest levels` rows, each weighing every value of every factor (`Σ levels`) against the tuples it
    /// forms with the factors already fixed (`C(k−1, t−1)`). Computed in floating point, so it never overflows.
    public static func estimatedWork(levels: [Int], strength t: Int, candidates: Int = Settings().candidates) -> Double {
        let k = levels.count
        guard t >= 1, t <= k else { return 0 }
        let rows = levels.sorted(by: >).prefix(t).reduce(1.0) { $0 * Double($1) }
        let values = levels.reduce(0.0) { $0 + Double($1) }
        var subsets = 1.0
        for i in 0..<(t - 1) { subsets = subsets * Double(k - 1 - i) / Double(i + 1) }
        return Double(candidates) * rows * values * subsets
    }

    /// Builds a covering array.
    /// - Parameters:
    ///   - levels: values per factor (each at least 1).
    ///   - strength: t, 2…levels.count.
    ///   - seed: the same seed (and inputs) gives the same array.
    ///   - seedRows: rows that must come first (`-1` = any value).
    ///   - relevant: the factors `isCompletable` looks at (others never affect validity).
    ///   - isCompletable: nil when every row is valid; else whether a partial row (`-1` unassigned) can be
    ///     completed to a valid row.
    public static func generate(
        levels: [Int], strength t: Int, seed: UInt64, seedRows: [[Int32]] = [], relevant: Set<Int> = [],
        settings: Settings = Settings(), isCompletable: (([Int32]) -> Bool)? = nil
    ) throws(Problem) -> [Row] {
        let k = levels.count
        guard t >= 2, t <= k, levels.allSatisfy({ $0 >= 1 }) else { throw .badStrength }
        let work = estimatedWork(levels: levels, strength: t, candidates: settings.candidates)
        guard work <= settings.maximumWork else { throw .tooMuchWork(work) }
        let smallest = levels.sorted().prefix(t).reduce(1) { $0 * $1 }
        let estimate = Double(binomial(k, t)) * Double(smallest)
        guard estimate <= Double(settings.maximumTuples) else { throw .tooManyTuples(Int(min(estimate, 1e15))) }
        var table = TupleTable(levels: levels, t: t)
        guard table.total <= settings.maximumTuples else { throw .tooManyTuples(table.total) }
        table.markRequired(relevant: relevant, isCompletable: isCompletable)

        var best: [Row]?
        if isCompletable == nil && seedRows.isEmpty && t == 2 {
            for (name, rows) in constructions(levels: levels) {
                var check = table
                guard check.coverAll(rows) else { continue }
                if best == nil || rows.count < (best?.count ?? .max) {
                    best = rows.map { Row(values: $0, origin: .construction(name)) }
                }
            }
        }
        // No array is smaller than the product of the t largest levels: stop once a run reaches it.
        var lowerBound = levels.sorted(by: >).prefix(t).reduce(1, *)
        if t == 2 && levels.allSatisfy({ $0 <= 2 }) && isCompletable == nil && seedRows.isEmpty {
            lowerBound = kleitmanSpencer(k).count // optimal for binary pairwise (Kleitman–Spencer, Katona)
        }
        var runs = settings.maximumRestarts
        var run = 0
        while run < runs && (best?.count ?? .max) > lowerBound {
            var rng = SplitMix64(seed: seed &+ UInt64(run) &* 0x2545_F491_4F6C_DD1D)
            var work = table
            let rows = greedy(&work, seedRows: seedRows, candidates: settings.candidates, rng: &rng,
                              relevant: relevant, isCompletable: isCompletable)
            let pruned = removeRedundant(rows, table: table, keepingFirst: seedRows.count)
            if best == nil || pruned.count < (best?.count ?? .max) { best = pruned }
            if run == 0 {
                let perRun = Double(max(rows.count, 1)) * Double(settings.candidates) * Double(table.total)
                runs = max(1, min(settings.maximumRestarts, Int(settings.workBudget / max(perRun, 1))))
            }
            run += 1
        }
        guard var result = best else { return [] }
        if result.count <= lowerBound { return result }
        var rng = SplitMix64(seed: seed ^ 0x5DEE_CE66_D1CE_B00C)
        result = postOptimize(result, table: table, keepingFirst: seedRows.count, rng: &rng, passes: settings.optimizationPasses,
                              relevant: relevant, isCompletable: isCompletable)
        return result
    }

    // MARK: - Greedy

    static func greedy(_ table: inout TupleTable, seedRows: [[Int32]], candidates: Int, rng: inout SplitMix64,
                       relevant: Set<Int>, isCompletable: (([Int32]) -> Bool)?) -> [Row] {
        var rows: [Row] = []
        for (n, seedRow) in seedRows.enumerated() {
            let row = complete(seedRow, table: table, rng: &rng, relevant: relevant, isCompletable: isCompletable, start: false)
            table.cover(row.values)
            rows.append(Row(values: row.values, origin: .seedRow(n + 1)))
        }
        let k = table.levels.count
        while table.remaining > 0 {
            var bestRow: [Int32] = []
            var bestGain = -1
            for _ in 0..<candidates {
                let c = complete([Int32](repeating: -1, count: k), table: table, rng: &rng, relevant: relevant,
                                 isCompletable: isCompletable, start: true)
                if c.gain > bestGain { bestGain = c.gain; bestRow = c.values }
            }
            guard bestGain > 0 else { break }
            table.cover(bestRow)
            rows.append(Row(values: bestRow, origin: .greedy(newTuples: bestGain)))
        }
        return rows
    }

    /// Completes a partial row greedily; `start` first fixes an uncovered tuple of the most frequent
    /// uncovered (factor, value).
    static func complete(_ partial: [Int32], table: TupleTable, rng: inout SplitMix64, relevant: Set<Int>,
                         isCompletable: (([Int32]) -> Bool)?, start: Bool) -> (values: [Int32], gain: Int) {
        let k = table.levels.count
        var row = partial
        var fixed: [Int] = []
        var gain = 0
        func fix(_ f: Int, _ v: Int32) {
            row[f] = v
            gain += table.gain(row: row, factor: f, fixed: fixed)
            fixed.append(f)
        }
        for f in 0..<k where row[f] >= 0 {
            let v = row[f]
            row[f] = -1
            fix(f, v)
        }
        if start, let tuple = table.startTuple(rng: &rng) {
            for (f, v) in tuple where row[f] < 0 { fix(f, v) }
        }
        var order = (0..<k).filter { row[$0] < 0 }
        order.shuffle(using: &rng)
        for f in order {
            var bestValue: Int32 = -1
            var bestScore = (-1, -1, 0)
            for v in 0..<table.levels[f] {
                row[f] = Int32(v)
                if let isCompletable, relevant.contains(f), !isCompletable(row) { continue }
                let score = (table.gain(row: row, factor: f, fixed: fixed), table.uncoveredPerValue[f][v], rng.below(1 << 20))
                if score > bestScore { bestScore = score; bestValue = Int32(v) }
            }
            row[f] = -1
            // A completable partial row always has a value that keeps it completable; fall back to 0 defensively.
            fix(f, max(bestValue, 0))
        }
        return (row, gain)
    }

    /// Drops rows (last first) whose every tuple another row also covers; the first `keepingFirst` stay.
    static func removeRedundant(_ rows: [Row], table: TupleTable, keepingFirst: Int) -> [Row] {
        var counts = [UInt16](repeating: 0, count: table.total)
        for row in rows { table.forEachIndex(row.values) { counts[$0] &+= 1 } }
        var keep = [Bool](repeating: true, count: rows.count)
        for i in stride(from: rows.count - 1, through: keepingFirst, by: -1) {
            var redundant = true
            table.forEachIndex(rows[i].values) { if counts[$0] < 2 { redundant = false } }
            if redundant {
                keep[i] = false
                table.forEachIndex(rows[i].values) { counts[$0] -= 1 }
            }
        }
        return rows.indices.filter { keep[$0] }.map { rows[$0] }
    }

    // MARK: - Constructions

    /// Algebraic strength-2 arrays for `levels`, each with a name (values already folded into range).
    static func constructions(levels: [Int]) -> [(String, [[Int32]])] {
        let k = levels.count
        let maxLevel = levels.max() ?? 1
        var out: [(String, [[Int32]])] = []
        if maxLevel <= 2 {
            out.append(("Kleitman–Spencer binary", kleitmanSpencer(k)))
        }
        for q in [2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23] where q >= maxLevel {
            guard let field = GaloisField(order: q) else { continue }
            var columns = q + 1
            var copies = 1
            while columns < k { columns *= q + 1; copies += 1 }
            if copies > 4 { continue }
            var rows = orthogonalArray(field)
            for _ in 1..<copies { rows = product(rows, orthogonalArray(field)) }
            let folded = rows.map { row in (0..<k).map { Int32(Int(row[$0]) % levels[$0]) } }
            let name = copies == 1 ? "orthogonal array OA(\(q * q); 2, \(q + 1), \(q))"
                : "product of \(copies) orthogonal arrays OA(\(q * q); 2, \(q + 1), \(q))"
            out.append((name, dedupe(folded)))
            break
        }
        return out
    }

    static func dedupe(_ rows: [[Int32]]) -> [[Int32]] {
        var seen = Set<[Int32]>()
        return rows.filter { seen.insert($0).inserted }
    }

    /// Binary pairwise array with N rows for k columns, N minimal with C(N-1, ⌈N/2⌉) ≥ k: the columns are
    /// distinct N-bit vectors with a leading 0 and ⌈N/2⌉ ones among the other N-1 bits.
    static func kleitmanSpencer(_ k: Int) -> [[Int32]] {
        var n = 2
        while binomial(n - 1, (n + 1) / 2) < k { n += 1 }
        let weight = (n + 1) / 2
        var columns: [[Int32]] = []
        var combo = Array(0..<weight)
        while columns.count < k {
            var column = [Int32](repeating: 0, count: n)
            for i in combo { column[i + 1] = 1 }
            columns.append(column)
            // Next combination of `weight` out of n-1.
            var i = weight - 1
            while i >= 0 && combo[i] == n - 1 - weight + i { i -= 1 }
            if i < 0 { break }
            combo[i] += 1
            for j in (i + 1)..<weight { combo[j] = combo[j - 1] + 1 }
        }
        return (0..<n).map { r in columns.map { $0[r] } }
    }

    /// OA(q²; 2, q+1, q): rows (a, b); column 0 is a, column j+1 is b + e_j·a.
    static func orthogonalArray(_ f: GaloisField) -> [[Int32]] {
        let q = f.order
        var rows: [[Int32]] = []
        for a in 0..<q {
            for b in 0..<q {
                var row = [Int32(a)]
                for j in 0..<q { row.append(Int32(f.add(b, f.mul(j, a)))) }
                rows.append(row)
            }
        }
        return rows
    }

    /// The product of two strength-2 arrays: columns (i, j); A's rows give column i's value, then B's rows
    /// give column j's value. N = N_A + N_B, k = k_A · k_B.
    static func product(_ a: [[Int32]], _ b: [[Int32]]) -> [[Int32]] {
        guard let ka = a.first?.count, let kb = b.first?.count else { return [] }
        var rows: [[Int32]] = []
        for r in a { rows.append((0..<(ka * kb)).map { r[$0 / kb] }) }
        for r in b { rows.append((0..<(ka * kb)).map { r[$0 % kb] }) }
        return rows
    }
}

func binomial(_ n: Int, _ r: Int) -> Int {
    if r < 0 || r > n { return 0 }
    var result = 1
    for i in 0..<min(r, n - r) {
        result = result * (n - i) / (i + 1)
        if result > 1 << 40 { return 1 << 40 }
    }
    return result
}
