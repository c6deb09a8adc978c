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
        return CommandJobTests.runs(job.attempts.filter { !$0.superseded && $0.outcome != nil }, steps: \.steps)
            .map { TestRuns(name: $0.name, runs: $0.runs) }
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
