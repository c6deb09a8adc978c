/// Which attempts keep their artifacts: the matrix file's `keep` (`failures|all|none`), carried to workers in
/// each ASSIGN (`Wire` maps it to the `keep` byte: 0 failures, 1 all, 2 none).
public enum KeepPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Attempts that did not pass, and passing retries (attempt > 1) of flaky jobs. The default.
    case failures
    /// Every attempt.
    case all
    /// None: the worker records no evidence at all.
    case none

    /// Whether the artifacts of an attempt (1-based) that ended with `outcome` are kept (the worker sends them).
    public func keepsArtifacts(of outcome: StepOutcome, attempt: Int) -> Bool {
        switch self {
        case .all: true
        case .none: false
        case .failures: outcome != .passed || attempt > 1
        }
    }
}
