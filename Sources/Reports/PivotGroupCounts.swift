/// The pivot's groups and what their jobs count: a hash table keyed by ``AxisPivot/Key`` (open addressing, linear
/// probing, a multiplicative hash of the key's three ids).
///
/// A `Dictionary` hashed every key with SipHash — a seed, three words, a finalization — and the pivot adds to a
/// group millions of times per large report (each profile's values, pairs and scenario triples, in every pass):
/// hashing was most of the pivot's time. Groups are only added to, never removed (a pass that takes jobs out adds
/// negative counts).
///
/// Iteration order is the table's, not the keys': every reader of the groups orders what it finds itself.
struct PivotGroupCounts: Sequence {
    typealias Key = AxisPivot.Key
    typealias Tally = AxisPivot.Tally

    /// The slots' keys; a key whose `a` is ``empty`` marks a free slot (value ids are never negative).
    private var slots: [Key]
    private var tallies: [Tally]
    /// Slot count − 1 (a power of two, less one).
    private var mask: Int
    private(set) var count = 0
    private static let empty = Int32.min

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: Key(a: Self.empty), count: size)
        tallies = Array(repeating: Tally(), count: size)
        mask = size - 1
    }

    /// The slot to look at first for `key`: its ids mixed by multiplication (splitmix64's finalizer).
    private func home(_ key: Key) -> Int {
        var h = UInt64(UInt32(bitPattern: key.a)) | UInt64(UInt32(bitPattern: key.b)) << 32
        h ^= UInt64(UInt32(bitPattern: key.c)) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: h ^ (h >> 31)) & mask
    }

    /// The slot holding `key`, or the free slot where it would go.
    private func slot(_ key: Key) -> Int {
        var i = home(key)
        while slots[i].a != Self.empty && slots[i] != key { i = (i + 1) & mask }
        return i
    }

    subscript(key: Key) -> Tally? {
        let i = slot(key)
        return slots[i].a == Self.empty ? nil : tallies[i]
    }

    /// Adds `t` to the group `key` (a new group starts from zero).
    mutating func add(_ t: Tally, to key: Key) {
        var i = slot(key)
        if slots[i].a == Self.empty {
            // At most half full: probes stay short.
            if (count + 1) * 2 > slots.count {
                grow()
                i = slot(key)
            }
            slots[i] = key
            count += 1
        }
        tallies[i].add(t)
    }

    private mutating func grow() {
        let old = zip(slots, tallies).filter { $0.0.a != Self.empty }
        self = PivotGroupCounts(capacity: slots.count)
        for (key, t) in old {
            let i = slot(key)
            slots[i] = key
            tallies[i] = t
            count += 1
        }
    }

    /// Every group's key.
    var keys: [Key] { slots.filter { $0.a != Self.empty } }

    /// The groups `isIncluded` keeps, as pairs.
    func filter(_ isIncluded: ((key: Key, value: Tally)) -> Bool) -> [(key: Key, value: Tally)] {
        var out: [(key: Key, value: Tally)] = []
        for group in self where isIncluded(group) { out.append(group) }
        return out
    }

    func makeIterator() -> Iterator { Iterator(table: self) }

    struct Iterator: IteratorProtocol {
        fileprivate let table: PivotGroupCounts
        fileprivate var position = 0

        fileprivate init(table: PivotGroupCounts) { self.table = table }

        mutating func next() -> (key: Key, value: Tally)? {
            while position < table.slots.count {
                let i = position
                position += 1
                if table.slots[i].a != PivotGroupCounts.empty { return (table.slots[i], table.tallies[i]) }
            }
            return nil
        }
    }
}
