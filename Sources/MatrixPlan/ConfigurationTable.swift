/// A plan's configurations as value indices into the matrix's variables (its axes, then the keys only includes add):
/// one row of `Int32` per configuration, `-1` where a key is absent. Immutable once built, and shared by every job of
/// the plan and by the coordinator's run definition: a million configurations of three axes are 12 MB of rows, not a
/// million dictionaries. A `Configuration` (names and strings) is made only when one is asked for.
public struct ConfigurationTable: Sendable, RandomAccessCollection, Hashable {
    /// One storage for every copy: a job holds 8 bytes of it.
    final class Storage: Sendable {
        let names: [String]
        let values: [[String]]
        /// Variable indices in ``Configuration/keyOrder`` of their names.
        let order: [Int]
        let rows: [Int32]
        /// Rows (kept apart: a table without variables still has rows, each the empty configuration).
        let count: Int

        init(names: [String], values: [[String]], rows: [Int32], count: Int) {
            self.names = names
            self.values = values
            self.rows = rows
            self.count = count
            order = names.indices.sorted { Configuration.keyOrder(names[$0], names[$1]) }
        }
    }

    let storage: Storage

    /// The variables' names (the matrix's axes first).
    public var names: [String] { storage.names }
    /// The values of each variable; a row holds indices into these.
    public var values: [[String]] { storage.values }
    /// Values per row.
    public var width: Int { storage.names.count }

    init(names: [String], values: [[String]], rows: [Int32], count: Int) {
        storage = Storage(names: names, values: values, rows: rows, count: count)
    }

    /// A table of `rows` (concatenated, `names.count` values each: an index into `values` of that variable, or `-1`
    /// where the key is absent). - Returns: nil when `rows` does not divide into rows or an index is out of range.
    public init?(names: [String], values: [[String]], rows: [Int32]) {
        guard !names.isEmpty, names.count == values.count, rows.count % names.count == 0, Set(names).count == names.count
        else { return nil }
        for (i, value) in rows.enumerated() where value < -1 || Int(value) >= values[i % names.count].count { return nil }
        self.init(names: names, values: values, rows: rows, count: rows.count / names.count)
    }

    /// A table of these configurations (tests, and jobs made one at a time): the union of their keys as variables.
    public init(_ configurations: [Configuration]) {
        var names: [String] = []
        var index: [String: Int] = [:]
        var values: [[String]] = []
        var valueIndex: [[String: Int32]] = []
        for c in configurations {
            for key in c.keys where index[key] == nil {
                index[key] = names.count
                names.append(key)
                values.append([])
                valueIndex.append([:])
            }
        }
        var rows = [Int32](repeating: -1, count: names.count * configurations.count)
        for (r, c) in configurations.enumerated() {
            for (key, value) in c.pairs {
                guard let v = index[key] else { continue }
                let i: Int32
                if let known = valueIndex[v][value] { i = known } else {
                    i = Int32(values[v].count)
                    values[v].append(value)
                    valueIndex[v][value] = i
                }
                rows[r * names.count + v] = i
            }
        }
        self.init(names: names, values: values, rows: rows, count: configurations.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    /// The configuration of row `i` (absent keys left out).
    public subscript(i: Int) -> Configuration {
        var values: [String: String] = [:]
        values.reserveCapacity(width)
        forEachPair(i) { values[$0] = $1 }
        return Configuration(values)
    }

    /// Calls `body` with each (key, value) of row `i`, in canonical key order.
    public func forEachPair(_ i: Int, _ body: (String, String) -> Void) {
        let s = storage
        let base = i * s.names.count
        for v in s.order {
            let value = s.rows[base + v]
            if value >= 0 { body(s.names[v], s.values[v][Int(value)]) }
        }
    }

    /// Row `i`'s pairs in canonical (sorted key) order.
    public func pairs(_ i: Int) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        out.reserveCapacity(width)
        forEachPair(i) { out.append(($0, $1)) }
        return out
    }

    /// Row `i` as `key=value,…` in sorted key order (``Configuration/canonicalString``).
    public func canonicalString(_ i: Int) -> String {
        var out = ""
        forEachPair(i) { key, value in
            if !out.isEmpty { out += "," }
            out += key + "=" + value
        }
        return out
    }

    /// Row `i`'s canonical JSON (``JobIdentity/canonicalJSON(_:)-(Configuration)``).
    public func canonicalJSON(_ i: Int) -> String {
        var out = "{"
        forEachPair(i) { key, value in
            if out.count > 1 { out += "," }
            out += jsonString(key) + ":" + jsonString(value)
        }
        return out + "}"
    }

    /// The value of `name` in row `i`, if the row has it.
    public func value(of name: String, _ i: Int) -> String? {
        guard let v = storage.names.firstIndex(of: name) else { return nil }
        let value = storage.rows[i * width + v]
        return value < 0 ? nil : storage.values[v][Int(value)]
    }

    public static func == (a: ConfigurationTable, b: ConfigurationTable) -> Bool {
        a.storage === b.storage || a.elementsEqual(b)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if let first { hasher.combine(first) }
    }

    /// This table with each row repeated `count` times (row 1 × count, then row 2 × count, …) under the extra
    /// variable `name` = `1`…`count` (stability mode's `repetition` axis).
    func repeated(count: Int, as name: String) -> ConfigurationTable {
        var names = storage.names, values = storage.values
        let v = names.firstIndex(of: name) ?? names.count
        if v == names.count {
            names.append(name)
            values.append([])
        }
        var repetitionIndex: [Int32] = []
        for r in 1...count {
            let text = String(r)
            if let known = values[v].firstIndex(of: text) { repetitionIndex.append(Int32(known)); continue }
            repetitionIndex.append(Int32(values[v].count))
            values[v].append(text)
        }
        let (oldWidth, newWidth) = (width, names.count)
        var rows: [Int32] = []
        rows.reserveCapacity(self.count * count * newWidth)
        for i in 0..<self.count {
            let row = storage.rows[(i * oldWidth)..<((i + 1) * oldWidth)]
            for r in 0..<count {
                let start = rows.count
                rows += row
                if newWidth > oldWidth { rows.append(repetitionIndex[r]) } else { rows[start + v] = repetitionIndex[r] }
            }
        }
        return ConfigurationTable(names: names, values: values, rows: rows, count: self.count * count)
    }
}

extension ConfigurationTable {
    /// Builds a table row by row, keeping each distinct row once (open addressing over the rows themselves: no set
    /// of arrays beside them).
    struct Builder {
        let names: [String]
        let values: [[String]]
        private(set) var rows: [Int32] = []
        private var slots: [Int32] = Array(repeating: -1, count: 64)
        private(set) var count = 0

        init(names: [String], values: [[String]]) {
            self.names = names
            self.values = values
        }

        /// Adds `row` unless an equal row is already in. - Returns: true when added.
        mutating func append(_ row: [Int32]) -> Bool {
            if (count + 1) * 2 > slots.count { grow() }
            var slot = hash(row[...]) & (slots.count - 1)
            while slots[slot] >= 0 {
                let start = Int(slots[slot]) * names.count
                if rows[start..<(start + names.count)].elementsEqual(row) { return false }
                slot = (slot + 1) & (slots.count - 1)
            }
            slots[slot] = Int32(count)
            rows += row
            count += 1
            return true
        }

        private func hash(_ row: ArraySlice<Int32>) -> Int {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for v in row { h = (h ^ UInt64(UInt32(bitPattern: v))) &* 0x0000_0100_0000_01b3 }
            return Int(truncatingIfNeeded: h ^ (h >> 29))
        }

        private mutating func grow() {
            slots = Array(repeating: -1, count: slots.count * 2)
            let width = names.count
            for i in 0..<count {
                var slot = hash(rows[(i * width)..<((i + 1) * width)]) & (slots.count - 1)
                while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
                slots[slot] = Int32(i)
            }
        }

        func build() -> ConfigurationTable { ConfigurationTable(names: names, values: values, rows: rows, count: count) }
    }
}
