/// A job an ``IsolationSession`` asks for.
public struct IsolationFollowUp: Sendable, Hashable {
    public var subject: Subject
    public var configuration: [String: String]
    /// The candidate it keeps; nil for a repeat of a flaky job or a sample.
    public var target: Combination?
    /// Whether the target is tried as an intermittent suspect.
    public var intermittent = false
    /// Whether it samples around a failing configuration nothing is left to try for (``FailureSampling``).
    public var sample = false
    /// Whether it probes a failing configuration a confirmation explains for a second fault (``SecondFaults``): its
    /// target is the rest of that configuration.
    public var probe = false
}
