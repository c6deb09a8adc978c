extension CoveringArray {
    /// Tries to delete rows: the tuples only a row covers are moved into other rows by changing cells whose
    /// current tuples are all covered elsewhere ("free" cells). Every change keeps the array covering.
    static func postOptimize(_ input: [Row], table: TupleTable, keepingFirst: Int, rng: inout SplitMix64, passes: Int,
                             relevant: Set<Int>, isCompletable: (([Int32]) -> Bool)?) -> [Row] {
        var deleter = RowDeleter(rows: input, table: table, relevant: relevant, isCompletable: isCompletable)
        var pass = 0
        var deletedInPass = true
        while pass < passes && deletedInPass && deleter.rows.count > keepingFirst + 1 {
            pass += 1
            deletedInPass = false
            // Rows with the fewest tuples only they cover go first.
            var order = Array(keepingFirst..<deleter.rows.count)
            let uniqueCounts = order.map { deleter.uniqueTuples(of: $0).count }
            order = zip(order, uniqueCounts).sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
            for r in order where r < deleter.rows.count {
                if deleter.tryDelete(r, rng: &rng) {
                    deletedInPass = true
                    break
                }
            }
        }
        return deleter.rows
    }
}

/// The rows of a covering array with a count of how many rows cover each tuple, and the cell changes that keep
/// every tuple covered (with an undo log, so a failed attempt to delete a row leaves the array as it was).
private struct RowDeleter {
    var rows: [CoveringArray.Row]
    let table: TupleTable
    let relevant: Set<Int>
    let isCompletable: (([Int32]) -> Bool)?
    /// Rows covering each tuple, by tuple index.
    private var counts: [Int32]
    /// The t-subsets of factors that contain each factor.
    private let subsetsOf: [[[Int]]]
    private var undo: [(row: Int, factor: Int, old: Int32)] = []

    init(rows: [CoveringArray.Row], table: TupleTable, relevant: Set<Int>, isCompletable: (([Int32]) -> Bool)?) {
        self.rows = rows
        self.table = table
        self.relevant = relevant
        self.isCompletable = isCompletable
        var counts = [Int32](repeating: 0, count: table.total)
        for row in rows { table.forEachIndex(row.values) { counts[$0] += 1 } }
        self.counts = counts
        var subsetsOf: [[[Int]]] = Array(repeating: [], count: table.levels.count)
        TupleTable.forEachSubset(k: table.levels.count, t: table.t) { subset in
            for f in subset { subsetsOf[f].append(subset) }
        }
        self.subsetsOf = subsetsOf
    }

    /// The factor subsets whose tuple in row `r` no other row covers.
    func uniqueTuples(of r: Int) -> [[Int]] {
        var out: [[Int]] = []
        TupleTable.forEachSubset(k: table.levels.count, t: table.t) { subset in
            if counts[table.index(subset, rows[r].values)] == 1 { out.append(subset) }
        }
        return out
    }

    /// Moves each tuple only row `r` covers into another row, then deletes `r`; on failure undoes every change
    /// and returns false.
    mutating func tryDelete(_ r: Int, rng: inout SplitMix64) -> Bool {
        undo.removeAll()
        for subset in uniqueTuples(of: r) {
            let target = rows[r].values
            if counts[table.index(subset, target)] >= 2 { continue }
            var candidates = Array(0..<rows.count).filter { $0 != r }
            candidates.shuffle(using: &rng)
            var placed = false
            for s in candidates {
                let mark = undo.count
                var good = true
                for f in subset where !change(s, f, to: target[f]) {
                    good = false
                    break
                }
                if good {
                    placed = true
                    break
                }
                rollback(to: mark)
            }
            if !placed {
                rollback(to: 0)
                return false
            }
        }
        table.forEachIndex(rows[r].values) { counts[$0] -= 1 }
        rows.remove(at: r)
        return true
    }

    private mutating func force(_ r: Int, _ f: Int, to v: Int32) {
        var newRow = rows[r].values
        newRow[f] = v
        for subset in subsetsOf[f] {
            counts[table.index(subset, rows[r].values)] -= 1
            counts[table.index(subset, newRow)] += 1
        }
        rows[r].values = newRow
    }

    /// Changes a cell; returns false (and leaves everything unchanged) when a tuple would become uncovered.
    private mutating func change(_ r: Int, _ f: Int, to v: Int32) -> Bool {
        let old = rows[r].values[f]
        if old == v { return true }
        var newRow = rows[r].values
        newRow[f] = v
        if let isCompletable, relevant.contains(f), !isCompletable(newRow) { return false }
        for subset in subsetsOf[f] where counts[table.index(subset, rows[r].values)] < 2 { return false }
        force(r, f, to: v)
        undo.append((r, f, old))
        return true
    }

    private mutating func rollback(to mark: Int) {
        while undo.count > mark {
            let (r, f, old) = undo.removeLast()
            force(r, f, to: old)
        }
    }
}
