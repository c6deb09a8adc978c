import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Reports
import Testing

/// A parsed XML element tree (enough to inspect junit.xml).
final class XMLNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLNode] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func all(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }
    func first(_ name: String) -> XMLNode? { children.first { $0.name == name } }

    static func parse(_ data: Data) throws -> XMLNode {
        final class Builder: NSObject, XMLParserDelegate {
            var stack: [XMLNode] = []
            var root: XMLNode?
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                let node = XMLNode(name: name, attributes: attributes)
                stack.last?.children.append(node)
                if root == nil { root = node }
                stack.append(node)
            }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                stack.removeLast()
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
        }
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw FixtureError("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")")
        }
        return root
    }
}

@Suite("JUnit XML")
struct JUnitReportTests {
    private func testcases(_ root: XMLNode) -> [String: XMLNode] {
        var out: [String: XMLNode] = [:]
        for suite in root.all("testsuite") {
            for tc in suite.all("testcase") { out["\(tc.attributes["classname"] ?? "")|\(tc.attributes["name"] ?? "")"] = tc }
        }
        return out
    }

    @Test("one suite per scenario; counts; flaky jobs are flaky, not failed; retries are rerun elements")
    func mapping() throws {
        let written = try WrittenReport()
        let root = try XMLNode.parse(try Data(contentsOf: written.files.junit))
        #expect(root.name == "testsuites")
        #expect(root.attributes["tests"] == "36")
        #expect(root.attributes["failures"] == "3")
        #expect(root.attributes["errors"] == "2")
        #expect(root.attributes["skipped"] == "1")
        #expect(root.all("testsuite").map { $0.attributes["name"] ?? "" } == ["browse", "checkout", "xss"])
        let checkout = try #require(root.all("testsuite").first { $0.attributes["name"] == "checkout" })
        #expect(checkout.attributes["failures"] == "3")
        #expect(checkout.first("properties")?.all("property").contains { $0.attributes["name"] == "flowmatrix.run" } == true)

        let cases = testcases(root)
        #expect(cases.count == 36)
        let failed = try #require(cases["checkout|direction=rtl,locale=ar,orientation=landscape"])
        let failure = try #require(failed.first("failure"))
        #expect(failure.attributes["type"] == "failed")
        #expect(failure.attributes["message"]
            == "step 3 (expect 'Total' visible): expected 'Total' to be visible; it is clipped at the trailing edge")
        #expect(failure.text.contains("attempt 2 on worker worker-b"))
        // The step list numbers steps from 1, as the message does: the failing step is [3], and there is no [0].
        #expect(failure.text.contains("  [3] expect 'Total' visible: failed"))
        #expect(failure.text.contains("  [1] ") && !failure.text.contains("  [0] "))
        #expect(failed.all("rerunFailure").count == 1)
        #expect(failed.first("rerunFailure")?.first("stackTrace")?.text.contains("attempt 1 on worker worker-a") == true)
        #expect(failed.attributes["time"] == "1.000")

        let flaky = try #require(cases["browse|direction=ltr,locale=en-US,orientation=portrait"])
        #expect(flaky.first("failure") == nil && flaky.first("error") == nil)
        #expect(flaky.all("flakyFailure").count == 1)
        #expect(flaky.first("flakyFailure")?.attributes["message"]?.hasPrefix("step 2 (tap 'Checkout')") == true)

        let timedOut = try #require(cases["xss|direction=ltr,locale=de-DE,orientation=portrait"])
        #expect(timedOut.first("error")?.attributes["type"] == "timedOut")
        #expect(timedOut.first("error")?.attributes["message"]?.hasPrefix("timed out: step 4 (tap 'Pay')") == true)
        let quarantined = try #require(cases["xss|direction=ltr,locale=de-DE,orientation=landscape"])
        #expect(quarantined.first("error")?.attributes["type"] == "quarantined")
        let cancelled = try #require(cases["xss|direction=rtl,locale=de-DE,orientation=portrait"])
        #expect(cancelled.first("skipped")?.attributes["message"] == "cancelled: the run was interrupted")
        // A plain pass (one attempt) is a bare test case: CI needs its name and time, a 100,000-job run has that many.
        let passed = try #require(cases["browse|direction=rtl,locale=ar,orientation=landscape"])
        #expect(passed.children.isEmpty)
        // Only failures dump steps (`[number] key: …`, numbered from 1 as the failure message numbers them).
        #expect(cases.values.filter { $0.children.map(\.name) == ["system-out"] }.allSatisfy {
            $0.first("system-out")?.text.contains("launch app") == false
        })
        // The script-tag title arrives as text in system-out.
        #expect(cases.values.contains { $0.first("system-out")?.text.contains(Sweep.xssTitle) == true })
    }

    @Test("grouping by configuration: one suite per configuration, scenario ids as names")
    func byConfiguration() throws {
        let written = try WrittenReport(settings: ReportSettings(junitGrouping: .configuration))
        let root = try XMLNode.parse(try Data(contentsOf: written.files.junit))
        #expect(root.all("testsuite").count == 12)
        #expect(root.all("testsuite").allSatisfy { $0.all("testcase").map { $0.attributes["name"] ?? "" } == ["browse", "checkout", "xss"] })
    }

    private static var schema: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/junit.xsd")
    }

    private func xmllint() throws -> String {
        let tool = ExternalTool.ensure("xmllint", package: "libxml2-utils")
        return try #require(tool.path, "\(tool.reason)")
    }

    @Test("junit.xml validates against the Surefire-style JUnit schema (xmllint --schema)")
    func validatesAgainstSchema() async throws {
        let xmllint = try xmllint()
        for grouping in JUnitGrouping.allCases {
            let written = try WrittenReport(settings: ReportSettings(junitGrouping: grouping))
            let result = await ExternalTool.run(xmllint, ["--noout", "--schema", Self.schema.path, written.files.junit.path], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("validates"))
        }
    }

    @Test("the schema is strict enough to reject a malformed report (a failure after system-out, a testcase without a name)")
    func schemaRejectsBadReports() async throws {
        let xmllint = try xmllint()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("junit-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = [
            #"<testsuites><testsuite name="s" tests="1" failures="1" errors="0"><testcase name="t"><system-out/><failure type="x"/></testcase></testsuite></testsuites>"#,
            #"<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="c"/></testsuite></testsuites>"#,
            #"<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"><flakyFailure message="m"/></testcase></testsuite></testsuites>"#,
        ]
        for (i, text) in bad.enumerated() {
            let file = dir.appendingPathComponent("bad\(i).xml")
            try Data(text.utf8).write(to: file)
            let result = await ExternalTool.run(xmllint, ["--noout", "--schema", Self.schema.path, file.path], timeout: 60)
            #expect(result.status != 0, "bad\(i) should not validate")
        }
    }
}
