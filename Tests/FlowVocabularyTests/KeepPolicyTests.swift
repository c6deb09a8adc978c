import FlowVocabulary
import Testing

@Suite("Keep policy")
struct KeepPolicyTests {
    @Test("which attempts keep their artifacts", arguments: StepOutcome.allCases)
    func decisions(outcome: StepOutcome) {
        for attempt in 1...3 {
            #expect(KeepPolicy.all.keepsArtifacts(of: outcome, attempt: attempt))
            #expect(!KeepPolicy.none.keepsArtifacts(of: outcome, attempt: attempt))
        }
        // `failures`: every attempt that did not pass, and a passing retry (the pass of a flaky job).
        #expect(KeepPolicy.failures.keepsArtifacts(of: outcome, attempt: 1) == (outcome != .passed))
        #expect(KeepPolicy.failures.keepsArtifacts(of: outcome, attempt: 2))
    }

    @Test("parsed from the matrix file's value")
    func parsing() {
        #expect(KeepPolicy.allCases.map(\.rawValue) == ["failures", "all", "none"])
        #expect(KeepPolicy(rawValue: "failures") == .failures)
        #expect(KeepPolicy(rawValue: "none") == KeepPolicy.none)
        #expect(KeepPolicy(rawValue: "some") == nil)
    }
}
