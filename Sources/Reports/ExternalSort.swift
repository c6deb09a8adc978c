import Foundation

/// Sorts rows of ``width`` `Int32` words by their first ``keyWidth`` words (lexicographically, ties in the order
/// they came) in bounded memory: at most ``runRows`` rows (by default as many as fit in 2 MiB, at least 64) are held, each full run is sorted and spilled to a scratch
/// file, and the runs are merged as they are read back. A report groups a million jobs by suite or heat-map cell
/// with this, holding a few megabytes.
final class ExternalSort {
    let width: Int
    let keyWidth: Int
    let runRows: Int
    private let directory: URL?
    private var rows: [Int32] = []
    private var spilled: ScratchFile.Writer?
    /// The row offset where each spilled run starts, then the end.
    private var runStarts: [Int] = [0]
    private(set) var count = 0

    /// The memory a run of rows may take by default.
    static let runBytes = 2 << 20

    init(width: Int, keyWidth: Int? = nil, directory: URL?, runRows: Int? = nil) {
        self.width = width
        self.keyWidth = keyWidth ?? width
        // A budget in bytes, not in rows: a configuration of many axes makes wide rows.
        self.runRows = runRows ?? max(64, Self.runBytes / (4 * max(width, 1)))
        self.directory = directory
    }

    /// Appends one row (`width` words).
    func append(_ row: [Int32]) throws {
        precondition(row.count == width, "a sorted row has \(width) words")
        rows.append(contentsOf: row)
        count += 1
        if rows.count >= runRows * width { try spill() }
    }

    /// The rows in sorted order, each given to `body` as `width` words valid during the call.
    func forEach(_ body: (UnsafeBufferPointer<Int32>) throws -> Void) throws {
        if spilled == nil {
            let order = sortedOrder()
            try rows.withUnsafeBufferPointer { all in
                for row in order { try body(UnsafeBufferPointer(rebasing: all[Int(row) * width..<(Int(row) + 1) * width])) }
            }
            return
        }
        if !rows.isEmpty { try spill() }
        guard let writer = spilled else { return }
        spilled = nil
        try merge(try writer.finish(), body)
    }

    /// The held rows' order (a stable sort of their numbers).
    private func sortedOrder() -> [Int32] {
        let n = rows.count / width
        let (width, keyWidth) = (width, keyWidth)
        return rows.withUnsafeBufferPointer { all in
            (0..<Int32(n)).sorted { a, b in
                let x = Int(a) * width, y = Int(b) * width
                for i in 0..<keyWidth where all[x + i] != all[y + i] { return all[x + i] < all[y + i] }
                return a < b
            }
        }
    }

    private func spill() throws {
        let writer = try spilled ?? ScratchFile.Writer(in: directory)
        spilled = writer
        let order = sortedOrder()
        try rows.withUnsafeBytes { bytes in
            for row in order {
                try writer.append(UnsafeRawBufferPointer(rebasing: bytes[Int(row) * width * 4..<(Int(row) + 1) * width * 4]))
            }
        }
        runStarts.append(runStarts[runStarts.count - 1] + order.count)
        rows.removeAll(keepingCapacity: true)
    }

    /// Merges the spilled runs: a binary heap of each run's next row, the smallest first (the earlier run on ties,
    /// which keeps the sort stable).
    private func merge(_ file: ScratchFile, _ body: (UnsafeBufferPointer<Int32>) throws -> Void) throws {
        let runs = runStarts.count - 1
        var readers = (0..<runs).map { _ in ScratchFile.Reader(file, slots: 1) }
        var next = Array(runStarts.dropLast())
        var heads = [Int32](repeating: 0, count: runs * width)
        func load(_ run: Int) throws {
            try heads.withUnsafeMutableBytes { bytes in
                try readers[run].read(at: next[run] * width * 4, count: width * 4, into: bytes.baseAddress! + run * width * 4)
            }
            next[run] += 1
        }
        func less(_ a: Int, _ b: Int) -> Bool {
            for i in 0..<keyWidth where heads[a * width + i] != heads[b * width + i] {
                return heads[a * width + i] < heads[b * width + i]
            }
            return a < b
        }
        var heap: [Int] = []
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for run in 0..<runs where next[run] < runStarts[run + 1] {
            try load(run)
            heap.append(run)
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while let run = heap.first {
            try heads.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[run * width..<(run + 1) * width])) }
            if next[run] < runStarts[run + 1] {
                try load(run)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
