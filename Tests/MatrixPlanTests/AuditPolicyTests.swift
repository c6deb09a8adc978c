import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// `policy.audit` (issue 29 §2): every step after the first `open` is followed by `assert page accessible`; a bad value
/// is MX034, a registry that does not publish the audit MX035; the accessibility axes explain what they mean.
@Suite("policy.audit, MX034/MX035 and the accessibility axes in plan --explain")
struct AuditPolicyTests {
    static let scenario = Scenario(
        id: "s", title: "s",
        steps: [
            Step(verb: .request, target: "api/x", arg: "{}"), Step(verb: .open, target: "index.html"),
            Step(verb: .tap, target: "a"), Step(verb: .request, target: "api/y", arg: "{}"),
            Step(verb: .assert, target: "page", arg: "accessible"), Step(verb: .wait, target: "b"),
        ])

    @Test("every-step inserts an audit after each step from the first open on, but not after request or an audit")
    func everyStep() {
        let audited = AuditPolicy.everyStep.applied(to: Self.scenario)
        let keys = audited.steps.map { $0.arg == "accessible" ? "AUDIT" : $0.verb.rawValue }
        #expect(keys == ["request", "open", "AUDIT", "tap", "AUDIT", "request", "AUDIT", "wait", "AUDIT"])
        #expect(AuditPolicy.none.applied(to: Self.scenario) == Self.scenario)
    }

    @Test("an audited matrix plans jobs of the audited scenarios, with ids of their own")
    func plannedJobs() throws {
        let json = #"{"name": "m", "corpus": ".", "registry": "web", %@ "axes": {"appearance": ["light", "dark"]}}"#
        func plan(_ policy: String) throws -> Plan {
            let (matrix, findings) = MatrixFile.parse(Array(json.replacingOccurrences(of: "%@", with: policy).utf8), file: "m.json")
            #expect(findings.isEmpty, "\(findings)")
            return try #require(matrix).plan(scenarios: [(Self.scenario, "s.json")], settings: PlanSettings())
        }
        let plain = try plan("")
        let audited = try plan(#""policy": {"audit": "every-step"},"#)
        #expect(audited.jobs.count == 2 && plain.jobs.count == 2)
        #expect(audited.jobs.allSatisfy { $0.scenario.steps.count == 9 })
        #expect(Set(audited.jobs.map(\.id)).isDisjoint(with: plain.jobs.map(\.id)))
    }

    @Test("policy.audit other than none or every-step is MX034 with a suggestion")
    func badValue() throws {
        let (matrix, findings) = MatrixFile.parse(
            Array(#"{"name": "m", "corpus": ".", "registry": "web", "policy": {"audit": "every_step"}, "axes": {"locale": ["en"]}}"#.utf8),
            file: "m.json")
        #expect(matrix == nil)
        let finding = try #require(findings.first)
        #expect(findings.count == 1 && finding.code == "MX034" && finding.path == "$.policy.audit")
        #expect(finding.message.contains("did you mean 'every-step'?"), "\(finding.message)")
    }

    @Test("a registry whose manifest does not publish `assert page accessible` is MX035; one that does is not")
    func unsupported() throws {
        let (parsed, _) = MatrixFile.parse(
            Array(#"{"name": "m", "corpus": ".", "registry": "r", "policy": {"audit": "every-step"}, "axes": {"locale": ["en"]}}"#.utf8),
            file: "m.json")
        let matrix = try #require(parsed)
        let without = RegistryManifest(name: "r", assertClauses: [.init(targets: ["*"], clauses: ["visible"])])
        let with = RegistryManifest(name: "r", assertClauses: [.init(targets: ["page"], clauses: ["accessible"])])
        let unwired = RegistryManifest(name: "r", steps: [.init(verb: "tap", targets: ["*"])])
        #expect(matrix.registryFindings([], manifest: without).map(\.code) == ["MX035"])
        #expect(matrix.registryFindings([], manifest: unwired).map(\.code) == ["MX035"])
        #expect(matrix.registryFindings([], manifest: with).isEmpty)
        #expect(matrix.registryFindings([], manifest: RegistryManifest(name: "r")).isEmpty)
    }

    @Test("plan --explain says what each accessibility axis of a configuration means to each renderer")
    func explain() throws {
        let json = #"{"name": "m", "corpus": ".", "registry": "web", "axes": {"appearance": ["dark"], "textSize": ["AX5"], "motion": ["reduced"], "contrast": ["more"]}}"#
        let matrix = try #require(MatrixFile.parse(Array(json.utf8), file: "m.json").0)
        let plan = matrix.plan(scenarios: [(Self.scenario, "s.json")], settings: PlanSettings())
        let (text, answered) = plan.explanation("#1")
        #expect(answered)
        for part in ["prefers-color-scheme: dark", "default font size 50 px", "UICTContentSizeCategoryAccessibilityXXXL",
                     "prefers-reduced-motion: reduce", "prefers-contrast: more", "increase_contrast enabled"] {
            #expect(text.contains(part), "\(part) in \(text)")
        }
        #expect(plan.explanation(plan.jobs[0].id).text.contains("content_size accessibility-extra-extra-extra-large"))
    }
}
