/// A memory of the newest `limit` things remembered, by key: the scheduler's jobs of lost workers, the engine's lost
/// worker instances. Remembering past the limit forgets the oldest. Pure.
struct BoundedMemory<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let limit: Int
    private var values: [Key: Value] = [:]
    private var order: [Key] = []

    init(limit: Int) { self.limit = limit }

    func contains(_ key: Key) -> Bool { values[key] != nil }

    mutating func remember(_ key: Key, _ value: Value) {
        values[key] = value
        order.append(key)
        if order.count > limit { values[order.removeFirst()] = nil }
    }

    /// The value remembered for `key`, forgotten now; nil if none is remembered.
    mutating func forget(_ key: Key) -> Value? {
        guard let value = values.removeValue(forKey: key) else { return nil }
        order.removeAll { $0 == key }
        return value
    }
}
