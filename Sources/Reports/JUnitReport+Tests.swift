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
        var order: [String] = []
        var byName: [String: TestRuns] = [:]
        for attempt in job.attempts where !attempt.superseded && attempt.outcome != nil {
            for step in attempt.steps where step.key.hasPrefix(CommandTemplate.testStepPrefix) {
                let name = String(step.key.dropFirst(CommandTemplate.testStepPrefix.count))
                if byName[name] == nil { order.append(name) }
                byName[name, default: TestRuns(name: name)].runs.append((attempt, step))
            }
        }
        return order.compactMap { byName[$0] }
    }

    /// Whether `job` reports tests of its own (then it is never a bare test case).
    static func hasTests(_ job: JobReport) -> Bool {
        job.attempts.contains { $0.steps.contains { $0.key.hasPrefix(CommandTemplate.testStepPrefix) } }
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
            let earlierFailures = test.runs.dropLast().filter { [.failed, .timedOut].contains($0.step.outcome) }
            var body = ""
            func element(_ name: String, _ run: (attempt: AttemptReport, step: StepResult), trace: Bool) {
                let message = "attempt \(run.attempt.attempt): " + (run.step.message ?? run.step.outcome.rawValue)
                let detail = "job \(job.id) attempt \(run.attempt.attempt) on worker "
                    + (run.attempt.row.worker.isEmpty ? "?" : run.attempt.row.worker) + ": \(test.name) \(run.step.outcome.rawValue)"
                    + (run.step.message.map { ": \($0)" } ?? "")
                let content = trace ? "<stackTrace>\(t(detail))</stackTrace>" : t(detail)
                body += "      <\(name) message=\"\(a(message))\" type=\"\(a(run.step.outcome.rawValue))\">\(content)</\(name)>\n"
            }
            let status = RunDiff.testStatus(test.runs.map(\.step.outcome))
            switch last.step.outcome {
            case .passed:
                for run in earlierFailures { element(run.step.outcome == .failed ? "flakyFailure" : "flakyError", run, trace: true) }
            case .failed, .errored, .timedOut, .lost:
                element(last.step.outcome == .failed ? "failure" : "error", last, trace: false)
                for run in earlierFailures { element(run.step.outcome == .failed ? "rerunFailure" : "rerunError", run, trace: true) }
            case .skipped, .cancelled:
                body += "      <skipped message=\"\(a(last.step.message ?? last.step.outcome.rawValue))\"/>\n"
            }
            tally.add(status)
            text += caseOpening(names, last.step.duration) + (body.isEmpty ? "/>\n" : ">\n" + body + "    </testcase>\n")
        }
        return (text, tally)
    }
}
