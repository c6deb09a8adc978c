import Foundation
@testable import Reports
import Testing

/// A run with more heat-map cells than the page draws one by one: a cell per group of columns, each group's jobs
/// in the drill-down files.
@Suite("Aggregated heat map")
struct AggregatedHeatMapTests {
    /// A group cell of the page: its key, drill-down file, job count and jobs that did not pass.
    struct GroupCell: Hashable {
        var key: String, file: Int, jobs: Int, bad: Int
    }

    static func groupCells(_ html: String) throws -> [GroupCell] {
        let pattern = try NSRegularExpression(
            pattern: #"<a class="cell agg s-[a-zA-Z]+" data-cells="([0-9.]+)" data-file="(-?[0-9]+)" data-n="([0-9]+)" data-bad="([0-9]+)""#)
        let text = html as NSString
        return pattern.matches(in: html, range: NSRange(location: 0, length: text.length)).map { m in
            GroupCell(key: text.substring(with: m.range(at: 1)), file: Int(text.substring(with: m.range(at: 2))) ?? -9,
                      jobs: Int(text.substring(with: m.range(at: 3))) ?? -1, bad: Int(text.substring(with: m.range(at: 4))) ?? -1)
        }
    }

    @Test("past the cell limit the page draws a cell per group; every job is in the drill-down files once, with its status")
    func groupsCoverEveryJob() throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapCellLimit: 10))
        #expect(written.html.contains("id=\"aggregated\""))
        #expect(written.html.contains("<div id=\"drill\" class=\"drill\"></div>"))
        // No job has a cell of its own on the page.
        #expect(occurrences(" data-job=\"", in: written.html) == 0)
        let cells = try Self.groupCells(written.html)
        #expect(!cells.isEmpty && cells.count <= 10)
        #expect(cells.reduce(0) { $0 + $1.jobs } == written.run.jobs.count)
        #expect(!written.files.cells.isEmpty)

        var groups: [String: [String: Any]] = [:]
        var levels: [String] = []
        var fileOf: [String: Int] = [:]
        for (n, url) in written.files.cells.enumerated() {
            #expect(url.lastPathComponent == String(format: "cells-%03d.js", n))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(ReportScript.payload(of: url))) as? [String: Any])
            levels = try #require(object["levels"] as? [String])
            for (key, group) in try #require(object["groups"] as? [String: [String: Any]]) {
                groups[key] = group
                fileOf[key] = n
            }
        }
        // The levels the page left out, in header order.
        let kept = Int(try #require(written.html.firstMatch(of: /data-levels="([0-9]+)"/)?.1)) ?? -1
        #expect(levels == Array(["direction", "locale", "orientation"].dropFirst(kept)))

        let expected = Dictionary(uniqueKeysWithValues: written.run.jobs.map { ($0.jobID, $0.plan) })
        var seen: [String] = []
        for cell in cells {
            let group = try #require(groups[cell.key], "group \(cell.key)")
            #expect(fileOf[cell.key] == cell.file)
            let columns = try #require(group["c"] as? [[String]])
            let jobs = try #require(group["j"] as? [[Any]])
            #expect(jobs.count == cell.jobs)
            #expect(columns.allSatisfy { $0.count == levels.count })
            var bad = 0
            for job in jobs {
                let column = try #require(job[0] as? Int), id = try #require(job[1] as? String)
                let status = try #require(job[2] as? String)
                #expect(column >= 0 && column < columns.count)
                let plan = try #require(expected[id])
                #expect(status == Self.status(plan), "job \(id)")
                if status != "passed" && status != "notRun" { bad += 1 }
                seen.append(id)
            }
            #expect(bad == cell.bad)
        }
        #expect(seen.count == written.run.jobs.count && Set(seen) == Set(expected.keys))
    }

    @Test("a map wider than the column limit is aggregated too, to at most that many groups a row")
    func columnLimit() throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapColumnLimit: 4))
        #expect(written.html.contains("id=\"aggregated\""))
        let cells = try Self.groupCells(written.html)
        let rows = Set(written.run.jobs.map(\.scenarioID)).count
        #expect(!cells.isEmpty && cells.count <= rows * 4)
        #expect(Set(cells.map { $0.key.split(separator: ".").last.map(String.init) ?? "" }).count <= 4)
        #expect(cells.reduce(0) { $0 + $1.jobs } == written.run.jobs.count)
    }

    @Test("the aggregated page shows hostile titles as text; drill-down files are only base64 in a script call")
    func escaping() throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapCellLimit: 10))
        #expect(!written.html.contains(Sweep.xssTitle))
        #expect(written.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(occurrences("<script", in: written.html) == 2)
        for url in written.files.cells {
            let script = try String(contentsOf: url, encoding: .utf8)
            #expect(script.allSatisfy { $0.isLetter || $0.isNumber || "FM.cells(,\"+/=);\n".contains($0) })
        }
        // The drill-down data holds the ids as JSON strings; the page sets every label and title as text.
        let groups = try written.files.cells.map { try String(decoding: ReportScript.payload(of: $0), as: UTF8.self) }
        #expect(groups.contains { $0.contains("\"groups\"") })
    }

    @Test("under the limit nothing is aggregated and no drill-down file is written")
    func underTheLimit() throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapCellLimit: 36))
        #expect(!written.html.contains("id=\"aggregated\""))
        #expect(written.files.cells.isEmpty)
        #expect(occurrences(" data-job=\"", in: written.html) == written.run.jobs.count)
    }

    @Test("a limit below the row count keeps one cell per scenario")
    func oneCellPerRow() throws {
        let written = try WrittenReport(settings: ReportSettings(heatMapCellLimit: 1))
        let rows = Set(written.run.jobs.map(\.scenarioID)).count
        #expect(try Self.groupCells(written.html).count == rows)
        #expect(written.html.contains("data-levels=\"0\""))
    }

    static func status(_ plan: Plan) -> String {
        switch plan {
        case .pass: "passed"
        case .fail: "failed"
        case .flaky: "flaky"
        case .timeout: "timedOut"
        case .quarantine: "quarantined"
        case .cancelled: "notRun"
        }
    }
}
