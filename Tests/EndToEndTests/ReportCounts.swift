import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a run's report folder and `show` say it counted: `junit.xml` (test cases), `summary.json` (jobs, and
/// junit.xml's counters again as `testCases`), `report.html`'s count chips (jobs) and `show`'s last line (jobs).
struct ReportCounts {
    /// A `<testcase>`: its names and the names of its child elements.
    struct Case {
        var classname: String
        var name: String
        var elements: Set<String>

        var isFailure: Bool { elements.contains("failure") }
        var isError: Bool { elements.contains("error") }
        var isSkipped: Bool { elements.contains("skipped") }
        var isFlaky: Bool {
            !isFailure && !isError && !isSkipped && (elements.contains("flakyFailure") || elements.contains("flakyError"))
        }
        /// A job's own case: a scenario job's (named by its configuration) or a command job's `(command) […]` case,
        /// not one of a command job's tests (`suite.test_a […]`), by scenario.
        var isJobCase: Bool { !name.contains(" [") || name.hasPrefix("(command) [") }
    }

    /// `tests`, `failures`, `errors`, `skipped` (and `flaky`: the suites' `flowmatrix.flaky` summed).
    typealias Counters = [String: Int]

    var root: Counters = [:]
    var suites: [Counters] = []
    var cases: [Case] = []
    /// summary.json's `counts` (jobs per status), `total` and `testCases`.
    var summaryJobs: [String: Int] = [:]
    var summaryTotal = 0
    var summaryTestCases: Counters = [:]
    var schemaVersion = 0
    /// report.html's chips: jobs per status.
    var pageJobs: [String: Int] = [:]

    init(folder: URL) throws {
        try readJUnit(Data(contentsOf: folder.appendingPathComponent("junit.xml")))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("summary.json")))
        let object = summary as? [String: Any] ?? [:]
        summaryJobs = object["counts"] as? [String: Int] ?? [:]
        summaryTotal = object["total"] as? Int ?? -1
        summaryTestCases = object["testCases"] as? [String: Int] ?? [:]
        schemaVersion = object["schemaVersion"] as? Int ?? 0
        let page = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        let chip = try NSRegularExpression(pattern: #"data-count="(\w+)">[^<:]*: (\d+)<"#)
        for match in chip.matches(in: page, range: NSRange(page.startIndex..., in: page)) {
            guard let status = Range(match.range(at: 1), in: page), let count = Range(match.range(at: 2), in: page) else { continue }
            pageJobs[String(page[status])] = Int(page[count])
        }
    }

    /// Counters of the cases themselves, as the attributes should say.
    var fromCases: Counters {
        ["tests": cases.count, "failures": cases.filter(\.isFailure).count, "errors": cases.filter(\.isError).count,
         "skipped": cases.filter(\.isSkipped).count, "flaky": cases.filter(\.isFlaky).count]
    }

    /// The suites' counters summed.
    var fromSuites: Counters {
        suites.reduce(into: Counters()) { sum, suite in suite.forEach { sum[$0.key, default: 0] += $0.value } }
    }

    /// Jobs per status told by the jobs' own cases: a failure is a failed job, an error a timed-out or quarantined
    /// one, a skipped case a job that did not run, a flaky case a flaky job.
    var jobCases: [String: Int] {
        let own = cases.filter(\.isJobCase)
        return ["failed": own.filter(\.isFailure).count, "timedOutOrQuarantined": own.filter(\.isError).count,
                "notRun": own.filter(\.isSkipped).count, "flaky": own.filter(\.isFlaky).count]
    }

    private mutating func readJUnit(_ data: Data) throws {
        final class Reader: NSObject, XMLParserDelegate {
            var root: Counters = [:]
            var suites: [Counters] = []
            var cases: [Case] = []
            var depth = 0
            var inCase = false

            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                depth += 1
                let counters = { Counters(uniqueKeysWithValues: ["tests", "failures", "errors", "skipped"].map {
                    ($0, Int(attributes[$0] ?? "") ?? -1)
                }) }
                switch name {
                case "testsuites": root = counters()
                case "testsuite": suites.append(counters())
                case "property" where attributes["name"] == "flowmatrix.flaky":
                    suites[suites.count - 1]["flaky"] = Int(attributes["value"] ?? "") ?? -1
                case "testcase":
                    cases.append(Case(classname: attributes["classname"] ?? "", name: attributes["name"] ?? "", elements: []))
                    inCase = true
                default:
                    if inCase, depth == 4 { cases[cases.count - 1].elements.insert(name) }
                }
            }

            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                depth -= 1
                if name == "testcase" { inCase = false }
            }
        }
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse() else { throw CocoaError(.fileReadCorruptFile) }
        (root, suites, cases) = (reader.root, reader.suites, reader.cases)
    }
}
