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
        let index = RunIndex(report)
        var kept: [Int: [UInt8]] = [:]
        var tallies: [Int: Tally] = [:]
        for job in report.jobs where !isPlainPass(job) {
            let (text, tally) = cases(job, grouping: grouping, multipleRegistries: index.registries.count > 1)
            kept[job.row.ordinal] = Array(text.utf8)
            tallies[job.row.ordinal] = tally
        }
        write(index, grouping: grouping, to: output, tally: { tallies[$0] }) { kept[$0] }
        return output.text
    }

    /// The test cases of the jobs that are more than a plain pass, collected as the jobs stream by in plan order:
    /// their XML goes to a temporary file and only its place is kept, so ``write(_:grouping:to:kept:)`` can put them
    /// into their suites afterwards. A plain pass is written from the index alone.
    final class Cases {
        let grouping: JUnitGrouping
        let multipleRegistries: Bool
        private let file: FileHandle
        private let url: URL
        private var buffer: [UInt8] = []
        private var length = 0
        /// Plan position → byte range in the file.
        private var places: [Int: Range<Int>] = [:]
        /// Plan position → the counts of a job written as several test cases (a command job's tests).
        private var tallies: [Int: Tally] = [:]

        /// Collects into a temporary file in `folder` (removed when this is released).
        init(grouping: JUnitGrouping, multipleRegistries: Bool, folder: URL) throws {
            self.grouping = grouping
            self.multipleRegistries = multipleRegistries
            url = folder.appendingPathComponent(".junit-cases-\(UUID().uuidString).tmp")
            file = try ReportOutput.createTemporary(url, for: folder.appendingPathComponent("junit.xml"))
        }

        deinit {
            try? file.close()
            try? FileManager.default.removeItem(at: url)
        }

        /// Keeps the test case of `job` unless it is a plain pass.
        func add(_ job: JobReport) {
            guard !JUnitReport.isPlainPass(job) else { return }
            let (xml, tally) = JUnitReport.cases(job, grouping: grouping, multipleRegistries: multipleRegistries)
            if JUnitReport.hasTests(job) { tallies[job.row.ordinal] = tally }
            let text = Array(xml.utf8)
            places[job.row.ordinal] = length..<(length + text.count)
            length += text.count
            buffer += text
            if buffer.count >= 1 << 20 { try? flush() }
        }

        /// Writes the buffered test cases (a failure here shows again, thrown, on the next ``text(_:)``).
        private func flush() throws {
            guard !buffer.isEmpty else { return }
            try file.seekToEnd()
            try file.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        /// The counts of the job at plan position `ordinal` when it is written as its tests' cases, else nil.
        func tally(_ ordinal: Int) -> Tally? { tallies[ordinal] }

        /// The kept test case of the job at plan position `ordinal`, or nil for a plain pass.
        func text(_ ordinal: Int) throws -> [UInt8]? {
            guard let range = places[ordinal] else { return nil }
            try flush()
            try file.seek(toOffset: UInt64(range.lowerBound))
            return [UInt8](try file.read(upToCount: range.count) ?? Data())
        }
    }

    /// The suites of a run: one per scenario or configuration, in order of their first job in the plan.
    struct Suites {
        var names: [String] = []
        /// Suite index per job (plan order).
        var suiteOf: [Int] = []
        var tallies: [Tally] = []
        var times: [Double] = []

        /// `tally(position)`: the counts of a job written as several test cases (nil: the job is one case).
        init(_ index: RunIndex, grouping: JUnitGrouping, tally: (Int) -> Tally? = { _ in nil }) {
            let multipleRegistries = index.registries.count > 1
            var position: [String: Int] = [:]
            suiteOf.reserveCapacity(index.jobs.count)
            for (ordinal, job) in index.jobs.enumerated() {
                let key = grouping == .scenario
                    ? index.scenarioID(job)
                    : JUnitReport.configurationName(index.configurationText(job), index.registry(job), multipleRegistries)
                let suite: Int
                if let known = position[key] { suite = known } else {
                    suite = names.count
                    position[key] = suite
                    names.append(key)
                    tallies.append(Tally())
                    times.append(0)
                }
                suiteOf.append(suite)
                if let own = tally(ordinal) { tallies[suite].add(own) } else { tallies[suite].add(job.status) }
                times[suite] += job.duration ?? 0
            }
        }
    }

    /// Writes the XML document suite by suite: each job's kept test case (`kept(plan position)`, nil for a plain
    /// pass), a plain pass from the index.
    static func write(_ index: RunIndex, grouping: JUnitGrouping, to out: ReportOutput,
                      tally: (Int) -> Tally? = { _ in nil }, kept: (Int) throws -> [UInt8]?) rethrows {
        let multipleRegistries = index.registries.count > 1
        let suites = Suites(index, grouping: grouping, tally: tally)
        let timestamp = Format.timestamp(index.run.info.startedAt).replacingOccurrences(of: "Z", with: "")
        var totals = Tally()
        for (position, job) in index.jobs.enumerated() {
            if let own = tally(position) { totals.add(own) } else { totals.add(job.status) }
        }
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"\(a("flowmatrix \(index.run.info.matrixName) \(index.runID)"))\""
            + " tests=\"\(totals.tests)\" failures=\"\(totals.failures)\" errors=\"\(totals.errors)\""
            + " skipped=\"\(totals.skipped)\" time=\"\(Format.junitTime(index.duration))\" timestamp=\"\(timestamp)\">\n"
        // The jobs of each suite, in plan order (a counting sort by suite).
        var starts = Array(repeating: 0, count: suites.names.count + 1)
        for suite in suites.suiteOf { starts[suite + 1] += 1 }
        for i in suites.names.indices { starts[i + 1] += starts[i] }
        var next = starts
        var ordered = Array(repeating: Int32(0), count: index.jobs.count)
        for (position, suite) in suites.suiteOf.enumerated() {
            ordered[next[suite]] = Int32(position)
            next[suite] += 1
        }
        for (suite, name) in suites.names.enumerated() {
            let t = suites.tallies[suite]
            out += "  <testsuite name=\"\(a(name))\" tests=\"\(t.tests)\" failures=\"\(t.failures)\""
                + " errors=\"\(t.errors)\" skipped=\"\(t.skipped)\" time=\"\(Format.junitTime(suites.times[suite]))\""
                + " timestamp=\"\(timestamp)\" hostname=\"flowmatrix\">\n"
            out += "    <properties>\n"
            for (name, value) in [("flowmatrix.run", index.runID), ("flowmatrix.matrix", index.run.info.matrixName),
                                  ("flowmatrix.seed", String(index.run.info.seed)), ("flowmatrix.flaky", String(t.flaky))] {
                out += "      <property name=\"\(a(name))\" value=\"\(a(value))\"/>\n"
            }
            out += "    </properties>\n"
            for position in ordered[starts[suite]..<starts[suite + 1]] {
                if let text = try kept(Int(position)) {
                    out.write(bytes: text)
                    continue
                }
                let job = index.jobs[Int(position)]
                let config = configurationName(index.configurationText(job), index.registry(job), multipleRegistries)
                let scenario = index.scenarioID(job)
                // The same text as `caseOpening(…) + "/>\n"`, in pieces: a large run has 100,000 of these.
                let names = grouping == .scenario ? (classname: scenario, name: config) : (classname: config, name: scenario)
                out += "    <testcase name=\""
                out += a(names.name)
                out += "\" classname=\""
                out += a(names.classname)
                out += "\" time=\""
                out += Format.junitTime(job.duration)
                out += "\"/>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
    }

    /// Passed on its only attempt and reports no tests of its own: a bare test case.
    static func isPlainPass(_ job: JobReport) -> Bool {
        job.status == .passed && job.attempts.count == 1 && !job.attempts[0].superseded && !hasTests(job)
    }

    /// The XML of a job that is not a plain pass and its counts: one case, or a command job's tests' cases (a job
    /// whose attempts ran no test, e.g. its command never started, stays one case).
    static func cases(_ job: JobReport, grouping: JUnitGrouping, multipleRegistries: Bool) -> (text: String, tally: Tally) {
        let tests = tests(of: job)
        if !tests.isEmpty { return testCases(job, tests, grouping: grouping, multipleRegistries: multipleRegistries) }
        var tally = Tally()
        tally.add(job.status)
        return (testcase(job, grouping: grouping, multipleRegistries: multipleRegistries), tally)
    }

    /// `    <testcase name="…" classname="…" time="…"` (not closed).
    static func caseOpening(_ names: (classname: String, name: String), _ duration: Double?) -> String {
        "    <testcase name=\"\(a(names.name))\" classname=\"\(a(names.classname))\" time=\"\(Format.junitTime(duration))\""
    }

    static func a(_ s: String) -> String { Escape.xml(s, attribute: true) }
    static func t(_ s: String) -> String { Escape.xml(s) }

    struct Tally {
        var tests = 0, failures = 0, errors = 0, skipped = 0, flaky = 0

        mutating func add(_ other: Tally) {
            tests += other.tests
            failures += other.failures
            errors += other.errors
            skipped += other.skipped
            flaky += other.flaky
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

    fileprivate static func testcase(_ job: JobReport, grouping: JUnitGrouping, multipleRegistries: Bool) -> String {
        let config = configurationName(job.job.configuration, job.job.registry, multipleRegistries)
        var out = caseOpening(grouping == .scenario ? (job.job.scenarioID, config) : (config, job.job.scenarioID),
                              job.row.result?.duration)
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
        // A plain pass (one attempt) is a bare test case: classname, name and time are what CI reads, and a
        // 100,000-job run has that many of them.
        if isPlainPass(job) { return out + "/>\n" }
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
