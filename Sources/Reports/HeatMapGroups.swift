import Artifacts
import Foundation

/// The heat map of a run too large to draw one cell per job (more than ``ReportSettings/heatMapCellLimit`` cells,
/// job cells and empty places together, or more than ``ReportSettings/heatMapColumnLimit`` columns): each row keeps one cell per group of columns that share their values at
/// the first ``levels`` header levels, coloured by its worst job. A group's jobs — their remaining labels, ids and
/// statuses — are in drill-down files (`data/cells-NNN.js`, base64 of gzip like the job chunks, loaded when a cell
/// is opened), so the page draws at most the limit's cells however many jobs the run has.
struct HeatMapGroups {
    /// Header levels kept on the page.
    let levels: Int
    /// The first column of each group, then the column count.
    let starts: [Int]
    /// Per row, per group: the drill-down file with its jobs, -1 when it has none.
    private(set) var files: [Int32]
    /// The drill-down files written.
    private(set) var urls: [URL] = []

    /// Jobs per drill-down file (a group is never split).
    static let jobsPerFile = 20_000

    var groupCount: Int { starts.count - 1 }

    /// The grouping of `layout` when it has more than `limit` cells or `columnLimit` columns; nil when it fits.
    init?(_ layout: HeatMapLayout, jobs: Int, limit: Int, columnLimit: Int) {
        guard max(jobs, layout.rowCount * layout.columnCount) > limit || layout.columnCount > columnLimit else { return nil }
        levels = layout.keptLevels(limit: limit, columnLimit: columnLimit)
        starts = layout.groupStarts(levels: levels)
        files = []
    }

    func file(row: Int, group: Int) -> Int32 { files[row * groupCount + group] }

    /// Writes the drill-down files into `folder/data/`: per group with jobs, an entry `"row.group"` with its
    /// columns' labels below the kept levels and its jobs as `[column, id, status]`.
    mutating func write(_ layout: HeatMapLayout, _ index: RunIndex, folder: URL) throws {
        files = [Int32](repeating: -1, count: layout.rowCount * groupCount)
        let levelNames = "[" + layout.headerAxes[levels...].map(JSONText.pageString).joined(separator: ",") + "]"
        var json = ""
        var jobsInFile = 0
        func flush() throws {
            guard jobsInFile > 0 else { return }
            let n = urls.count
            let url = folder.appendingPathComponent(Self.path(n))
            do {
                let compressed = try GzipCodec.compress(Data(("{\"levels\":" + levelNames + ",\"groups\":{" + json + "}}").utf8))
                let script = "FM.cells(\(n),\"" + Data(compressed).base64EncodedString() + "\");\n"
                try Data(script.utf8).write(to: url, options: .atomic)
            } catch {
                throw ReportError(code: .output, message: "cannot write \(url.path): \(error.localizedDescription)")
            }
            urls.append(url)
            json = ""
            jobsInFile = 0
        }
        for row in 0..<layout.rowCount {
            var group = 0
            var entry = ""
            var columns: [String] = []
            var jobs = 0
            func close() throws {
                guard jobs > 0 else { return }
                json += (jobsInFile > 0 ? "," : "") + "\"\(row).\(group)\":{\"c\":[" + columns.joined(separator: ",")
                    + "],\"j\":[" + entry + "]}"
                jobsInFile += jobs
                files[row * groupCount + group] = Int32(urls.count)
                if jobsInFile >= Self.jobsPerFile { try flush() }
                (entry, columns, jobs) = ("", [], 0)
            }
            var failure: (any Error)?
            layout.forEachColumn(row: row) { column, positions in
                guard failure == nil else { return }
                while column >= starts[group + 1] {
                    do { try close() } catch { failure = error }
                    group += 1
                }
                guard !positions.isEmpty else { return }
                let sub = columns.count
                columns.append("[" + layout.labels(column: column, from: levels).map(JSONText.pageString)
                    .joined(separator: ",") + "]")
                for position in positions {
                    let id = index.ids[Int(position)]
                    entry += (jobs > 0 ? "," : "") + "[\(sub)," + JSONText.pageString(id) + ",\""
                        + index.jobs[Int(position)].status.rawValue + "\"]"
                    jobs += 1
                }
            }
            if let failure { throw failure }
            try close()
        }
        try flush()
    }

    /// `data/cells-007.js`.
    static func path(_ n: Int) -> String {
        let digits = String(n)
        return "data/cells-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + ".js"
    }
}
