/// A configuration of a subject: what an ``IsolationSession`` keeps evidence by.
struct IsolationKey: Hashable {
    var subject: Subject
    var configuration: [String: String]
}

/// A kept candidate, tried as deterministic or as intermittent.
struct IsolationTrial: Hashable {
    var combination: Combination
    var intermittent: Bool
}
