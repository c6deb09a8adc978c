import FlowSpec
import Foundation
@testable import MatrixPlan
import Testing

/// `policy.recording` (issue 32 §1): off by default; `failures` and `all` tag every job's scenario so the web registry
/// screencasts it; a bad value, or a `keep` that would drop every recording, is MX044.
@Suite("policy.recording and MX044")
struct RecordingPolicyTests {
    static let scenario = Scenario(id: "s", title: "s", tags: ["smoke"], steps: [Step(verb: .open, target: "index.html")])

    static func parse(_ policy: String) -> (MatrixFile?, [ValidationFinding]) {
        MatrixFile.parse(
            Array(#"{"name": "m", "corpus": ".", "registry": "web", "policy": {\#(policy)}, "axes": {"locale": ["en", "de"]}}"#.utf8),
            file: "m.json")
    }

    @Test("without policy.recording nothing is tagged; failures and all tag every job's scenario, with ids of their own")
    func tagsJobs() throws {
        func plan(_ policy: String) throws -> (MatrixFile, Plan) {
            let (matrix, findings) = Self.parse(policy)
            #expect(findings.isEmpty, "\(findings)")
            let m = try #require(matrix)
            return (m, m.plan(scenarios: [(Self.scenario, "s.json")], settings: PlanSettings()))
        }
        let (plainMatrix, plain) = try plan("")
        #expect(plainMatrix.recording == .off && plainMatrix.keep == .failures)
        #expect(plain.jobs.allSatisfy { !$0.scenario.tags.contains(Scenario.recordingTag) })
        #expect(try plan(#""recording": "off""#).1.jobs.map(\.id) == plain.jobs.map(\.id))
        let (failuresMatrix, failures) = try plan(#""recording": "failures""#)
        #expect(failuresMatrix.recording == .failures && failuresMatrix.keep == .failures)
        #expect(failures.jobs.count == 2 && failures.jobs.allSatisfy { $0.scenario.tags == ["smoke", Scenario.recordingTag] })
        #expect(Set(failures.jobs.map(\.id)).isDisjoint(with: plain.jobs.map(\.id)))
        let (allMatrix, all) = try plan(#""recording": "all""#)
        #expect(allMatrix.recording == .all && allMatrix.keep == .all, "recording all keeps every attempt's evidence")
        #expect(all.jobs.allSatisfy { $0.scenario.tags.contains(Scenario.recordingTag) })
    }

    @Test("a value other than off, failures or all is MX044 with a suggestion; a non-string is a type error")
    func badValue() throws {
        let (matrix, findings) = Self.parse(#""recording": "failure""#)
        #expect(matrix == nil)
        let finding = try #require(findings.first)
        #expect(findings.count == 1 && finding.code == "MX044" && finding.path == "$.policy.recording")
        #expect(finding.message.contains("did you mean 'failures'?"), "\(finding.message)")
        let (_, typed) = Self.parse(#""recording": true"#)
        #expect(typed.map(\.path) == ["$.policy.recording"] && typed.first?.code != "MX044")
    }

    @Test("keep none with any recording, and keep failures with recording all, are MX044 saying what to change")
    func keepConflicts() throws {
        for (policy, words) in [(#""recording": "failures", "keep": "none""#, "keep is 'none'"),
                                (#""recording": "all", "keep": "none""#, "keep is 'none'"),
                                (#""recording": "all", "keep": "failures""#, "set keep to 'all'")] {
            let (matrix, findings) = Self.parse(policy)
            #expect(matrix == nil && findings.map(\.code) == ["MX044"], "\(policy): \(findings)")
            #expect(findings.first?.message.contains(words) == true, "\(findings)")
        }
        let (matrix, findings) = Self.parse(#""recording": "failures", "keep": "all""#)
        #expect(findings.isEmpty && matrix?.keep == .all && matrix?.recording == .failures)
    }
}
