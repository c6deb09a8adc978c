/// The heat map's geometry: scenario rows × configuration columns, with one cell per job. Pure.
///
/// Columns are the distinct configurations (plus the registry when the run has several), sorted by their axis
/// values in axis-name order, so the header can merge equal leading values into spans (a pivot-table header).
///
/// Compact at any size: a column is its values' ranks (one integer per header level), a row's cells are job
/// positions sorted by column in one shared array, and the header's merged cells are computed as they are written.
/// A million jobs in a million columns cost about 20 bytes each here.
struct HeatMapLayout {
    /// Axis names of the header rows (plus `registry` when the run has several).
    var headerAxes: [String]
    /// Per header level, its labels in natural order (a column holds ranks into these).
    private var labels: [[String]]
    /// `columnCount × depth` ranks, column after column.
    private var columnRanks: [Int32]
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
            var ranks = plain ? [0] : missingRanks + (multipleRegistries ? [registryRank[Int(job.registry)]] : [])
            if !plain {
                for value in table.valueIDs(job.configuration) { ranks[valueLevel[Int(value)]] = valueRank[Int(value)] }
            }
            pairKeys.append(contentsOf: ranks)
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
        var columnRanks: [Int32] = []
        columnRanks.reserveCapacity(order.count * depth)
        var columns = 0
        for (i, pair) in order.enumerated() {
            if i == 0 || less(order[i - 1], pair) {
                columns += 1
                let start = Int(pair) * depth
                columnRanks.append(contentsOf: pairKeys[start..<(start + depth)])
            }
            columnOfPair[Int(pair)] = Int32(columns - 1)
        }
        self.columnRanks = columnRanks
        columnCount = columns
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
    /// new cell when its label, or a label above it, differs from the column before).
    func forEachHeaderCell(level: Int, _ body: (_ label: String, _ span: Int) -> Void) {
        var label = -1
        var span = 0
        for column in 0..<columnCount {
            let ranks = columnRanks[(column * depth)..<(column * depth + level + 1)]
            let same = column > 0 && ranks.elementsEqual(columnRanks[((column - 1) * depth)..<((column - 1) * depth + level + 1)])
            if !same {
                if span > 0 { body(labels[level][label], span) }
                label = Int(ranks.last ?? 0)
                span = 0
            }
            span += 1
        }
        if span > 0 { body(labels[level][label], span) }
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
