/// A configuration of a subject: what an ``IsolationSession`` keeps evidence by.
struct IsolationKey: Hashable {
    var subject: Subject
    var configuration: [String: String]

    /// A stable order: by subject, then by configuration.
    func precedes(_ other: IsolationKey) -> Bool {
        subject != other.subject ? subject < other.subject
            : Combination(configuration).pairs.lexicographicallyPrecedes(Combination(other.configuration).pairs)
    }
}

/// A kept candidate, tried as deterministic or as intermittent.
struct IsolationTrial: Hashable {
    var combination: Combination
    var intermittent: Bool
}
