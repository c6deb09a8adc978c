import FlowVocabulary
import Foundation
@testable import Journal
import MatrixPlan
@testable import Reports
import Testing

/// The parts of a report written from the spilled job records in passes (``RunIndex``, ``ExternalSort``) against
/// plain in-memory reference computations, on plans whose order is not the order the parts need.
@Suite("Reports streamed from job records")
struct StreamedReportTests {
    private static let configurations: [(String, String)] = [
        ("locale=en,size=2", #"{"locale":"en","size":"2"}"#), ("locale=ar,size=2", #"{"locale":"ar","size":"2"}"#),
        ("locale=en,size=10", #"{"size":"10","locale":"en"}"#), ("locale=ar", #"{"locale":"ar"}"#),
        // Not JSON: the values come from the text, which is kept as written (an unusual canonical text).
        ("size=1, locale=de", "not json"),
    ]

    /// Jobs in configuration-major order (scenarios interleaved), two registries, every status.
    private static func rows(count: Int, seed: UInt64) -> [JobRow] {
        var generator = SplitMix64(seed: seed)
        let outcomes: [JobOutcome?] = [.passed, .passed, .passed, .failed, .flaky, .timedOut, .quarantined, .cancelled, nil]
        return (0..<count).map { n in
            let (text, json) = configurations[n % configurations.count]
            let scenario = "s\(Int(generator.next() % 5))"
            let outcome = outcomes[Int(generator.next() % UInt64(outcomes.count))]
            let job = PlannedJob(jobID: String(format: "%016llx", generator.next()), scenarioID: scenario,
                                 scenarioTitle: "title \(scenario)", configuration: text, configurationJSON: json,
                                 registry: ["web", "catalog"][Int(generator.next() % 2)])
            return JobRow(job: job, ordinal: n, state: outcome == nil ? .queued : .done,
                          result: outcome.map {
                              JobResult(outcome: $0, attempts: 1, duration: Double(n % 7) / 4, finishedAt: Date())
                          })
        }
    }

    private static func index(_ rows: [JobRow]) throws -> RunIndex {
        let info = RunInfo(runID: "r", matrixName: "m", matrixPath: "m.json", seed: 1, startedAt: Date())
        return try RunIndex(run: RunSummary(info: info, status: .completed, finishedAt: Date(), jobCount: rows.count, outcomes: [:]),
                            rows: rows)
    }

    @Test("junit.xml: suites in order of their first job, their jobs in plan order, counts per suite, both groupings")
    func junitSuites() throws {
        let rows = Self.rows(count: 900, seed: 21)
        let index = try Self.index(rows)
        for grouping in JUnitGrouping.allCases {
            let out = ReportOutput()
            let cases = try JUnitReport.Cases(grouping: grouping, multipleRegistries: true, folder: nil)
            try JUnitReport.write(index, grouping: grouping, cases: cases, to: out)
            let root = try XMLNode.parse(Data(out.text.utf8))
            // The reference: a suite per scenario, or per configuration (its values) and registry.
            func suiteName(_ row: JobRow) -> String {
                grouping == .scenario ? row.job.scenarioID : "\(row.job.configuration) @\(row.job.registry)"
            }
            var order: [String] = []
            var members: [String: [JobRow]] = [:]
            for row in rows {
                let name = suiteName(row)
                if members[name] == nil { order.append(name) }
                members[name, default: []].append(row)
            }
            let suites = root.all("testsuite")
            #expect(suites.map { $0.attributes["name"] ?? "" } == order, "\(grouping)")
            for suite in suites {
                let jobs = members[suite.attributes["name"] ?? ""] ?? []
                let cases = suite.all("testcase")
                let expected = jobs.map { row in
                    grouping == .scenario ? "\(row.job.scenarioID)|\(row.job.configuration) @\(row.job.registry)"
                        : "\(row.job.configuration) @\(row.job.registry)|\(row.job.scenarioID)"
                }
                #expect(cases.map { "\($0.attributes["classname"] ?? "")|\($0.attributes["name"] ?? "")" } == expected)
                let failures = jobs.filter { CellStatus($0) == .failed }.count
                let errors = jobs.filter { [.timedOut, .quarantined].contains(CellStatus($0)) }.count
                let skipped = jobs.filter { CellStatus($0) == .notRun }.count
                #expect(suite.attributes["tests"] == "\(jobs.count)" && suite.attributes["failures"] == "\(failures)"
                        && suite.attributes["errors"] == "\(errors)" && suite.attributes["skipped"] == "\(skipped)",
                        "\(suite.attributes)")
            }
            #expect(root.attributes["tests"] == "\(rows.count)")
        }
    }

    @Test("the pivot from the records equals the pivot of the same jobs in memory, past the profile table's size")
    func pivotFromRecords() throws {
        // More distinct profiles than the combining table holds, so it is counted and emptied on the way.
        let count = AxisPivot.Tallies.combineLimit + 4_000
        var generator = SplitMix64(seed: 9)
        var rows: [JobRow] = []
        var inputs: [AxisPivot.Input] = []
        for n in 0..<count {
            let values = ["a": "\(n % 10)", "b": "\(n / 10 % 10)", "id": "\(n)"]
            let failed = values["a"] == "3" && values["b"] == "7" || generator.next() % 50 == 0
            let text = values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            let json = "{" + values.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
            rows.append(JobRow(job: PlannedJob(jobID: String(format: "%016llx", n), scenarioID: "s", scenarioTitle: "S",
                                               configuration: text, configurationJSON: json, registry: "r"),
                               ordinal: n, state: .done,
                               result: JobResult(outcome: failed ? .failed : .passed, attempts: 1, duration: 1, finishedAt: Date())))
            var axes = values.map { AxisValue(axis: $0.key, value: $0.value) }
            axes.append(AxisValue(axis: AxisPivot.scenarioAxis, value: "s"))
            inputs.append(AxisPivot.Input(axes: axes, status: failed ? .failed : .passed))
        }
        let fromRecords = try AxisPivot.compute(try Self.index(rows))
        let inMemory = AxisPivot.compute(inputs)
        #expect(fromRecords.totalJobs == count && fromRecords.totalFailures == inMemory.totalFailures)
        #expect(fromRecords.explanations == inMemory.explanations)
        #expect(fromRecords.explanations.first?.group.label == "a=3 + b=7")
        #expect(fromRecords.axes == inMemory.axes)
        #expect(Array(fromRecords.ranked.prefix(50)) == Array(inMemory.ranked.prefix(50)))
    }

    @Test("an aggregated heat map's drill-down holds every job once, whatever the plan order and the sort's runs")
    func drillDownComplete() throws {
        let rows = Self.rows(count: 2_000, seed: 4)
        let index = try Self.index(rows)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("drill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let layout = try HeatMapLayout(index, limits: (cells: 12, columns: 2_000), folder: folder)
        let groups = try #require(layout.groups)
        #expect(layout.rowCount == 5 && groups.levels < layout.headerAxes.count)
        var total = 0
        for row in 0..<layout.rowCount {
            for group in 0..<groups.groupCount { total += groups.cell(row: row, group: group).count }
        }
        #expect(total == rows.count)
        // The files hold each id once.
        var ids: [String] = []
        for url in groups.urls {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(ReportScript.payload(of: url))) as? [String: Any])
            for case let entry as [String: Any] in (object["groups"] as? [String: Any] ?? [:]).values {
                for case let job as [Any] in entry["j"] as? [Any] ?? [] { ids.append(job[1] as? String ?? "") }
            }
        }
        #expect(ids.sorted() == rows.map(\.job.jobID).sorted())
    }
}
