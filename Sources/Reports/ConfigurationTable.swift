/// A run's distinct configurations, each its sorted axis values as interned value ids: a configuration costs a few
/// dozen bytes however many a run has (a million-job run of six custom axes has a million of them).
///
/// A configuration is its axis values: two journal configurations whose JSON gives the same values are one here,
/// and keep the canonical text of the first. The text is kept only when it is not the values' own `k=v,k=v`.
struct ConfigurationTable {
    /// Every axis value of the run, in order of first appearance.
    private(set) var values: [AxisValue] = []
    private var valueIDs: [AxisValue: Int32] = [:]
    /// Per configuration, its value ids in axis-name order.
    private var configurations = InternedSlices()
    /// The canonical texts of the first ``storedTexts`` configurations (JUnit names every job by its text: no text
    /// is rebuilt per job in a run of ordinary size).
    private var texts: [String] = []
    static let storedTexts = 65_536
    /// Canonical texts, past those, that are not the values joined (a configuration JSON that did not parse, or odd
    /// spacing).
    private var unusualTexts: [Int32: String] = [:]
    /// The last configurations looked up by their journal text and JSON, so a run of few configurations parses each
    /// JSON once. Emptied when it reaches ``recentLimit`` entries.
    private var recent: [String: [(json: String, id: Int32)]] = [:]
    static let recentLimit = 4_096

    var count: Int { configurations.count }

    /// The configuration of a journal job (its canonical text and configuration JSON).
    mutating func id(text: String, json: String) -> Int32 {
        if let known = recent[text]?.first(where: { $0.json == json }) { return known.id }
        let axes = AxisValue.parse(configuration: text, json: json)
        var ids: [Int32] = []
        for value in axes { ids.append(intern(value)) }
        let id = configurations.intern(ids)
        if Int(id) == texts.count && texts.count < Self.storedTexts {
            texts.append(text)
        } else if Int(id) >= texts.count, unusualTexts[id] == nil, text != Self.text(axes) {
            unusualTexts[id] = text
        }
        if recent.count >= Self.recentLimit { recent.removeAll(keepingCapacity: true) }
        recent[text, default: []].append((json, id))
        return id
    }

    /// The interned id of one axis value.
    private mutating func intern(_ value: AxisValue) -> Int32 {
        if let id = valueIDs[value] { return id }
        valueIDs[value] = Int32(values.count)
        values.append(value)
        return Int32(values.count - 1)
    }

    /// Configuration `id`'s value ids (indices into ``values``), sorted by axis name.
    func valueIDs(_ id: Int32) -> ArraySlice<Int32> { configurations[id] }

    /// Configuration `id`'s axis values, sorted by axis name.
    func axes(_ id: Int32) -> [AxisValue] { configurations[id].map { values[Int($0)] } }

    /// Configuration `id`'s canonical `k=v,k=v` text.
    func text(_ id: Int32) -> String {
        Int(id) < texts.count ? texts[Int(id)] : unusualTexts[id] ?? Self.text(axes(id))
    }

    /// The canonical text of sorted axis values.
    private static func text(_ axes: [AxisValue]) -> String {
        axes.map(\.description).joined(separator: ",")
    }
}

/// The jobs' ids by plan position: a 16-hex-digit id (every id the planner makes) in 8 bytes, any other in a side
/// table.
struct JobIDTable {
    private var packed: [UInt64] = []
    private var others: [Int32: String] = [:]

    var count: Int { packed.count }

    mutating func append(_ id: String) {
        if let value = Self.pack(id) {
            packed.append(value)
        } else {
            others[Int32(packed.count)] = id
            packed.append(0)
        }
    }

    subscript(position: Int) -> String {
        if !others.isEmpty, let other = others[Int32(position)] { return other }
        let value = packed[position]
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for i in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * i)) & 0xF
                buffer[i] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
            }
            return 16
        }
    }

    /// Whether the job at `position` has id `id` (without making a string).
    func matches(_ position: Int, _ id: String) -> Bool {
        guard position >= 0 && position < packed.count else { return false }
        if !others.isEmpty, let other = others[Int32(position)] { return other == id }
        return Self.pack(id) == packed[position]
    }

    /// The value of 16 lowercase hexadecimal digits; nil for anything else.
    private static func pack(_ id: String) -> UInt64? {
        let utf8 = id.utf8
        guard utf8.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
