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

    init(_ report: RunReport) {
        let multipleRegistries = report.registries.count > 1
        headerAxes = report.axisNames + (multipleRegistries ? ["registry"] : [])
        if headerAxes.isEmpty { headerAxes = ["configuration"] }
        func columnKey(_ job: JobReport) -> [String] {
            if report.axisNames.isEmpty && !multipleRegistries { return ["default"] }
            var values: [String: String] = [:]
            for v in job.axes { values[v.axis] = v.value }
            return report.axisNames.map { values[$0] ?? Self.missing } + (multipleRegistries ? [job.job.registry] : [])
        }
        let keys = report.jobs.map(columnKey)
        let distinct = Array(Set(keys))
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
        var rows: [Row] = []
        var rowIndex: [String: Int] = [:]
        for (j, job) in report.jobs.enumerated() {
            let id = job.job.scenarioID
            let r: Int
            if let existing = rowIndex[id] { r = existing } else {
                r = rows.count
                rowIndex[id] = r
                rows.append(Row(scenarioID: id, title: job.job.scenarioTitle, cells: Array(repeating: [], count: columns.count),
                                failing: false))
            }
            if let c = columnIndex[keys[j]] { rows[r].cells[c].append(j) }
            if job.status != .passed && job.status != .notRun { rows[r].failing = true }
        }
        self.rows = rows
    }
}
