import Foundation
import Journal

/// How `junit.xml` groups test cases into `<testsuite>` elements.
public enum JUnitGrouping: String, Sendable, Hashable, CaseIterable {
    /// One suite per scenario (classname = scenario id, name = configuration). The default.
    case scenario
    /// One suite per configuration (classname = configuration, name = scenario id).
    case configuration
}

/// `junit.xml` in the Surefire / JUnit schema CI systems read.
///
/// Outcome → element of the `<testcase>` (the deciding attempt gives the main element, every other attempt that
/// did not pass and was not superseded gives a rerun or flaky element, in attempt order):
/// - passed: no child element.
/// - flaky: `<flakyFailure>` (failed attempt) or `<flakyError>` (timed-out or lost attempt) per failed attempt;
///   no `<failure>`, so CI counts the test as passed and flaky.
/// - failed: `<failure type="failed">` with the failing step index and message, plus `<rerunFailure>` /
///   `<rerunError>` for the other failed attempts.
/// - timed out: `<error type="timedOut">`, plus rerun elements.
/// - quarantined: `<error type="quarantined">` (the job kept killing workers).
/// - not run / cancelled: `<skipped>`.
public enum JUnitReport {
    /// The XML document of `report`.
    public static func xml(_ report: RunReport, grouping: JUnitGrouping = .scenario) -> String {
        let output = ReportOutput()
        write(report, grouping: grouping, to: output)
        return output.text
    }

    /// Writes the XML document of `report` test case by test case.
    static func write(_ report: RunReport, grouping: JUnitGrouping, to out: ReportOutput) {
        let multipleRegistries = report.registries.count > 1
        var suites: [(name: String, jobs: [JobReport])] = []
        var index: [String: Int] = [:]
        for job in report.jobs {
            let key = grouping == .scenario ? job.job.scenarioID : configurationName(job, multipleRegistries)
            if let i = index[key] { suites[i].jobs.append(job) } else {
                index[key] = suites.count
                suites.append((key, [job]))
            }
        }
        let timestamp = Format.timestamp(report.run.info.startedAt).replacingOccurrences(of: "Z", with: "")
        let totals = tally(report.jobs)
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"\(a("flowmatrix \(report.run.info.matrixName) \(report.runID)"))\""
            + " tests=\"\(totals.tests)\" failures=\"\(totals.failures)\" errors=\"\(totals.errors)\""
            + " skipped=\"\(totals.skipped)\" time=\"\(Format.junitTime(report.duration))\" timestamp=\"\(timestamp)\">\n"
        for suite in suites {
            let t = tally(suite.jobs)
            let time = suite.jobs.reduce(0.0) { $0 + ($1.row.result?.duration ?? 0) }
            out += "  <testsuite name=\"\(a(suite.name))\" tests=\"\(t.tests)\" failures=\"\(t.failures)\""
                + " errors=\"\(t.errors)\" skipped=\"\(t.skipped)\" time=\"\(Format.junitTime(time))\""
                + " timestamp=\"\(timestamp)\" hostname=\"flowmatrix\">\n"
            out += "    <properties>\n"
            for (name, value) in [("flowmatrix.run", report.runID), ("flowmatrix.matrix", report.run.info.matrixName),
                                  ("flowmatrix.seed", String(report.run.info.seed)), ("flowmatrix.flaky", String(t.flaky))] {
                out += "      <property name=\"\(a(name))\" value=\"\(a(value))\"/>\n"
            }
            out += "    </properties>\n"
            for job in suite.jobs { out += testcase(job, grouping: grouping, multipleRegistries: multipleRegistries) }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
    }

    private static func a(_ s: String) -> String { Escape.xml(s, attribute: true) }
    private static func t(_ s: String) -> String { Escape.xml(s) }

    private struct Tally { var tests = 0, failures = 0, errors = 0, skipped = 0, flaky = 0 }

    private static func tally(_ jobs: [JobReport]) -> Tally {
        var t = Tally()
        for job in jobs {
            t.tests += 1
            switch job.status {
            case .failed: t.failures += 1
            case .timedOut, .quarantined: t.errors += 1
            case .notRun: t.skipped += 1
            case .flaky: t.flaky += 1
            case .passed: break
            }
        }
        return t
    }

    static func configurationName(_ job: JobReport, _ multipleRegistries: Bool) -> String {
        let config = job.job.configuration.isEmpty ? "default" : job.job.configuration
        return multipleRegistries ? "\(config) @\(job.job.registry)" : config
    }

    /// `step 3 (tap checkout): message` from an attempt or the job result.
    static func failureText(step: Int?, steps: [StepResult], message: String?) -> String {
        var parts: [String] = []
        if let step {
            let key = steps.first { $0.index == step }?.key
            parts.append("step \(step)" + (key.map { " (\($0))" } ?? ""))
        }
        if let message, !message.isEmpty { parts.append(message) }
        return parts.isEmpty ? "no message" : parts.joined(separator: ": ")
    }

    private static func attemptDetails(_ job: JobReport, _ attempt: AttemptReport) -> String {
        var lines = ["job \(job.id) attempt \(attempt.attempt) on worker \(attempt.row.worker.isEmpty ? "?" : attempt.row.worker)"
                     + " (\(attempt.outcome?.rawValue ?? "unfinished"), \(Format.seconds(attempt.row.result?.duration)))"]
        for step in attempt.steps {
            var line = "  [\(step.index)] \(step.key): \(step.outcome.rawValue) in \(Format.seconds(step.duration))"
            if let m = step.message, !m.isEmpty { line += ": \(m)" }
            if let i = step.interruptions, !i.isEmpty { line += " (interruptions: \(i))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private static func testcase(_ job: JobReport, grouping: JUnitGrouping, multipleRegistries: Bool) -> String {
        let config = configurationName(job, multipleRegistries)
        let (classname, name) = grouping == .scenario ? (job.job.scenarioID, config) : (config, job.job.scenarioID)
        var out = "    <testcase name=\"\(a(name))\" classname=\"\(a(classname))\""
            + " time=\"\(Format.junitTime(job.row.result?.duration))\""
        let deciding = job.decidingAttempt
        let others = job.attempts.filter {
            !$0.superseded && $0.attempt != deciding?.attempt && $0.outcome != nil && $0.outcome != .passed
        }
        var body = ""
        func attemptMessage(_ at: AttemptReport) -> String {
            failureText(step: at.row.result?.failureStep, steps: at.steps, message: at.row.result?.message)
        }
        func main(_ element: String, type: String, message: String) {
            let details = deciding.map { attemptDetails(job, $0) } ?? "job \(job.id)"
            body += "      <\(element) message=\"\(a(message))\" type=\"\(a(type))\">\(t(details))</\(element)>\n"
        }
        func rerun(_ prefix: String) {
            for at in others {
                let element = prefix + (at.outcome == .failed ? "Failure" : "Error")
                body += "      <\(element) message=\"\(a(attemptMessage(at)))\" type=\"\(a(at.outcome?.rawValue ?? "failed"))\">"
                    + "<stackTrace>\(t(attemptDetails(job, at)))</stackTrace></\(element)>\n"
            }
        }
        let result = job.row.result
        let jobMessage = failureText(step: result?.failureStep, steps: deciding?.steps ?? [], message: result?.failureMessage)
        switch job.status {
        case .passed:
            break
        case .flaky:
            rerun("flaky")
        case .failed:
            main("failure", type: "failed", message: jobMessage)
            rerun("rerun")
        case .timedOut:
            main("error", type: "timedOut", message: "timed out: " + jobMessage)
            rerun("rerun")
        case .quarantined:
            main("error", type: "quarantined", message: "quarantined: " + jobMessage)
        case .notRun:
            let why = result?.outcome == .cancelled ? "cancelled" : "not run"
            body += "      <skipped message=\"\(a(result?.failureMessage.map { "\(why): \($0)" } ?? why))\"/>\n"
        }
        var systemOut = "job \(job.id) scenario \(job.job.scenarioID) \"\(job.job.scenarioTitle)\" configuration \(job.job.configuration)"
            + " registry \(job.job.registry): \(job.status.label) after \(job.attempts.count) attempt(s)"
        for at in job.attempts {
            systemOut += "\nattempt \(at.attempt): \(at.outcome?.rawValue ?? "unfinished") on \(at.row.worker.isEmpty ? "?" : at.row.worker)"
                + (at.superseded ? " (superseded)" : "")
        }
        body += "      <system-out>\(t(systemOut))</system-out>\n"
        out += ">\n" + body + "    </testcase>\n"
        return out
    }
}
