/// How an attempt ended, as far as keeping its artifacts is concerned.
public enum AttemptVerdict: Sendable, Hashable, CaseIterable {
    case passed, failed, timedOut, cancelled
}

/// Which attempts keep their artifacts: the matrix file's `keep` setting (`failures|all|none`), as the
/// Artifacts module sees it. (`MatrixPlan.KeepPolicy` is the parsed setting; convert with
/// `ArtifactKeepPolicy(rawValue: policy.rawValue)` — this module sits below MatrixPlan and cannot import it.)
///
/// The coordinator ingests every artifact as it streams in (the outcome is not known yet), and records a
/// journal reference only for kept attempts; `BlobStore.gc(referenced:…)` later removes the rest.
public enum ArtifactKeepPolicy: String, Sendable, Hashable, CaseIterable {
    /// Keep artifacts of failed and timed-out attempts (the default).
    case failures
    /// Keep every attempt's artifacts.
    case all
    /// Keep none.
    case none

    /// The default policy.
    public static let `default` = ArtifactKeepPolicy.failures

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
