import FlowSpec
import Foundation
import Gzip

/// The heat map of a run too large to draw one cell per job (more than ``ReportSettings/heatMapCellLimit`` cells,
/// job cells and empty places together, or more than ``ReportSettings/heatMapColumnLimit`` columns): each row keeps one
/// cell per group of columns that share their values at the first ``levels`` header levels, coloured by its worst
/// job. A group's jobs — their remaining labels, ids and statuses — are in drill-down files (`data/cells-NNN.js`,
/// base64 of gzip like the job chunks, loaded when a cell is opened), so the page draws at most the limit's cells
/// however many jobs the run has.
///
/// Built in two passes over the job records: the first counts the distinct groups each number of levels makes
/// (stopping a count at the limit), the second sorts the jobs by group, row and column (``ExternalSort``) and writes
/// the files as the sorted jobs stream by. Memory holds the groups and one drill-down file.
struct HeatMapGroups {
    /// Header levels kept on the page.
    let levels: Int
    /// Each group's ranks at the first ``levels`` levels, group after group, in order.
    private(set) var keys: [Int32] = []
    private(set) var groupCount = 0
    /// Distinct columns of the run.
    private(set) var columnCount = 0
    /// Per row, per group.
    private var stats: [Stats] = []
    /// The drill-down files written.
    private(set) var urls: [URL] = []

    /// Jobs per drill-down file (a row's part of a group is never split).
    static let jobsPerFile = 20_000

    /// A group cell: its jobs, those that did not pass, its worst status, and the file with its jobs (-1: none).
    struct Stats {
        var count = 0
        var bad = 0
        var worst = CellStatus.passed
        var file: Int32 = -1
    }

    /// - Throws: ``ReportError`` `.output`.
    init(_ index: RunIndex, ranks: HeatMapLayout.Ranks, rows: Int, limit: Int, columnLimit: Int, folder: URL) throws {
        let (levels, prefixes) = try Self.keptLevels(index, ranks: ranks, cap: min(limit / max(rows, 1), columnLimit))
        self.levels = levels
        // Groups in rank order.
        let order = (0..<Int32(max(prefixes.count, 1))).sorted {
            prefixes.count == 0 ? false : prefixes[$0].lexicographicallyPrecedes(prefixes[$1])
        }
        var groupOf = [Int32](repeating: 0, count: order.count)
        for (rank, prefix) in order.enumerated() {
            groupOf[Int(prefix)] = Int32(rank)
            if prefixes.count > 0 { keys.append(contentsOf: prefixes[prefix]) }
        }
        groupCount = order.count
        stats = [Stats](repeating: Stats(), count: rows * groupCount)
        try write(index, ranks: ranks, prefixes: prefixes, groupOf: groupOf, folder: folder)
    }

    func cell(row: Int, group: Int) -> Stats { stats[row * groupCount + group] }

    /// The most header levels (below the last) whose distinct groups number at most `cap`, and those groups' prefixes
    /// (none for 0 levels: one group). One pass, a bounded set per level.
    private static func keptLevels(_ index: RunIndex, ranks: HeatMapLayout.Ranks, cap: Int) throws -> (Int, InternedSlices) {
        var sets: [InternedSlices?] = (0..<ranks.depth).map { $0 == 0 ? nil : InternedSlices() }
        var ids: [Int32] = [], key: [Int32] = []
        try index.forEachJob { _, job, reader in
            try reader.values(job, into: &ids)
            ranks.key(job, values: ids, into: &key)
            for level in 1..<max(ranks.depth, 1) {
                guard sets[level] != nil else { break }
                // More levels make at least as many groups: once a level overflows, so do all below it.
                if sets[level]!.intern(key[0..<level]) >= cap {
                    for deeper in level..<ranks.depth { sets[deeper] = nil }
                    break
                }
            }
        }
        let kept = (1..<max(ranks.depth, 1)).last { sets[$0] != nil } ?? 0
        return (kept, kept == 0 ? InternedSlices() : sets[kept]!)
    }

    /// The drill-down files: every job sorted by group, row, column and plan position, each row's part of a group an
    /// entry `"row.group"` with its columns' labels below the kept levels and its jobs as `[column, id, status]`.
    private mutating func write(_ index: RunIndex, ranks: HeatMapLayout.Ranks, prefixes: InternedSlices, groupOf: [Int32],
                                folder: URL) throws {
        let depth = ranks.depth, suffix = depth - levels
        let sort = ExternalSort(width: 2 + suffix + 5, keyWidth: 2 + suffix + 1, directory: folder)
        var prefixes = prefixes
        var reader = index.reader()
        var ids: [Int32] = [], key: [Int32] = [], row: [Int32] = []
        try index.forEachJob { position, job, reader in
            try reader.values(job, into: &ids)
            ranks.key(job, values: ids, into: &key)
            let group = levels == 0 ? 0 : groupOf[Int(prefixes.intern(key[0..<levels]))]
            let packed = job.packedID ?? 0
            row.removeAll(keepingCapacity: true)
            row += [group, job.scenario]
            row += key[levels...]
            row += [Int32(position), Int32(CellStatus.allCases.firstIndex(of: job.status) ?? 0),
                    Int32(truncatingIfNeeded: packed >> 32), Int32(truncatingIfNeeded: packed), job.packedID == nil ? 1 : 0]
            try sort.append(row)
        }
        var file = DrillDownFile(folder: folder, levelNames: "[" + ranks.headerAxes[levels...].map(JSONText.pageString)
            .joined(separator: ",") + "]")
        var entry = Entry()
        var groupColumns = InternedSlices()
        var group = -1
        try sort.forEach { r in
            let (g, rowNumber) = (Int(r[0]), Int(r[1]))
            let columnRanks = r[2..<(2 + suffix)]
            if g != group || rowNumber != entry.row {
                try close(&entry, into: &file)
                entry = Entry(row: rowNumber, group: g)
            }
            if g != group {
                columnCount += groupColumns.count
                groupColumns = InternedSlices()
                group = g
            }
            _ = groupColumns.intern(columnRanks)
            if entry.lastColumn.isEmpty || !entry.lastColumn.elementsEqual(columnRanks) {
                entry.lastColumn = Array(columnRanks)
                let labels = columnRanks.enumerated().map { ranks.labels[levels + $0.offset][Int($0.element)] }
                entry.columns.append("[" + labels.map(JSONText.pageString).joined(separator: ",") + "]")
            }
            let status = CellStatus.allCases[Int(r[3 + suffix])]
            let id = r[6 + suffix] == 0
                ? JobRecords.format(UInt64(UInt32(bitPattern: r[4 + suffix])) << 32 | UInt64(UInt32(bitPattern: r[5 + suffix])))
                : try reader.id(try reader.job(Int(r[2 + suffix])))
            entry.jobs += (entry.count > 0 ? "," : "") + "[\(entry.columns.count - 1)," + JSONText.pageString(id) + ",\""
                + status.rawValue + "\"]"
            entry.count += 1
            if status != .passed && status != .notRun { entry.bad += 1 }
            if Self.severity(status) > Self.severity(entry.worst) { entry.worst = status }
        }
        try close(&entry, into: &file)
        columnCount += groupColumns.count
        try file.flush()
        urls = file.urls
    }

    /// A row's part of a group, as its drill-down entry is built.
    private struct Entry {
        var row = -1, group = -1
        var columns: [String] = []
        var lastColumn: [Int32] = []
        var jobs = ""
        var count = 0, bad = 0
        var worst = CellStatus.passed
    }

    private mutating func close(_ entry: inout Entry, into file: inout DrillDownFile) throws {
        guard entry.count > 0 else { return }
        stats[entry.row * groupCount + entry.group] = Stats(count: entry.count, bad: entry.bad, worst: entry.worst,
                                                            file: Int32(file.urls.count))
        try file.add("\"\(entry.row).\(entry.group)\":{\"c\":[" + entry.columns.joined(separator: ",") + "],\"j\":["
            + entry.jobs + "]}", jobs: entry.count)
    }

    /// How much a status colours a group's cell: the worst job shows.
    static func severity(_ status: CellStatus) -> Int {
        switch status {
        case .passed: 0
        case .notRun: 1
        case .quarantined: 2
        case .flaky: 3
        case .timedOut: 4
        case .failed: 5
        }
    }

    /// `data/cells-007.js`.
    static func path(_ n: Int) -> String {
        let digits = String(n)
        return "data/cells-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + ".js"
    }
}

/// The drill-down file being filled: entries until it holds ``HeatMapGroups/jobsPerFile`` jobs, then written as
/// `FM.cells(n, "base64 of gzip")`.
private struct DrillDownFile {
    let folder: URL
    let levelNames: String
    private(set) var urls: [URL] = []
    private var json = ""
    private var jobs = 0

    init(folder: URL, levelNames: String) {
        self.folder = folder
        self.levelNames = levelNames
    }

    mutating func add(_ entry: String, jobs count: Int) throws {
        json += (jobs > 0 ? "," : "") + entry
        jobs += count
        if jobs >= HeatMapGroups.jobsPerFile { try flush() }
    }

    mutating func flush() throws {
        guard jobs > 0 else { return }
        let n = urls.count
        let url = folder.appendingPathComponent(HeatMapGroups.path(n))
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let compressed = try GzipCodec.compress(Data(("{\"levels\":" + levelNames + ",\"groups\":{" + json + "}}").utf8))
            let script = "FM.cells(\(n),\"" + Data(compressed).base64EncodedString() + "\");\n"
            try Data(script.utf8).write(to: url, options: .atomic)
        } catch {
            throw ReportError(code: .output, message: "cannot write \(url.path): \(FileErrorText.reason(error))")
        }
        urls.append(url)
        json = ""
        jobs = 0
    }
}
