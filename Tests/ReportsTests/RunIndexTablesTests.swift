import FlowVocabulary
import Foundation
@testable import Journal
import MatrixPlan
@testable import Reports
import Testing

/// The compact tables behind ``RunIndex`` (interned configurations, packed job ids) and the heat map's layout
/// built from them, checked against plain reference computations.
@Suite("Run index tables")
struct RunIndexTablesTests {
    @Test("interned slices: equal sequences share one id, ids are dense, every slice reads back, across growth")
    func internedSlices() {
        var table = InternedSlices()
        var reference: [[Int32]: Int32] = [:]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 5)
            let sequence = (0..<length).map { _ in Int32(generator.next() % 6) }
            let id = table.intern(sequence)
            if let known = reference[sequence] { #expect(id == known) } else {
                #expect(Int(id) == reference.count)
                reference[sequence] = id
            }
        }
        #expect(table.count == reference.count)
        for (sequence, id) in reference { #expect(Array(table[id]) == sequence) }
    }

    @Test("job ids: the planner's 16 hex digits (leading zeros too) are packed; any other id is kept as it is")
    func jobIDs() {
        let ids = ["0991f75b5e67ff95", "0000000000000000", "ffffffffffffffff", "ABCDEF0123456789", "short", "",
                   "0991f75b5e67ff9g", "job-with-ünïcode", "00000000000000001"]
        var table = JobIDTable()
        for id in ids { table.append(id) }
        #expect(table.count == ids.count)
        for (position, id) in ids.enumerated() {
            #expect(table[position] == id)
            #expect(table.matches(position, id))
            #expect(!table.matches(position, id + "x"))
        }
        #expect(!table.matches(ids.count, ids[0]))
        #expect(!table.matches(-1, ids[0]))
    }

    @Test("configurations: one per set of axis values; an unusual text is kept; more than the cache holds reads back")
    func configurations() {
        var table = ConfigurationTable()
        let a = table.id(text: "locale=ar,size=10", json: "{\"locale\":\"ar\",\"size\":10}")
        let b = table.id(text: "locale=ar,size=10", json: "{\"size\":\"10\",  \"locale\":\"ar\"}")
        #expect(a == b)
        #expect(table.text(a) == "locale=ar,size=10")
        #expect(table.axes(a) == [AxisValue(axis: "locale", value: "ar"), AxisValue(axis: "size", value: "10")])
        // A JSON that does not parse: the values come from the text, which is kept as written.
        let odd = table.id(text: "zeta=1,alpha=2", json: "not json")
        #expect(table.text(odd) == "zeta=1,alpha=2")
        #expect(table.axes(odd) == [AxisValue(axis: "alpha", value: "2"), AxisValue(axis: "zeta", value: "1")])
        let empty = table.id(text: "", json: "{}")
        #expect(table.text(empty) == "" && table.axes(empty).isEmpty)
        let count = ConfigurationTable.recentLimit * 2 + 17
        var ids: [Int32] = []
        for i in 0..<count { ids.append(table.id(text: "n=\(i)", json: "{\"n\":\"\(i)\"}")) }
        for i in stride(from: 0, to: count, by: 97) {
            #expect(table.id(text: "n=\(i)", json: "{\"n\":\"\(i)\"}") == ids[i])
            #expect(table.text(ids[i]) == "n=\(i)")
        }
        #expect(Set(ids).count == count)
    }

    @Test("past the texts kept as they are, a configuration's text is rebuilt from its values; an unusual one is kept")
    func rebuiltTexts() {
        var table = ConfigurationTable()
        for i in 0..<ConfigurationTable.storedTexts { _ = table.id(text: "n=\(i)", json: "{\"n\":\"\(i)\"}") }
        let plain = table.id(text: "a=1,b=2", json: "{\"b\":\"2\",\"a\":\"1\"}")
        let odd = table.id(text: "b=2, a=1", json: "not json at all")
        #expect(Int(plain) == ConfigurationTable.storedTexts)
        #expect(table.text(plain) == "a=1,b=2")
        #expect(table.text(odd) == "b=2, a=1")
        #expect(table.text(0) == "n=0")
    }

    @Test("the heat map layout matches a reference: missing axes, several registries, repeated jobs in a cell")
    func heatMapLayout() {
        let configurations: [(String, String)] = [
            ("locale=en,size=2", #"{"locale":"en","size":"2"}"#), ("locale=en,size=10", #"{"locale":"en","size":"10"}"#),
            ("locale=ar,size=2", #"{"locale":"ar","size":"2"}"#), ("locale=ar", #"{"locale":"ar"}"#),
            ("size=1", #"{"size":"1"}"#), ("direction=rtl,locale=ar", #"{"direction":"rtl","locale":"ar"}"#),
        ]
        var rows: [JobRow] = []
        var generator = SplitMix64(seed: 11)
        for n in 0..<400 {
            let (text, json) = configurations[Int(generator.next() % UInt64(configurations.count))]
            let scenario = "s\(generator.next() % 7)"
            let registry = ["web", "catalog"][Int(generator.next() % 2)]
            let outcome: JobOutcome = generator.next() % 5 == 0 ? .failed : .passed
            let job = PlannedJob(jobID: String(format: "%016llx", n), scenarioID: scenario, scenarioTitle: "title \(scenario)",
                                 configuration: text, configurationJSON: json, registry: registry)
            rows.append(JobRow(job: job, ordinal: n, state: .done,
                               result: JobResult(outcome: outcome, attempts: 1, duration: 0.5, finishedAt: Date())))
        }
        let info = RunInfo(runID: "r", matrixName: "m", matrixPath: "m.json", seed: 1, startedAt: Date())
        let index = RunIndex(run: RunSummary(info: info, status: .completed, finishedAt: Date(), jobCount: rows.count, outcomes: [:]),
                             rows: rows)
        let layout = HeatMapLayout(index)
        let reference = ReferenceLayout(rows)
        #expect(layout.headerAxes == reference.headerAxes)
        #expect(layout.columnCount == reference.columns.count)
        for level in layout.headerAxes.indices {
            var cells: [String] = []
            layout.forEachHeaderCell(level: level) { cells.append("\($0)×\($1)") }
            #expect(cells == reference.header(level), "level \(level)")
        }
        #expect(layout.scenarios.map { $0.id } == reference.scenarios)
        for row in 0..<layout.rowCount {
            var cells: [[Int]] = []
            layout.forEachColumn(row: row) { _, jobs in cells.append(jobs.map(Int.init)) }
            #expect(cells == reference.cells(row), "row \(row)")
            #expect(layout.failing[row] == reference.cells(row).joined().contains { rows[$0].result?.outcome == .failed })
        }
    }
}

/// The heat map as the report drew it before the layout was compacted: a column key of label strings per job, the
/// distinct keys sorted level by level in natural order.
private struct ReferenceLayout {
    var headerAxes: [String]
    var columns: [[String]]
    var scenarios: [String]
    var keys: [[String]]
    var rows: [JobRow]

    init(_ rows: [JobRow]) {
        self.rows = rows
        let axes = rows.map { AxisValue.parse(configuration: $0.job.configuration, json: $0.job.configurationJSON) }
        let axisNames = Set(axes.joined().map(\.axis)).sorted()
        let several = Set(rows.map(\.job.registry)).count > 1
        headerAxes = axisNames + (several ? ["registry"] : [])
        keys = zip(rows, axes).map { row, values in
            let byAxis = Dictionary(uniqueKeysWithValues: values.map { ($0.axis, $0.value) })
            return axisNames.map { byAxis[$0] ?? HeatMapLayout.missing } + (several ? [row.job.registry] : [])
        }
        let distinct = Array(Set(keys))
        let depth = headerAxes.count
        let ranks = (0..<depth).map { level in
            Dictionary(uniqueKeysWithValues: Set(distinct.map { $0[level] }).sorted(by: AxisValue.naturalLess).enumerated()
                .map { ($1, $0) })
        }
        columns = distinct.sorted { a, b in
            for level in 0..<depth where a[level] != b[level] { return ranks[level][a[level]]! < ranks[level][b[level]]! }
            return false
        }
        var seen: [String] = []
        for row in rows where !seen.contains(row.job.scenarioID) { seen.append(row.job.scenarioID) }
        scenarios = seen
    }

    func header(_ level: Int) -> [String] {
        var cells: [(String, Int)] = []
        for (i, column) in columns.enumerated() {
            if i > 0, columns[i - 1].prefix(level + 1) == column.prefix(level + 1) { cells[cells.count - 1].1 += 1 } else {
                cells.append((column[level], 1))
            }
        }
        return cells.map { "\($0.0)×\($0.1)" }
    }

    func cells(_ row: Int) -> [[Int]] {
        columns.map { column in
            rows.indices.filter { rows[$0].job.scenarioID == scenarios[row] && keys[$0] == column }
        }
    }
}
