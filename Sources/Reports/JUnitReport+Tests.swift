import FlowVocabulary
import Journal
import MatrixPlan

/// Command jobs report each test of their result files as a step keyed `test:<classname>.<name>`
/// (docs/COMMAND-JOBS.md). In `junit.xml` such a job is one `<testcase>` per test, not one for the job, with the
/// same outcome rules per test over the job's attempts: the last attempt that ran the test decides; earlier failures
/// of a test that then passed make it flaky (`<flakyFailure>`), of one that failed again rerun elements.
extension JUnitReport {
    /// One test of a job: its step in each finished, not superseded attempt that ran it, in attempt order.
    struct TestRuns {
        var name: String
        var runs: [(attempt: AttemptReport, step: StepResult)] = []
    }

    /// The tests of `job` in order of first appearance; empty for a job that reports none (every scenario job).
    static func tests(of job: JobReport) -> [TestRuns] {
        guard job.job.registry == CommandTemplate.registry else { return [] }
        var order: [String] = []
        var byName: [String: TestRuns] = [:]
        for attempt in job.attempts where !attempt.superseded && attempt.outcome != nil {
            for step in attempt.steps where CommandTemplate.isTestStep(step.key) {
                let name = String(step.key.dropFirst(CommandTemplate.testStepPrefix.count))
                if byName[name] == nil { order.append(name) }
                byName[name, default: TestRuns(name: name)].runs.append((attempt, step))
            }
        }
        return order.compactMap { byName[$0] }
    }

    /// Whether `job` reports tests of its own (then it is never a bare test case).
    static func hasTests(_ job: JobReport) -> Bool {
        // Only command jobs report tests (no scenario verb makes a `test:` key): other jobs' steps are not scanned, twice
        // for every job of a large run.
        job.job.registry == CommandTemplate.registry
            && job.attempts.contains { $0.steps.contains { CommandTemplate.isTestStep($0.key) } }
    }

    /// The test cases of a job's tests, and their tally for the suite counters.
    static func testCases(_ job: JobReport, _ tests: [TestRuns], grouping: JUnitGrouping, multipleRegistries: Bool)
        -> (text: String, tally: Tally)
    {
        let config = configurationName(job.job.configuration, job.job.registry, multipleRegistries)
        var text = "", tally = Tally()
        for test in tests {
            guard let last = test.runs.last else { continue }
            let names = grouping == .scenario ? (job.job.scenarioID, "\(test.name) [\(config)]")
                : (config, "\(job.job.scenarioID) \(test.name)")
            let verdict = TestVerdict(test.runs.map(\.step.outcome), job: job.status)
            var body = ""
            func element(_ name: String, _ run: (attempt: AttemptReport, step: StepResult), trace: Bool, note: String = "") {
                let message = "attempt \(run.attempt.attempt): " + (run.step.message ?? run.step.outcome.rawValue) + note
                let detail = "job \(job.id) attempt \(run.attempt.attempt) on worker "
                    + (run.attempt.row.worker.isEmpty ? "?" : run.attempt.row.worker) + ": \(test.name) \(run.step.outcome.rawValue)"
                    + (run.step.message.map { ": \($0)" } ?? "")
                let content = trace ? "<stackTrace>\(t(detail))</stackTrace>" : t(detail)
                body += "      <\(name) message=\"\(a(message))\" type=\"\(a(run.step.outcome.rawValue))\">\(content)</\(name)>\n"
            }
            /// `…Failure` elements for failed runs, then `…Error` for the others (the schema's order).
            func reruns(_ prefix: String, _ runs: [(attempt: AttemptReport, step: StepResult)], note: String = "") {
                for run in runs where run.step.outcome == .failed { element(prefix + "Failure", run, trace: true, note: note) }
                for run in runs where run.step.outcome != .failed { element(prefix + "Error", run, trace: true, note: note) }
            }
            let failing = test.runs.filter { TestVerdict.failing.contains($0.step.outcome) }
            switch verdict {
            case .passed:
                break
            case .flaky:
                // A test whose last run failed in a job that passed (its command exited 0) is flaky, not failed.
                let note = TestVerdict.failing.contains(last.step.outcome) ? " (the job passed)" : ""
                reruns("flaky", failing, note: note)
            case .failure, .error:
                element(verdict == .failure ? "failure" : "error", last, trace: false)
                reruns("rerun", Array(failing.dropLast()))
            case .skipped:
                var why = last.step.message ?? last.step.outcome.rawValue
                if TestVerdict.failing.contains(last.step.outcome) {
                    why = "not run: the job did not finish; attempt \(last.attempt.attempt): \(last.step.outcome.rawValue)"
                        + (last.step.message.map { ": \($0)" } ?? "")
                }
                body += "      <skipped message=\"\(a(why))\"/>\n"
            }
            tally.add(verdict)
            text += caseOpening(names, last.step.duration) + (body.isEmpty ? "/>\n" : ">\n" + body + "    </testcase>\n")
        }
        return (text, tally)
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
