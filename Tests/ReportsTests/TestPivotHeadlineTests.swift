import Foundation
import Testing
@testable import Reports

/// The per-test headline ("By test: …") joins each failing test's sentence and ends with one period.
@Suite("Reports: the by-test headline")
struct TestPivotHeadlineTests {
    @Test("a test no pattern explains keeps its own headline without doubling the final period")
    func onePeriod() throws {
        let explained = try JSONDecoder().decode(TestPivot.self, from: Data(#"""
            {"test": "app.test_sync", "jobs": 144, "failures": 2, "patterns": [],
             "headline": "2 failures with no axis value in common beyond single jobs."}
            """#.utf8))
        let passing = try JSONDecoder().decode(TestPivot.self, from: Data(#"""
            {"test": "app.test_ok", "jobs": 144, "failures": 0, "patterns": [], "headline": "no failures."}
            """#.utf8))
        let headline = try #require(TestPivot.headline([explained, passing]))
        #expect(headline == "app.test_sync: 2 failures with no axis value in common beyond single jobs.", "\(headline)")
    }
}
