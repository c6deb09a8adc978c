@testable import CommandJobs
import Foundation
import Testing

/// The committed sample result files (Workers/CommandSamples/junit), as pytest, Playwright and xcodebuild's
/// converters write them.
enum Samples {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Workers/CommandSamples")

    static func junit(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("junit/\(name).xml")))
    }
}

@Suite("JUnit XML result files")
struct JUnitParserTests {
    @Test("pytest --junitxml: failures, errors, escaped messages")
    func pytest() throws {
        let cases = try JUnitParser.parse(try Samples.junit("pytest"))
        #expect(cases.map(\.qualifiedName) == [
            "tests.test_labels.test_price_label_fits[de]", "tests.test_labels.test_total_alignment",
            "tests.test_format.test_currency", "tests.test_format.test_digits",
        ])
        #expect(cases.map(\.outcome) == [.failed, .passed, .errored, .passed])
        #expect(cases[0].message == "AssertionError: 'Gesamtbetrag (inkl. MwSt.)' is 25 characters; the label holds 18\nassert 25 <= 18")
        #expect(cases[2].message == "failed on setup with \"FileNotFoundError: fixtures/rates.json\"")
        #expect(cases[0].suite == "pytest")
        #expect(abs(cases[0].time - 0.004) < 1e-9)
    }

    @Test("Playwright's junit reporter: CDATA, entities, properties, skipped")
    func playwright() throws {
        let cases = try JUnitParser.parse(try Samples.junit("playwright"))
        #expect(cases.count == 4)
        #expect(cases.map(\.outcome) == [.failed, .passed, .passed, .skipped])
        #expect(cases[1].name == "checkout button is visible & enabled")
        #expect(cases[2].name == "prices use the locale's digits")
        #expect(cases[0].message == "checkout.spec.ts:18:5 cart total is aligned to the reading direction")
        #expect(cases[0].suite == "checkout.spec.ts")
    }

    @Test("xcodebuild through xcresultparser: declaration, comment, self-closing test cases")
    func xcodebuild() throws {
        let cases = try JUnitParser.parse(try Samples.junit("xcodebuild"))
        #expect(cases.map(\.name) == ["testBrowseCatalog()", "testCartTotalAlignment()", "testSearchFieldPlaceholder()"])
        #expect(cases.map(\.outcome) == [.passed, .failed, .passed])
        #expect(cases[1].message?.hasPrefix("XCTAssertEqual failed: (\"right\") is not equal to (\"left\")") == true)
    }

    @Test("a failure without a message attribute takes its text's first lines")
    func messageFromText() throws {
        let xml = "<testsuite><testcase name=\"t\"><failure>\n  line one\n  line two\n</failure></testcase></testsuite>"
        let cases = try JUnitParser.parse(Array(xml.utf8))
        #expect(cases.first?.message == "line one\n  line two")
    }

    @Test("what is not JUnit XML is refused with a line and a reason", arguments: [
        ("<testsuite><testcase name=\"a\"></testsuite>", "closes <testcase>"),
        ("<testsuite>\n<testcase name=\"a\">", "never closed"),
        ("<html><body/></html>", "not <testsuites>"),
        ("Traceback (most recent call last):", "no <testsuites>"),
        ("<testsuite name=\"a & b\"/>", "bare '&'"),
        ("<testsuite name=a/>", "not quoted"),
        ("<testsuite><testcase name=\"a\"", "never closed"),
        ("", "no <testsuites>"),
    ])
    func invalid(_ xml: String, _ reason: String) {
        #expect {
            try JUnitParser.parse(Array(xml.utf8))
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("a broken file reports the line of the problem")
    func line() throws {
        do {
            _ = try JUnitParser.parse(Array("<testsuite>\n<testcase name=\"a\">\n</testsuite>".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
        }
    }
}
