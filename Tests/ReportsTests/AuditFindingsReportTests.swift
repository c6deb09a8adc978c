import FlowSpec
import FlowVocabulary
import Foundation
@testable import Journal
@testable import Reports
import Testing

/// The accessibility audit's findings in the reports (issue 29 §2): parsed back from the step failure by rule and
/// element, and `flowmatrix diff` lists the (rule, element) pairs a job's failure names that its base run's did not.
@Suite("audit findings in reports: parsing the failure and new findings in diff")
struct AuditFindingsReportTests {
    static func row(_ id: String, _ outcome: JobOutcome, _ message: String?) -> JobRow {
        JobRow(
            job: PlannedJob(jobID: id, scenarioID: "a11y-cart", scenarioTitle: "t", configuration: "appearance=dark",
                            configurationJSON: #"{"appearance":"dark"}"#, registry: "web"),
            ordinal: 0, state: .done,
            result: JobResult(outcome: outcome, attempts: 1, duration: 1, failureStep: message == nil ? nil : 2,
                              failureMessage: message, finishedAt: Date(timeIntervalSince1970: 0)))
    }

    static let findings = [
        AuditFinding(rule: .contrast, element: "catalog.item.1.price", detail: "2.37:1 < 4.5:1 (text #595959 on #1e1e1e)"),
        AuditFinding(rule: .unnamed, element: "button.close in cart.panel", detail: "is a button with no accessible name"),
    ]

    @Test("a failure message made of findings parses back to their rules and elements, page troubles appended or not")
    func parse() {
        let message = "assertion failed: " + AuditFinding.failureMessage(Self.findings)
        let expected = ["AX001 button.close in cart.panel", "AX002 catalog.item.1.price"]
        #expect(AuditFinding.parse(message).map { "\($0.rule.code) \($0.element)" } == expected)
        let troubled = message + " — in this step and the one before: GET /api/x 404"
        #expect(AuditFinding.parse(troubled).map { "\($0.rule.code) \($0.element)" } == expected)
        #expect(AuditFinding.parse("assertion failed: [data-testid=\"x\"] is not visible").isEmpty)
        #expect(AuditEntry.entries("cannot tap AX001") == nil)
    }

    @Test("diff lists the findings new in each job: all of a newly failing job's, only the new ones of a still failing one")
    func newFindings() {
        let one = "assertion failed: " + AuditFinding.failureMessage([Self.findings[0]])
        let both = "assertion failed: " + AuditFinding.failureMessage(Self.findings)
        let diff = RunDiff.compute(
            base: ("base", [Self.row("a", .passed, nil), Self.row("b", .failed, one), Self.row("c", .failed, both)]),
            head: ("head", [Self.row("a", .failed, one), Self.row("b", .failed, both), Self.row("c", .failed, one)]),
            durationThreshold: 0.2)
        #expect(diff.newAuditFindings.map(\.jobID) == ["a", "b"])
        #expect(diff.newAuditFindings.map(\.findings) == [
            ["AX002 at catalog.item.1.price"], ["AX001 at button.close in cart.panel"],
        ])
        #expect(diff.hasRegressions)
        #expect(diff.text.contains(
            "NEW ACCESSIBILITY FINDINGS (2)\n  a  a11y-cart [appearance=dark]  AX002 at catalog.item.1.price\n"
                + "  b  a11y-cart [appearance=dark]  AX001 at button.close in cart.panel\n"), "\(diff.text)")
    }
}
