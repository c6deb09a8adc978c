/// How one step ended — a scenario step, or one result a step stands for (a command's JUnit test) — and, on the
/// wire, how a worker says an attempt ended.
///
/// The raw values are the journal's strings (`steps.outcome`), and never change. The journal records five of
/// them: a worker's `errored` and `lost` are journaled as `failed` (``journaled``). The protocol's `status` byte
/// is mapped inside `Wire`'s codec only (docs/PROTOCOL.md: 0 passed … 6 lost).
public enum StepOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    case passed
    case failed
    /// Did not run (a skipped test).
    case skipped
    /// Could not be judged: a test's error rather than its failed assertion, or an attempt the worker could not
    /// start (no such registry, a registry that could not be built).
    case errored
    case timedOut
    case cancelled
    /// (Attempts only) the worker could not run the attempt — its browser or device died — so there is no test
    /// result: the coordinator counts it like a lost worker (``AttemptStatus/lost``).
    case lost

    /// The outcome the journal records for a step reported with this outcome: a `lost` step is `failed` (the
    /// attempt is what was lost); `errored` is kept since journal schema 4, so a command's test that errored (a
    /// pytest fixture that raised) stays an `<error>` in junit.xml rather than a `<failure>`.
    public var journaled: StepOutcome {
        switch self {
        case .lost: .failed
        case .passed, .failed, .skipped, .errored, .timedOut, .cancelled: self
        }
    }
}

/// How one attempt of a job ended, as the coordinator's scheduler counts it.
public enum AttemptStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case passed, failed, timedOut
    /// The worker died or vanished while running it, or said its machinery died; does not use up a retry.
    case lost
    /// Cancelled by the coordinator (fail-fast, abort, drain).
    case cancelled
    /// Taken back before it started (work stealing, stop): it ran nowhere, uses no retry and is not a loss.
    case revoked

    /// How the scheduler counts an attempt a worker reported as `outcome`: `errored` and `skipped` are failures.
    public init(reported outcome: StepOutcome) {
        switch outcome {
        case .passed: self = .passed
        case .failed, .errored, .skipped: self = .failed
        case .timedOut: self = .timedOut
        case .cancelled: self = .cancelled
        case .lost: self = .lost
        }
    }
}

/// The outcome of a job (final) or of one attempt, as the journal records it (`jobs.outcome`, `attempts.outcome`).
public enum JobOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    case passed, failed, flaky, timedOut, quarantined, cancelled, notRun

    /// The journal's outcome of an attempt that ended with `status`: a lost attempt is `cancelled` (it proves
    /// nothing about the job), one taken back before it started is `notRun`.
    public init(_ status: AttemptStatus) {
        switch status {
        case .passed: self = .passed
        case .failed: self = .failed
        case .timedOut: self = .timedOut
        case .lost, .cancelled: self = .cancelled
        case .revoked: self = .notRun
        }
    }

    /// Whether a duration with this outcome says how long the job takes (used by history medians).
    public var measuresDuration: Bool {
        switch self {
        case .passed, .failed, .flaky, .timedOut: true
        case .quarantined, .cancelled, .notRun: false
        }
    }

    /// True for outcomes that fail a run (flaky fails it only under `--strict`).
    public var isFailure: Bool { self == .failed || self == .timedOut || self == .quarantined }
}
