/// How an attempt ended, as far as keeping its artifacts is concerned.
public enum AttemptVerdict: Sendable, Hashable, CaseIterable {
    case passed, failed, timedOut, cancelled
}

/// Which attempts keep their artifacts (`--keep-artifacts failures|all|none`).
///
/// The coordinator ingests every artifact as it streams in (the outcome is not known yet), and records a
/// journal reference only for kept attempts; `BlobStore.gc(referenced:…)` later removes the rest.
public enum KeepPolicy: String, Sendable, Hashable, CaseIterable {
    /// Keep artifacts of failed and timed-out attempts (the default).
    case failures
    /// Keep every attempt's artifacts.
    case all
    /// Keep none.
    case none

    /// The default policy.
    public static let `default` = KeepPolicy.failures

    /// Whether an attempt with this verdict keeps its artifacts. Cancelled attempts (drained, superseded)
    /// prove nothing and keep them only under `all`.
    public func keepsArtifacts(of verdict: AttemptVerdict) -> Bool {
        switch self {
        case .all: true
        case .none: false
        case .failures: verdict == .failed || verdict == .timedOut
        }
    }
}
