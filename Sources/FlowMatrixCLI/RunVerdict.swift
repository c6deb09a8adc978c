import FlowVocabulary
import Worker

/// The exit code of a finished run from its jobs' outcomes, one rule for `run`, `serve` and `merge`: **1** when a
/// job failed, timed out or was quarantined (with `--strict`, also when one is flaky), else **0**. Jobs that never
/// ran (fail-fast, cancelled) do not fail a run that completed. `junit.xml` has a `<failure>` or `<error>` exactly
/// for the jobs this rule counts (docs/REPORTS.md), so CI reading it agrees with the exit code.
enum RunVerdict {
    /// - Parameter count: the number of jobs with an outcome.
    static func exitCode(strict: Bool, count: (JobOutcome) -> Int) -> Int32 {
        let failures = count(.failed) + count(.timedOut) + count(.quarantined)
        return failures > 0 || (strict && count(.flaky) > 0) ? ExitCode.failures : ExitCode.success
    }
}
