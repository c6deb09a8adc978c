import Foundation

/// The heat map's geometry: scenario rows × configuration columns, with one cell per job — or, past the settings'
/// limits, one cell per group of columns (``HeatMapGroups``).
///
/// Columns are the distinct configurations (plus the registry when the run has several), sorted by their axis
/// values in axis-name order, so the header can merge equal leading values into spans (a pivot-table header). A
/// column is its values' ranks, one integer per header level.
///
/// Memory is bounded by the limits, not by the run: a map of one cell per job is built only when the run has at most
/// `cells` jobs (the page draws each of them anyway), and an aggregated one holds its groups and streams the jobs
/// through an ``ExternalSort`` into its drill-down files.
struct HeatMapLayout {
    /// Axis names of the header rows (plus `registry` when the run has several).
    let headerAxes: [String]
    /// Scenario ids and titles, by row.
    let scenarios: [(id: String, title: String)]
    /// Rows with a job that did not pass.
    private(set) var failing: [Bool]
    /// Distinct columns of the run.
    private(set) var columnCount = 0
    /// The aggregated map's groups and drill-down files; nil when every job has its cell.
    private(set) var groups: HeatMapGroups?
    let ranks: Ranks
    /// The units across the map — its columns, or its groups when aggregated — each its ranks at the first
    /// ``keyWidth`` header levels, unit after unit, in order.
    private var unitKeys: [Int32] = []
    private var keyWidth: Int
    /// Per row, the range of ``cells`` that holds its cells (a map of one cell per job).
    private var rowStarts: [Int] = []
    private var cells: [Cell] = []

    static let missing = "–"

    /// A job's cell on a map of one cell per job: 24 bytes (its id packed; see ``id(_:)``).
    struct Cell {
        var unit: Int32
        var row: Int32
        var position: Int32
        var status: CellStatus
        var packedID: UInt64
    }
    /// The ids that are not the planner's 16 hex digits, by plan position.
    private var otherIDs: [Int32: String] = [:]

    /// Units across the map (columns, or groups when aggregated).
    private(set) var unitCount = 0

    var rowCount: Int { scenarios.count }

    /// The layout of `index`'s jobs: one cell per job while the run has at most `limits.cells` jobs and cells
    /// (empty places included) and `limits.columns` columns, else aggregated, its drill-down files written into
    /// `folder/data/`. Without limits, always one cell per job.
    /// - Throws: ``ReportError`` `.output`.
    init(_ index: RunIndex, limits: (cells: Int, columns: Int)? = nil, folder: URL? = nil) throws {
        ranks = Ranks(index)
        headerAxes = ranks.headerAxes
        scenarios = index.scenarios
        keyWidth = ranks.depth
        failing = index.troubledScenarios
        let limits = limits ?? (Int.max, Int.max)
        if index.jobCount <= limits.cells, try oneCellPerJob(index, limits: limits) { return }
        let groups = try HeatMapGroups(index, ranks: ranks, rows: rowCount, limit: limits.cells,
                                       columnLimit: limits.columns, folder: folder ?? FileManager.default.temporaryDirectory)
        unitKeys = groups.keys
        keyWidth = groups.levels
        unitCount = groups.groupCount
        columnCount = groups.columnCount
        self.groups = groups
    }

    /// Builds the map of one cell per job; false (nothing kept) when it has more cells or columns than `limits`.
    private mutating func oneCellPerJob(_ index: RunIndex, limits: (cells: Int, columns: Int)) throws -> Bool {
        var columns = InternedSlices()
        var ids: [Int32] = [], key: [Int32] = []
        var fits = true
        try index.forEachJob { position, job, reader in
            guard fits else { return }
            try reader.values(job, into: &ids)
            ranks.key(job, values: ids, into: &key)
            let column = columns.intern(key)
            if columns.count > limits.columns || rowCount * columns.count > limits.cells {
                fits = false
                return
            }
            if job.packedID == nil { otherIDs[Int32(position)] = try reader.id(job) }
            cells.append(Cell(unit: column, row: job.scenario, position: Int32(position), status: job.status,
                              packedID: job.packedID ?? 0))
        }
        guard fits else {
            (cells, otherIDs) = ([], [:])
            return false
        }
        // Columns in rank order.
        let order = (0..<Int32(columns.count)).sorted { columns[$0].lexicographicallyPrecedes(columns[$1]) }
        var columnOf = [Int32](repeating: 0, count: order.count)
        for (rank, column) in order.enumerated() {
            columnOf[Int(column)] = Int32(rank)
            unitKeys.append(contentsOf: columns[column])
        }
        columnCount = order.count
        unitCount = order.count
        // Cells row by row, each row's by column then plan position (sorted in place: the cells are held once).
        rowStarts = [Int](repeating: 0, count: rowCount + 1)
        for i in cells.indices {
            cells[i].unit = columnOf[Int(cells[i].unit)]
            rowStarts[Int(cells[i].row) + 1] += 1
        }
        for r in 0..<rowCount { rowStarts[r + 1] += rowStarts[r] }
        cells.sort { a, b in
            a.row != b.row ? a.row < b.row : a.unit != b.unit ? a.unit < b.unit : a.position < b.position
        }
        return true
    }

    /// A cell's job id.
    func id(_ cell: Cell) -> String {
        if !otherIDs.isEmpty, let other = otherIDs[cell.position] { return other }
        return JobRecords.format(cell.packedID)
    }

    /// The merged cells of header row `level`, left to right: a label and the units it spans (a unit starts a new
    /// cell when its label, or a label above it, differs from the unit before).
    func forEachHeaderCell(level: Int, _ body: (_ label: String, _ span: Int) -> Void) {
        let width = keyWidth
        func ranks(_ unit: Int) -> ArraySlice<Int32> { unitKeys[(unit * width)...(unit * width + level)] }
        var label = -1
        var span = 0
        for unit in 0..<unitCount {
            let same = unit > 0 && ranks(unit).elementsEqual(ranks(unit - 1))
            if !same {
                if span > 0 { body(self.ranks.labels[level][label], span) }
                label = Int(ranks(unit).last ?? 0)
                span = 0
            }
            span += 1
        }
        if span > 0 { body(self.ranks.labels[level][label], span) }
    }

    /// Row `row`'s cells on a map of one cell per job, column by column (every column, empty ones too): the jobs at
    /// each, by plan position.
    func forEachColumn(row: Int, _ body: (_ column: Int, _ cells: ArraySlice<Cell>) -> Void) {
        var i = rowStarts[row]
        let end = rowStarts[row + 1]
        for column in 0..<columnCount {
            let start = i
            while i < end && Int(cells[i].unit) == column { i += 1 }
            body(column, cells[start..<i])
        }
    }
}

extension HeatMapLayout {
    /// Each header level's labels in natural order — the axis's values (and the missing mark when a configuration
    /// lacks an axis), then the registries when the run has several; `default` alone for a run without axes — and
    /// the rank of every axis value at its level, so a job's column is a few integers.
    struct Ranks {
        let headerAxes: [String]
        let labels: [[String]]
        private let valueLevel: [Int]
        private let valueRank: [Int32]
        private let registryRank: [Int32]
        private let missingRanks: [Int32]
        private let plain: Bool

        var depth: Int { labels.count }

        init(_ index: RunIndex) {
            let multipleRegistries = index.registries.count > 1
            var axes = index.axisNames + (multipleRegistries ? ["registry"] : [])
            if axes.isEmpty { axes = ["configuration"] }
            headerAxes = axes
            plain = index.axisNames.isEmpty && !multipleRegistries
            let axisLevel = Dictionary(uniqueKeysWithValues: index.axisNames.enumerated().map { ($1, $0) })
            var levelValues = [Set<String>](repeating: [], count: index.axisNames.count)
            for value in index.values { levelValues[axisLevel[value.axis] ?? 0].insert(value.value) }
            if index.anyAxisMissing { for level in levelValues.indices { levelValues[level].insert(HeatMapLayout.missing) } }
            var labels = levelValues.map { $0.sorted(by: AxisValue.naturalLess) }
            if multipleRegistries { labels.append(index.registries.sorted(by: AxisValue.naturalLess)) }
            if plain { labels = [["default"]] }
            self.labels = labels
            let rankOf = labels.map { Dictionary(uniqueKeysWithValues: $0.enumerated().map { ($1, Int32($0)) }) }
            valueLevel = index.values.map { axisLevel[$0.axis] ?? 0 }
            valueRank = index.values.map { rankOf[axisLevel[$0.axis] ?? 0][$0.value] ?? 0 }
            registryRank = multipleRegistries ? index.registries.map { rankOf[rankOf.count - 1][$0] ?? 0 } : []
            missingRanks = index.axisNames.indices.map { rankOf[$0][HeatMapLayout.missing] ?? 0 }
        }

        /// The column of a job with value ids `values`: its rank at every level, written into `key`.
        func key(_ job: RunIndex.Job, values: [Int32], into key: inout [Int32]) {
            key.removeAll(keepingCapacity: true)
            if plain {
                key.append(0)
                return
            }
            key.append(contentsOf: missingRanks)
            for value in values { key[valueLevel[Int(value)]] = valueRank[Int(value)] }
            if !registryRank.isEmpty { key.append(registryRank[Int(job.registry)]) }
        }
    }
}
