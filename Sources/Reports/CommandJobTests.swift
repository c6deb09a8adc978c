import FlowVocabulary
import Journal
import MatrixPlan

/// A command job's tests: its steps keyed `test:<classname>.<name>` (docs/COMMAND-JOBS.md), grouped and judged the
/// same way wherever a test's verdict is shown: junit.xml, `summary.json`, the per-test pivot, `diff` and `isolate`.
public enum CommandJobTests {
    /// The tests the steps of `attempts` report, in order of first appearance, each with its step in every attempt
    /// that ran it, in attempt order. The caller passes the attempts that count (finished, not superseded).
    public static func runs<Attempt>(_ attempts: [Attempt], steps: (Attempt) -> [StepResult])
        -> [(name: String, runs: [(attempt: Attempt, step: StepResult)])]
    {
        var order: [String] = []
        var byName: [String: [(attempt: Attempt, step: StepResult)]] = [:]
        for attempt in attempts {
            for step in steps(attempt) where CommandTemplate.isTestStep(step.key) {
                let name = String(step.key.dropFirst(CommandTemplate.testStepPrefix.count))
                if byName[name] == nil { order.append(name) }
                byName[name, default: []].append((attempt, step))
            }
        }
        return order.map { ($0, byName[$0] ?? []) }
    }
}

/// What a command job's test case holds. The test's runs (its step in each attempt that ran it) decide, within what
/// its job's outcome allows: only a job that failed, timed out or was quarantined — one that makes `flowmatrix run`
/// exit 1 — has tests with a `<failure>` or `<error>`; in a job that passed or was flaky a test whose last run failed
/// is flaky (the command exited 0, so the job passed), in a job that did not run to a verdict it is skipped.
public enum TestVerdict: Sendable, Hashable {
    /// No element.
    case passed
    /// `<flakyFailure>` / `<flakyError>` per failing run; CI counts it passed.
    case flaky
    /// `<failure>` (the last run failed), plus rerun elements.
    case failure
    /// `<error>` (the last run errored, timed out or lost its worker), plus rerun elements.
    case error
    /// `<skipped>`.
    case skipped

    /// Step outcomes that count as a failing run of a test.
    public static let failing: Set<StepOutcome> = [.failed, .errored, .timedOut, .lost]

    /// - Parameters:
    ///   - outcomes: the test's step outcome in each attempt that ran it, in attempt order (not empty).
    ///   - job: its job's status.
    public init(_ outcomes: [StepOutcome], job: CellStatus) {
        let last = outcomes.last ?? .skipped
        let lastFails = Self.failing.contains(last)
        let failedBefore = outcomes.dropLast().contains { Self.failing.contains($0) }
        if last == .skipped || last == .cancelled {
            self = .skipped
            return
        }
        switch job {
        case .failed, .timedOut, .quarantined:
            self = lastFails ? (last == .failed ? .failure : .error) : (failedBefore ? .flaky : .passed)
        case .passed, .flaky:
            self = lastFails || failedBefore ? .flaky : .passed
        case .notRun:
            self = lastFails ? .skipped : (failedBefore ? .flaky : .passed)
        }
    }
}
