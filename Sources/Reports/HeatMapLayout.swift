/// The heat map's geometry: scenario rows × configuration columns, with one cell per job. Pure.
///
/// Columns are the distinct configurations (plus the registry when the run has several), sorted by their axis
/// values in axis-name order, so the header can merge equal leading values into spans (a pivot-table header).
struct HeatMapLayout {
    struct Row {
        var scenarioID: String
        var title: String
        /// Job indices per column (usually zero or one).
        var cells: [[Int]]
        var failing: Bool
    }

    struct HeaderCell {
        var label: String
        var span: Int
    }

    /// Axis names of the header rows (plus `registry` when the run has several).
    var headerAxes: [String]
    /// One row of merged cells per header axis.
    var header: [[HeaderCell]]
    var columnCount: Int
    var rows: [Row]

    static let missing = "–"

    init(_ index: RunIndex) {
        let multipleRegistries = index.registries.count > 1
        headerAxes = index.axisNames + (multipleRegistries ? ["registry"] : [])
        if headerAxes.isEmpty { headerAxes = ["configuration"] }
        // A column is a configuration (with its registry when the run has several): its key is computed once per
        // distinct configuration, not per job.
        func columnKey(_ configuration: Int32, _ registry: Int32) -> [String] {
            if index.axisNames.isEmpty && !multipleRegistries { return ["default"] }
            var values: [String: String] = [:]
            for v in index.configurations[Int(configuration)].axes { values[v.axis] = v.value }
            return index.axisNames.map { values[$0] ?? Self.missing }
                + (multipleRegistries ? [index.registries[Int(registry)]] : [])
        }
        var keyOf: [Int64: [String]] = [:]
        func pair(_ job: RunIndex.Job) -> Int64 {
            Int64(job.configuration) << 32 | Int64(multipleRegistries ? job.registry : 0)
        }
        for job in index.jobs where keyOf[pair(job)] == nil {
            keyOf[pair(job)] = columnKey(job.configuration, job.registry)
        }
        let distinct = Array(Set(keyOf.values))
        // Rank each level's distinct values once (natural order), then sort the columns by their ranks: a run of
        // 100,000 configurations compares integers, not strings.
        let depth = distinct.map(\.count).max() ?? 0
        var ranks: [[String: Int]] = []
        for level in 0..<depth {
            let values = Set(distinct.compactMap { level < $0.count ? $0[level] : nil }).sorted(by: AxisValue.naturalLess)
            ranks.append(Dictionary(uniqueKeysWithValues: values.enumerated().map { ($1, $0) }))
        }
        let ranked = distinct.map { key in (key, key.enumerated().map { ranks[$0.offset][$0.element] ?? 0 }) }
        let columns = ranked.sorted { a, b in
            for (x, y) in zip(a.1, b.1) where x != y { return x < y }
            return a.1.count < b.1.count
        }.map(\.0)
        var columnIndex: [[String]: Int] = [:]
        for (i, c) in columns.enumerated() { columnIndex[c] = i }
        let columnOf = keyOf.mapValues { columnIndex[$0] ?? 0 }
        columnCount = columns.count
        var header: [[HeaderCell]] = []
        for level in headerAxes.indices {
            var cells: [HeaderCell] = []
            for (i, column) in columns.enumerated() {
                let label = level < column.count ? column[level] : ""
                // Merge with the previous column when this and every higher level agree.
                if i > 0, let last = cells.last, last.label == label,
                   columns[i - 1].prefix(level + 1) == column.prefix(level + 1) {
                    cells[cells.count - 1].span += 1
                } else {
                    cells.append(HeaderCell(label: label, span: 1))
                }
            }
            header.append(cells)
        }
        self.header = header
        var rows = index.scenarios.map {
            Row(scenarioID: $0.id, title: $0.title, cells: Array(repeating: [], count: columns.count), failing: false)
        }
        for (j, job) in index.jobs.enumerated() {
            let r = Int(job.scenario)
            rows[r].cells[columnOf[pair(job)] ?? 0].append(j)
            if job.status != .passed && job.status != .notRun { rows[r].failing = true }
        }
        self.rows = rows
    }
}
