import FlowVocabulary
import Foundation
@testable import Journal
import MatrixPlan
@testable import Reports
import Testing

/// The scratch files behind ``RunIndex`` (job records, external sorting) and the heat map's layout built from them, checked against plain reference computations.
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

    /// An index of jobs with the given ids and (text, JSON) configurations, all passed, in one scenario.
    private func index(_ jobs: [(id: String, configuration: (String, String))]) throws -> RunIndex {
        let rows = jobs.enumerated().map { n, job in
            JobRow(job: PlannedJob(jobID: job.id, scenarioID: "s", scenarioTitle: "S", configuration: job.configuration.0,
                                   configurationJSON: job.configuration.1, registry: "r"),
                   ordinal: n, state: .done, result: JobResult(outcome: .passed, attempts: 1, duration: 0.25, finishedAt: Date()))
        }
        let info = RunInfo(runID: "r", matrixName: "m", matrixPath: "m.json", seed: 1, startedAt: Date())
        return try RunIndex(run: RunSummary(info: info, status: .completed, finishedAt: Date(), jobCount: rows.count, outcomes: [:]),
                            rows: rows)
    }

    @Test("job records: the planner's 16 hex digits (leading zeros too) are packed; any other id is kept as it is")
    func jobIDs() throws {
        let ids = ["0991f75b5e67ff95", "0000000000000000", "ffffffffffffffff", "ABCDEF0123456789", "short", "",
                   "0991f75b5e67ff9g", "job-with-ünïcode", "00000000000000001"]
        let index = try index(ids.map { ($0, ("a=1", "{\"a\":\"1\"}")) })
        #expect(index.jobCount == ids.count)
        var reader = index.reader()
        for (position, id) in ids.enumerated() {
            let job = try reader.job(position)
            #expect(try reader.id(job) == id)
            #expect(try reader.matches(job, id))
            #expect(try !reader.matches(job, id + "x"))
            #expect(job.duration == 0.25 && job.status == .passed && job.outcome == .passed && job.attempts == 1)
        }
    }

    @Test("job records: values and canonical texts read back, an unusual text is kept, past the writer's recent cache")
    func configurations() throws {
        var jobs: [(id: String, configuration: (String, String))] = [
            ("a", ("locale=ar,size=10", "{\"locale\":\"ar\",\"size\":10}")),
            ("b", ("locale=ar,size=10", "{\"size\":\"10\",  \"locale\":\"ar\"}")),
            ("c", ("zeta=1,alpha=2", "not json")),
            ("d", ("", "{}")),
        ]
        let count = JobRecords.Writer.recentLimit * 2 + 17
        for i in 0..<count { jobs.append(("n\(i)", ("n=\(i)", "{\"n\":\"\(i)\"}"))) }
        let index = try index(jobs)
        var reader = index.reader()
        var ids: [Int32] = []
        func values(_ position: Int) throws -> [AxisValue] {
            try reader.values(try reader.job(position), into: &ids)
            return ids.map { index.values[Int($0)] }
        }
        #expect(try values(0) == [AxisValue(axis: "locale", value: "ar"), AxisValue(axis: "size", value: "10")])
        #expect(try values(1) == values(0))
        #expect(try reader.text(try reader.job(1)) == "locale=ar,size=10")
        // A JSON that does not parse: the values come from the text, which is kept as written.
        #expect(try reader.text(try reader.job(2)) == "zeta=1,alpha=2")
        #expect(try values(2) == [AxisValue(axis: "alpha", value: "2"), AxisValue(axis: "zeta", value: "1")])
        #expect(try reader.text(try reader.job(3)) == "" && values(3).isEmpty)
        for i in stride(from: 0, to: count, by: 97) {
            #expect(try reader.text(try reader.job(4 + i)) == "n=\(i)")
            #expect(try values(4 + i) == [AxisValue(axis: "n", value: "\(i)")])
        }
        #expect(index.axisNames == ["alpha", "locale", "n", "size", "zeta"] && index.anyAxisMissing && index.maxValueCount == 2)
    }

    @Test("external sort: rows in key order, ties in arrival order, the same whether held or spilled in runs")
    func externalSort() throws {
        var generator = SplitMix64(seed: 5)
        let rows = (0..<5_000).map { n in [Int32(generator.next() % 40) - 20, Int32(generator.next() % 3), Int32(n)] }
        let reference = rows.enumerated().sorted { a, b in
            (a.element[0], a.element[1], a.offset) < (b.element[0], b.element[1], b.offset)
        }.map(\.element)
        for runRows in [1, 7, 1_000, 10_000] {
            let sort = ExternalSort(width: 3, keyWidth: 2, directory: nil, runRows: runRows)
            for row in rows { try sort.append(row) }
            var out: [[Int32]] = []
            try sort.forEach { out.append(Array($0)) }
            #expect(out == reference, "runs of \(runRows)")
        }
    }

    @Test("scratch files read back at any offset, across pages and cache slots")
    func scratchFile() throws {
        let writer = try ScratchFile.Writer(in: nil)
        let count = ScratchFile.Reader.pageSize * 20 / 8 + 3
        for n in 0..<count { try writer.append(Int64(n * 3)) }
        let file = try writer.finish()
        #expect(file.size == count * 8)
        var reader = ScratchFile.Reader(file, slots: 3)
        var generator = SplitMix64(seed: 3)
        for _ in 0..<2_000 {
            let n = Int(generator.next() % UInt64(count))
            #expect(try reader.load(Int64.self, at: n * 8) == Int64(n * 3))
        }
        // A value across a page boundary.
        let edge = ScratchFile.Reader.pageSize - 4
        let value = try reader.load(Int64.self, at: edge)
        var expected: Int64 = 0
        withUnsafeMutableBytes(of: &expected) { bytes in
            let low = Int64(edge / 8 * 3), high = Int64((edge / 8 + 1) * 3)
            withUnsafeBytes(of: low) { bytes.baseAddress!.copyMemory(from: $0.baseAddress! + 4, byteCount: 4) }
            withUnsafeBytes(of: high) { (bytes.baseAddress! + 4).copyMemory(from: $0.baseAddress!, byteCount: 4) }
        }
        #expect(value == expected)
    }

    @Test("the heat map layout matches a reference: missing axes, several registries, repeated jobs in a cell")
    func heatMapLayout() throws {
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
        let index = try RunIndex(run: RunSummary(info: info, status: .completed, finishedAt: Date(), jobCount: rows.count, outcomes: [:]),
                                 rows: rows)
        let layout = try HeatMapLayout(index)
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
            layout.forEachColumn(row: row) { _, jobs in cells.append(jobs.map { Int($0.position) }) }
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
