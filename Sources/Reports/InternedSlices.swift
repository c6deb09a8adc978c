/// Sequences of small integers (a configuration's axis-value ids, a pivot profile), each distinct sequence stored once,
/// end to end in one buffer, under a dense id in order of first appearance.
///
/// A million one-off configurations cost their integers plus about 16 bytes each here (an end offset and an
/// open-addressing slot), where an array per sequence and a dictionary keyed by arrays cost ten times that.
struct InternedSlices {
    private var elements: [Int32] = []
    /// The end offset in `elements` of each sequence.
    private var ends: [Int] = []
    /// Open addressing, linear probing: a sequence id, or -1 for an empty slot. Kept at most half full.
    private var slots = [Int32](repeating: -1, count: 16)

    var count: Int { ends.count }

    subscript(id: Int32) -> ArraySlice<Int32> {
        let i = Int(id)
        return elements[(i == 0 ? 0 : ends[i - 1])..<ends[i]]
    }

    /// The id of `sequence`, stored first when it is new.
    mutating func intern<C: Collection>(_ sequence: C) -> Int32 where C.Element == Int32 {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var slot = Self.hash(sequence) & mask
        while slots[slot] >= 0 {
            if self[slots[slot]].elementsEqual(sequence) { return slots[slot] }
            slot = (slot + 1) & mask
        }
        let id = Int32(count)
        elements.append(contentsOf: sequence)
        ends.append(elements.count)
        slots[slot] = id
        return id
    }

    private static func hash<C: Collection>(_ sequence: C) -> Int where C.Element == Int32 {
        var hasher = Hasher()
        hasher.combine(sequence.count)
        for element in sequence { hasher.combine(element) }
        return hasher.finalize()
    }

    private mutating func grow() {
        var larger = [Int32](repeating: -1, count: slots.count * 2)
        let mask = larger.count - 1
        for id in 0..<Int32(count) {
            var slot = Self.hash(self[id]) & mask
            while larger[slot] >= 0 { slot = (slot + 1) & mask }
            larger[slot] = id
        }
        slots = larger
    }
}
