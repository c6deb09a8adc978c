import MatrixPlan

/// A plan's job ids as a sorted array of their 64-bit values (`JobIdentity`: 16 hex digits), for asking "is this job
/// in the plan?" of a history: 8 bytes a job, where a `Set<String>` of a million ids takes several times that.
struct PlannedJobIDs {
    private let sorted: [UInt64]
    /// Ids that are not 16 hex digits (none from the planner; kept so the answer is right for any job list).
    private let others: Set<String>

    init(_ ids: some Sequence<String>) {
        var values: [UInt64] = []
        values.reserveCapacity(ids.underestimatedCount)
        var others = Set<String>()
        for id in ids {
            if let value = Self.value(id) { values.append(value) } else { others.insert(id) }
        }
        sorted = values.sorted()
        self.others = others
    }

    func contains(_ id: String) -> Bool {
        guard let value = Self.value(id) else { return others.contains(id) }
        var (low, high) = (0, sorted.count)
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == value
    }

    /// The id's value when it is exactly `JobIdentity.length` lowercase hex digits.
    private static func value(_ id: String) -> UInt64? {
        guard id.utf8.count == JobIdentity.length, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        return UInt64(id, radix: 16)
    }
}
