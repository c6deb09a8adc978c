/// The heat map's geometry: scenario rows × configuration columns, with one cell per job. Pure.
///
/// Columns are the distinct configurations (plus the registry when the run has several), sorted by their axis
/// values in axis-name order, so the header can merge equal leading values into spans (a pivot-table header).
///
/// Compact at any size: a column is its values' ranks (one integer per header level), a row's cells are job
/// positions sorted by column in one shared array, and the header's merged cells are computed as they are written.
/// A million jobs in a million columns of six axes cost about 50 bytes each here while the page is written.
struct HeatMapLayout {
    /// Axis names of the header rows (plus `registry` when the run has several).
    var headerAxes: [String]
    /// Per header level, its labels in natural order (a column holds ranks into these).
    private var labels: [[String]]
    /// Per (configuration, registry) pair with a job, its ranks at each level (`depth` integers a pair).
    private var pairKeys: [Int32]
    /// Per column, a pair of its (their ranks are the column's).
    private var columnPairs: [Int32]
    private var depth: Int { labels.count }
    private(set) var columnCount: Int
    /// Scenario ids and titles, by row.
    let scenarios: [(id: String, title: String)]
    /// Per row, the range of ``cellJobs`` and ``cellColumns`` that holds its cells.
    private var rowStarts: [Int]
    /// Job positions, row after row, each row's sorted by column then plan position.
    private var cellJobs: [Int32]
    /// The column of each entry of ``cellJobs``.
    private var cellColumns: [Int32]
    /// Rows with a job that did not pass.
    private(set) var failing: [Bool]

    static let missing = "–"

    var rowCount: Int { scenarios.count }

    init(_ index: RunIndex) {
        let multipleRegistries = index.registries.count > 1
        headerAxes = index.axisNames + (multipleRegistries ? ["registry"] : [])
        let plain = headerAxes.isEmpty
        if plain { headerAxes = ["configuration"] }
        scenarios = index.scenarios
        // Each level's labels: the axis's values (and the missing mark when a configuration lacks the axis), or the
        // registries. Ranked once; a column compares integers.
        let table = index.configurations
        let axisLevel = Dictionary(uniqueKeysWithValues: index.axisNames.enumerated().map { ($1, $0) })
        var levelValues = [Set<String>](repeating: [], count: index.axisNames.count)
        for value in table.values { levelValues[axisLevel[value.axis] ?? 0].insert(value.value) }
        if (0..<Int32(table.count)).contains(where: { table.valueIDs($0).count < index.axisNames.count }) {
            for level in levelValues.indices { levelValues[level].insert(Self.missing) }
        }
        var labels = levelValues.map { $0.sorted(by: AxisValue.naturalLess) }
        if multipleRegistries { labels.append(index.registries.sorted(by: AxisValue.naturalLess)) }
        if plain { labels = [["default"]] }
        self.labels = labels
        let rankOf = labels.map { Dictionary(uniqueKeysWithValues: $0.enumerated().map { ($1, Int32($0)) }) }
        let valueRank = table.values.map { rankOf[axisLevel[$0.axis] ?? 0][$0.value] ?? 0 }
        let valueLevel = table.values.map { axisLevel[$0.axis] ?? 0 }
        let registryRank = index.registries.map { rankOf.last?[$0] ?? 0 }

        // Keys: a configuration's ranks (with its registry when there are several), per (configuration, registry)
        // pair that has a job. With one registry a pair is a configuration (an array, not a dictionary, finds it).
        var pairOfConfiguration = [Int32](repeating: -1, count: multipleRegistries ? 0 : table.count)
        var pairOf: [Int64: Int32] = [:]
        var pairKeys: [Int32] = []
        pairKeys.reserveCapacity(table.count * labels.count)
        var pairCount: Int32 = 0
        let depth = labels.count
        let missingRanks = index.axisNames.indices.map { rankOf[$0][Self.missing] ?? 0 }
        func key(_ job: RunIndex.Job) -> Int32 {
            if multipleRegistries {
                let pair = Int64(job.configuration) << 32 | Int64(job.registry)
                if let known = pairOf[pair] { return known }
                pairOf[pair] = pairCount
            } else {
                let known = pairOfConfiguration[Int(job.configuration)]
                if known >= 0 { return known }
                pairOfConfiguration[Int(job.configuration)] = pairCount
            }
            let start = pairKeys.count
            if plain { pairKeys.append(0) } else {
                pairKeys.append(contentsOf: missingRanks)
                if multipleRegistries { pairKeys.append(registryRank[Int(job.registry)]) }
                for value in table.valueIDs(job.configuration) {
                    pairKeys[start + valueLevel[Int(value)]] = valueRank[Int(value)]
                }
            }
            pairCount += 1
            return pairCount - 1
        }
        let jobPairs = index.jobs.map(key)
        (pairOf, pairOfConfiguration) = ([:], [])
        // Columns: the pairs sorted by their ranks, equal keys merged.
        func less(_ a: Int32, _ b: Int32) -> Bool {
            let x = Int(a) * depth, y = Int(b) * depth
            for level in 0..<depth where pairKeys[x + level] != pairKeys[y + level] {
                return pairKeys[x + level] < pairKeys[y + level]
            }
            return false
        }
        let order = (0..<pairCount).sorted(by: less)
        var columnOfPair = [Int32](repeating: 0, count: order.count)
        var columnPairs: [Int32] = []
        for (i, pair) in order.enumerated() {
            if i == 0 || less(order[i - 1], pair) { columnPairs.append(pair) }
            columnOfPair[Int(pair)] = Int32(columnPairs.count - 1)
        }
        self.pairKeys = pairKeys
        self.columnPairs = columnPairs
        columnCount = columnPairs.count
        // Rows: job positions grouped by scenario (counting sort), each row's sorted by column.
        var rowStarts = [Int](repeating: 0, count: index.scenarios.count + 1)
        for job in index.jobs { rowStarts[Int(job.scenario) + 1] += 1 }
        for r in index.scenarios.indices { rowStarts[r + 1] += rowStarts[r] }
        var next = rowStarts
        var cellJobs = [Int32](repeating: 0, count: index.jobs.count)
        var failing = [Bool](repeating: false, count: index.scenarios.count)
        for (position, job) in index.jobs.enumerated() {
            let r = Int(job.scenario)
            cellJobs[next[r]] = Int32(position)
            next[r] += 1
            if job.status != .passed && job.status != .notRun { failing[r] = true }
        }
        let columnOfJob = jobPairs.map { columnOfPair[Int($0)] }
        for r in index.scenarios.indices {
            cellJobs[rowStarts[r]..<rowStarts[r + 1]].sort { a, b in
                let ca = columnOfJob[Int(a)], cb = columnOfJob[Int(b)]
                return ca != cb ? ca < cb : a < b
            }
        }
        self.cellColumns = cellJobs.map { columnOfJob[Int($0)] }
        self.cellJobs = cellJobs
        self.rowStarts = rowStarts
        self.failing = failing
    }

    /// The merged cells of header row `level`, left to right: a label and the columns it spans (a column starts a
    /// new cell when its label, or a label above it, differs from the column before). With `units` (the first column
    /// of each group of an aggregated map, ``groupStarts(levels:)``), the spans count groups, not columns.
    func forEachHeaderCell(level: Int, units: [Int]? = nil, _ body: (_ label: String, _ span: Int) -> Void) {
        func ranks(_ column: Int) -> ArraySlice<Int32> {
            let start = Int(columnPairs[column]) * depth
            return pairKeys[start...(start + level)]
        }
        let count = units.map { $0.count - 1 } ?? columnCount
        func column(_ unit: Int) -> Int { units?[unit] ?? unit }
        var label = -1
        var span = 0
        for unit in 0..<count {
            let same = unit > 0 && ranks(column(unit)).elementsEqual(ranks(column(unit - 1)))
            if !same {
                if span > 0 { body(labels[level][label], span) }
                label = Int(ranks(column(unit)).last ?? 0)
                span = 0
            }
            span += 1
        }
        if span > 0 { body(labels[level][label], span) }
    }

    /// The labels of column `column` at the header levels from `level` on (a drill-down's sub-columns).
    func labels(column: Int, from level: Int) -> [String] {
        let start = Int(columnPairs[column]) * depth
        return (level..<depth).map { labels[$0][Int(pairKeys[start + $0])] }
    }

    /// The columns grouped by their labels at the first `levels` header levels (columns are sorted, so a group is a
    /// run of columns): the first column of each group, then ``columnCount``.
    func groupStarts(levels: Int) -> [Int] {
        var starts: [Int] = []
        for column in 0..<columnCount {
            let start = Int(columnPairs[column]) * depth
            if column > 0, levels > 0 {
                let previous = Int(columnPairs[column - 1]) * depth
                if pairKeys[start..<(start + levels)].elementsEqual(pairKeys[previous..<(previous + levels)]) { continue }
            }
            if column == 0 || levels > 0 { starts.append(column) }
        }
        return starts + [columnCount]
    }

    /// The most header levels an aggregated map keeps with at most `limit` cells (rows × groups) and `columnLimit`
    /// groups; at least 0 (one cell per row).
    func keptLevels(limit: Int, columnLimit: Int) -> Int {
        var levels = depth - 1
        while levels > 0 {
            let groups = groupStarts(levels: levels).count - 1
            if rowCount * groups <= limit && groups <= columnLimit { break }
            levels -= 1
        }
        return max(levels, 0)
    }

    /// Row `row`'s cells, column by column (every column, empty ones too): the jobs at each, by plan position.
    func forEachColumn(row: Int, _ body: (_ column: Int, _ jobs: ArraySlice<Int32>) -> Void) {
        var i = rowStarts[row]
        let end = rowStarts[row + 1]
        for column in 0..<columnCount {
            let start = i
            while i < end && Int(cellColumns[i]) == column { i += 1 }
            body(column, cellJobs[start..<i])
        }
    }
}
