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
        if headerAxes.isEmpty { headerAxes = ["configuration"] }
        scenarios = index.scenarios
        labels = Self.levelLabels(index)
        let (pairKeys, jobPairs, pairCount) = Self.pairs(index, labels: labels)
        let (columnPairs, columnOfPair) = Self.columns(pairKeys, depth: labels.count, count: pairCount)
        self.pairKeys = pairKeys
        self.columnPairs = columnPairs
        columnCount = columnPairs.count
        (rowStarts, cellJobs, cellColumns, failing) = Self.rows(index, columnOfJob: jobPairs.map { columnOfPair[Int($0)] })
    }

    /// Each level's labels in natural order: the axis's values (and the missing mark when a configuration lacks an
    /// axis), then the registries when the run has several; `default` alone for a run without axes. Ranked once, so
    /// a column compares integers.
    private static func levelLabels(_ index: RunIndex) -> [[String]] {
        let table = index.configurations
        let multipleRegistries = index.registries.count > 1
        if index.axisNames.isEmpty && !multipleRegistries { return [["default"]] }
        let axisLevel = Dictionary(uniqueKeysWithValues: index.axisNames.enumerated().map { ($1, $0) })
        var levelValues = [Set<String>](repeating: [], count: index.axisNames.count)
        for value in table.values { levelValues[axisLevel[value.axis] ?? 0].insert(value.value) }
        if (0..<Int32(table.count)).contains(where: { table.valueIDs($0).count < index.axisNames.count }) {
            for level in levelValues.indices { levelValues[level].insert(missing) }
        }
        var labels = levelValues.map { $0.sorted(by: AxisValue.naturalLess) }
        if multipleRegistries { labels.append(index.registries.sorted(by: AxisValue.naturalLess)) }
        return labels
    }

    /// Per (configuration, registry) pair that has a job, its ranks at every level (`labels.count` integers a pair,
    /// pair after pair), and each job's pair. With one registry a pair is a configuration (an array finds it, not a
    /// dictionary).
    private static func pairs(_ index: RunIndex, labels: [[String]]) -> (keys: [Int32], jobPairs: [Int32], count: Int32) {
        let table = index.configurations
        let multipleRegistries = index.registries.count > 1
        let plain = index.axisNames.isEmpty && !multipleRegistries
        let axisLevel = Dictionary(uniqueKeysWithValues: index.axisNames.enumerated().map { ($1, $0) })
        let rankOf = labels.map { Dictionary(uniqueKeysWithValues: $0.enumerated().map { ($1, Int32($0)) }) }
        let valueRank = table.values.map { rankOf[axisLevel[$0.axis] ?? 0][$0.value] ?? 0 }
        let valueLevel = table.values.map { axisLevel[$0.axis] ?? 0 }
        let registryRank = index.registries.map { rankOf.last?[$0] ?? 0 }
        let missingRanks = index.axisNames.indices.map { rankOf[$0][missing] ?? 0 }
        var pairOfConfiguration = [Int32](repeating: -1, count: multipleRegistries ? 0 : table.count)
        var pairOf: [Int64: Int32] = [:]
        var keys: [Int32] = []
        keys.reserveCapacity(table.count * labels.count)
        var count: Int32 = 0
        func pair(_ job: RunIndex.Job) -> Int32 {
            if multipleRegistries {
                let pair = Int64(job.configuration) << 32 | Int64(job.registry)
                if let known = pairOf[pair] { return known }
                pairOf[pair] = count
            } else {
                let known = pairOfConfiguration[Int(job.configuration)]
                if known >= 0 { return known }
                pairOfConfiguration[Int(job.configuration)] = count
            }
            let start = keys.count
            if plain { keys.append(0) } else {
                keys.append(contentsOf: missingRanks)
                if multipleRegistries { keys.append(registryRank[Int(job.registry)]) }
                for value in table.valueIDs(job.configuration) { keys[start + valueLevel[Int(value)]] = valueRank[Int(value)] }
            }
            count += 1
            return count - 1
        }
        let jobPairs = index.jobs.map(pair)
        return (keys, jobPairs, count)
    }

    /// The columns: the pairs sorted by their ranks, equal ones merged. Returns a pair of each column and each
    /// pair's column.
    private static func columns(_ keys: [Int32], depth: Int, count: Int32) -> (columnPairs: [Int32], columnOfPair: [Int32]) {
        func less(_ a: Int32, _ b: Int32) -> Bool {
            let x = Int(a) * depth, y = Int(b) * depth
            for level in 0..<depth where keys[x + level] != keys[y + level] { return keys[x + level] < keys[y + level] }
            return false
        }
        let order = (0..<count).sorted(by: less)
        var columnOfPair = [Int32](repeating: 0, count: order.count)
        var columnPairs: [Int32] = []
        for (i, pair) in order.enumerated() {
            if i == 0 || less(order[i - 1], pair) { columnPairs.append(pair) }
            columnOfPair[Int(pair)] = Int32(columnPairs.count - 1)
        }
        return (columnPairs, columnOfPair)
    }

    /// The rows: job positions grouped by scenario (a counting sort), each row's sorted by column, with their columns;
    /// and which rows hold a job that did not pass.
    private static func rows(_ index: RunIndex, columnOfJob: [Int32])
        -> (starts: [Int], jobs: [Int32], columns: [Int32], failing: [Bool]) {
        var starts = [Int](repeating: 0, count: index.scenarios.count + 1)
        for job in index.jobs { starts[Int(job.scenario) + 1] += 1 }
        for r in index.scenarios.indices { starts[r + 1] += starts[r] }
        var next = starts
        var jobs = [Int32](repeating: 0, count: index.jobs.count)
        var failing = [Bool](repeating: false, count: index.scenarios.count)
        for (position, job) in index.jobs.enumerated() {
            let r = Int(job.scenario)
            jobs[next[r]] = Int32(position)
            next[r] += 1
            if job.status != .passed && job.status != .notRun { failing[r] = true }
        }
        for r in index.scenarios.indices {
            jobs[starts[r]..<starts[r + 1]].sort { a, b in
                let ca = columnOfJob[Int(a)], cb = columnOfJob[Int(b)]
                return ca != cb ? ca < cb : a < b
            }
        }
        return (starts, jobs, jobs.map { columnOfJob[Int($0)] }, failing)
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
