/// A combination an ``IsolationSession`` confirmed, with the follow-up jobs that decided it.
public struct IsolationConfirmation: Sendable, Hashable {
    public var subject: Subject
    public var combination: Combination
    public var jobs: [String]
    /// Confirmed as intermittent: it failed an attempt in a clean configuration, though jobs holding it passed too.
    public var intermittent = false
}
