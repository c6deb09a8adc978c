import Foundation
import Journal
import MatrixPlan

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
///
/// A `<failure>` or `<error>` is written exactly for the jobs that make `flowmatrix run` exit 1 (failed, timed out,
/// quarantined): a command job that reports tests also gets a case of its own (``commandCaseName``) whenever it did
/// not pass, and its tests never fail a job that passed (``TestVerdict``).
public enum JUnitReport {
    /// The XML document of `report`.
    public static func xml(_ report: RunReport, grouping: JUnitGrouping = .scenario) throws -> String {
        let output = ReportOutput()
        let index = try RunIndex(report)
        let cases = try Cases(grouping: grouping, multipleRegistries: index.registries.count > 1, folder: nil)
        for job in report.jobs { cases.add(job) }
        try write(index, grouping: grouping, cases: cases, to: output)
        return output.text
    }

    /// The test cases of the jobs that are more than a plain pass, collected as the jobs stream by in plan order:
    /// their XML goes to one scratch file and their places (with the counts of a command job's tests) to another, so
    /// ``write(_:grouping:cases:to:)`` can put them into their suites afterwards. A plain pass is written from the
    /// index alone.
    final class Cases {
        let grouping: JUnitGrouping
        let multipleRegistries: Bool
        private let texts: ScratchFile.Writer
        private let places: ScratchFile.Writer
        private(set) var count = 0
        /// The test cases of every job added so far, by content: the counters of `junit.xml`'s root.
        private(set) var totals = Tally()
        /// The first error writing the scratch files, thrown by ``finish()``.
        private var failure: (any Error)?
        /// Command jobs' tests, for their per-test pivots (``TestPivot``).
        let testInputs = TestPivot.Collector()

        /// Where a kept test case is, and the counts of a job written as its tests' cases.
        struct Place: BitwiseCopyable {
            var ordinal: Int64
            var offset: Int64
            var length: Int64
            var tests: Int32, failures: Int32, errors: Int32, skipped: Int32, flaky: Int32
            var hasTally: Int32

            var tally: Tally? {
                hasTally == 0 ? nil : Tally(tests: Int(tests), failures: Int(failures), errors: Int(errors),
                                            skipped: Int(skipped), flaky: Int(flaky))
            }
        }

        /// Collects into scratch files in `folder` (the system's temporary directory when nil).
        init(grouping: JUnitGrouping, multipleRegistries: Bool, folder: URL?) throws {
            self.grouping = grouping
            self.multipleRegistries = multipleRegistries
            texts = try ScratchFile.Writer(in: folder)
            places = try ScratchFile.Writer(in: folder)
        }

        /// Keeps the test case of `job` unless it is a plain pass (jobs come in plan order).
        func add(_ job: JobReport) {
            testInputs.add(job)
            guard failure == nil else { return }
            guard !JUnitReport.isPlainPass(job) else {
                totals.tests += 1
                return
            }
            let (xml, tally) = JUnitReport.cases(job, grouping: grouping, multipleRegistries: multipleRegistries)
            totals.add(tally)
            let own = JUnitReport.hasTests(job) ? tally : nil
            do {
                let offset = texts.offset
                try xml.bytes.withUnsafeBytes { try texts.append($0) }
                try places.append(Place(
                    ordinal: Int64(job.row.ordinal), offset: Int64(offset), length: Int64(texts.offset - offset),
                    tests: Int32(clamping: own?.tests ?? 0), failures: Int32(clamping: own?.failures ?? 0),
                    errors: Int32(clamping: own?.errors ?? 0), skipped: Int32(clamping: own?.skipped ?? 0),
                    flaky: Int32(clamping: own?.flaky ?? 0), hasTally: own == nil ? 0 : 1))
                count += 1
            } catch {
                failure = error
            }
        }

        /// The kept test cases and their places, ready to read.
        func finish() throws -> (texts: ScratchFile, places: ScratchFile) {
            if let failure { throw failure }
            return (try texts.finish(), try places.finish())
        }
    }

    /// Passed on its only attempt and reports no tests of its own: a bare test case.
    static func isPlainPass(_ job: JobReport) -> Bool {
        job.status == .passed && job.attempts.count == 1 && !job.attempts[0].superseded && !hasTests(job)
    }

    /// The XML of a job that is not a plain pass and its counts: one case, or a command job's tests' cases plus,
    /// unless it passed, its own case (a job whose attempts ran no test, e.g. its command never started, stays one
    /// case).
    static func cases(_ job: JobReport, grouping: JUnitGrouping, multipleRegistries: Bool) -> (xml: XMLBytes, tally: Tally) {
        let tests = tests(of: job)
        var tally = Tally()
        var out = XMLBytes()
        guard !tests.isEmpty else {
            tally.add(job.status)
            testcase(job, grouping: grouping, multipleRegistries: multipleRegistries, into: &out)
            return (out, tally)
        }
        let (text, testsTally) = testCases(job, tests, grouping: grouping, multipleRegistries: multipleRegistries)
        out.raw(text)
        tally.add(testsTally)
        // A command job that did not pass is a case of its own too, carrying its exit status and stderr tail: its
        // tests may all have passed (a coverage gate, a crash in teardown, a result file that does not parse).
        if job.status != .passed {
            testcase(job, grouping: grouping, multipleRegistries: multipleRegistries, commandCase: true, into: &out)
            tally.add(job.status)
        }
        return (out, tally)
    }

    /// The `name` of a command job's own case: `(command) [configuration]` by scenario, `<scenario id> (command)` by
    /// configuration. The parentheses keep it apart from its tests' names (`classname.name [configuration]`).
    static func commandCaseName(scenarioID: String, configuration: String, grouping: JUnitGrouping) -> String {
        grouping == .scenario ? "(command) [\(configuration)]" : "\(scenarioID) (command)"
    }

    /// `    <testcase name="…" classname="…" time="…"` (not closed).
    static func caseOpening(_ names: (classname: String, name: String), _ duration: Double?) -> String {
        "    <testcase name=\"\(a(names.name))\" classname=\"\(a(names.classname))\" time=\"\(Format.junitTime(duration))\""
    }

    static func a(_ s: String) -> String { Escape.xml(s, attribute: true) }
    static func t(_ s: String) -> String { Escape.xml(s) }

    struct Tally {
        var tests = 0, failures = 0, errors = 0, skipped = 0, flaky = 0

        init(tests: Int = 0, failures: Int = 0, errors: Int = 0, skipped: Int = 0, flaky: Int = 0) {
            (self.tests, self.failures, self.errors, self.skipped, self.flaky) = (tests, failures, errors, skipped, flaky)
        }

        mutating func add(_ other: Tally) {
            tests += other.tests
            failures += other.failures
            errors += other.errors
            skipped += other.skipped
            flaky += other.flaky
        }

        /// Counts one test case whose content is `verdict`.
        mutating func add(_ verdict: TestVerdict) {
            tests += 1
            switch verdict {
            case .failure: failures += 1
            case .error: errors += 1
            case .skipped: skipped += 1
            case .flaky: flaky += 1
            case .passed: break
            }
        }

        mutating func add(_ status: CellStatus) {
            tests += 1
            switch status {
            case .failed: failures += 1
            case .timedOut, .quarantined: errors += 1
            case .notRun: skipped += 1
            case .flaky: flaky += 1
            case .passed: break
            }
        }
    }

    static func configurationName(_ configuration: String, _ registry: String, _ multipleRegistries: Bool) -> String {
        let config = configuration.isEmpty ? "default" : configuration
        return multipleRegistries ? "\(config) @\(registry)" : config
    }

    /// `step 3 (tap checkout): message` from an attempt or the job result.
    static func failureText(step: Int?, steps: [StepResult], message: String?) -> String {
        var parts: [String] = []
        if let step {
            let key = steps.first { $0.index == step }?.key
            parts.append("step \(step + 1)" + (key.map { " (\($0))" } ?? ""))
        }
        if let message, !message.isEmpty { parts.append(message) }
        return parts.isEmpty ? "no message" : parts.joined(separator: ": ")
    }

    /// An attempt's details — its worker, outcome and steps, one per line — appended to `out` as XML text.
    private static func attemptDetails(_ job: JobReport, _ attempt: AttemptReport, into out: inout XMLBytes) {
        out.text("job \(job.id) attempt \(attempt.attempt) on worker \(attempt.row.worker.isEmpty ? "?" : attempt.row.worker)")
        out.text(" (\(attempt.outcome?.rawValue ?? "unfinished"), \(Format.seconds(attempt.row.result?.duration)))")
        // A command job's tests have cases of their own: its case lists the command's step only.
        for step in attempt.steps where !CommandTemplate.isTestStep(step.key) {
            out.raw("\n  [")
            out.raw(step.index + 1)
            out.raw("] ")
            out.text(step.key)
            out.raw(": ")
            out.raw(step.outcome.rawValue)
            out.raw(" in ")
            out.raw(Format.seconds(step.duration))
            if let m = step.message, !m.isEmpty {
                out.raw(": ")
                out.text(m)
            }
            if let i = step.interruptions, !i.isEmpty {
                out.raw(" (interruptions: ")
                out.text(i)
                out.raw(")")
            }
        }
    }

    /// A job's own test case (a scenario job's, or with `commandCase` a command job's beside its tests' cases),
    /// appended to `out`: written as bytes, since a large run has tens of thousands of failing jobs.
    fileprivate static func testcase(_ job: JobReport, grouping: JUnitGrouping, multipleRegistries: Bool,
                                     commandCase: Bool = false, into out: inout XMLBytes) {
        let config = configurationName(job.job.configuration, job.job.registry, multipleRegistries)
        var name = grouping == .scenario ? config : job.job.scenarioID
        if commandCase { name = commandCaseName(scenarioID: job.job.scenarioID, configuration: config, grouping: grouping) }
        let names = grouping == .scenario ? (classname: job.job.scenarioID, name: name) : (classname: config, name: name)
        out.raw("    <testcase name=\"")
        out.attribute(names.name)
        out.raw("\" classname=\"")
        out.attribute(names.classname)
        out.raw("\" time=\"")
        out.raw(Format.junitTime(job.row.result?.duration))
        out.raw("\"")
        // A plain pass (one attempt) is a bare test case: classname, name and time are what CI reads, and a
        // 100,000-job run has that many of them.
        if isPlainPass(job) {
            out.raw("/>\n")
            return
        }
        out.raw(">\n")
        let deciding = job.decidingAttempt
        let others = job.attempts.filter {
            !$0.superseded && $0.attempt != deciding?.attempt && $0.outcome != nil && $0.outcome != .passed
        }
        func attemptMessage(_ at: AttemptReport) -> String {
            failureText(step: at.row.result?.failureStep, steps: at.steps, message: at.row.result?.message)
        }
        func open(_ element: String, type: String, message: String) {
            out.raw("      <")
            out.raw(element)
            out.raw(" message=\"")
            out.attribute(message)
            out.raw("\" type=\"")
            out.attribute(type)
            out.raw("\">")
        }
        func main(_ element: String, type: String, message: String) {
            open(element, type: type, message: message)
            if let deciding { attemptDetails(job, deciding, into: &out) } else { out.text("job \(job.id)") }
            out.raw("</\(element)>\n")
        }
        func rerun(_ prefix: String) {
            // The schema's order: every `…Failure` before every `…Error`, each in attempt order.
            for at in others.filter({ $0.outcome == .failed }) + others.filter({ $0.outcome != .failed }) {
                let element = prefix + (at.outcome == .failed ? "Failure" : "Error")
                open(element, type: at.outcome?.rawValue ?? "failed", message: attemptMessage(at))
                out.raw("<stackTrace>")
                attemptDetails(job, at, into: &out)
                out.raw("</stackTrace></\(element)>\n")
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
            out.raw("      <skipped message=\"")
            out.attribute(result?.failureMessage.map { "\(why): \($0)" } ?? why)
            out.raw("\"/>\n")
        }
        systemOut(job, into: &out)
        out.raw("    </testcase>\n")
    }

    /// `<system-out>`: the job, its status and each attempt's outcome and worker.
    private static func systemOut(_ job: JobReport, into out: inout XMLBytes) {
        out.raw("      <system-out>")
        out.text("job \(job.id) scenario \(job.job.scenarioID) \"\(job.job.scenarioTitle)\" configuration \(job.job.configuration)")
        out.text(" registry \(job.job.registry): \(job.status.label) after \(job.attempts.count) attempt(s)")
        for at in job.attempts {
            out.text("\nattempt \(at.attempt): \(at.outcome?.rawValue ?? "unfinished") on \(at.row.worker.isEmpty ? "?" : at.row.worker)")
            if at.superseded { out.raw(" (superseded)") }
        }
        out.raw("</system-out>\n")
    }
}

/// XML written as UTF-8 bytes: markup as is, text and attribute values escaped (``Escape/xml(_:attribute:into:)``).
struct XMLBytes {
    var bytes: [UInt8] = []

    /// Markup, or text known to need no escape.
    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func raw(_ value: Int) { raw(String(value)) }
    mutating func text(_ text: String) { Escape.xml(text, into: &bytes) }
    mutating func attribute(_ text: String) { Escape.xml(text, attribute: true, into: &bytes) }
}
