import Artifacts
import Testing

@Suite("Keep policy")
struct KeepPolicyTests {
    @Test("which attempts keep their artifacts", arguments: AttemptVerdict.allCases)
    func decisions(verdict: AttemptVerdict) {
        #expect(KeepPolicy.all.keepsArtifacts(of: verdict))
        #expect(!KeepPolicy.none.keepsArtifacts(of: verdict))
        #expect(KeepPolicy.failures.keepsArtifacts(of: verdict) == (verdict == .failed || verdict == .timedOut))
    }

    @Test("parsed from the flag value; failures is the default")
    func parsing() {
        #expect(KeepPolicy(rawValue: "failures") == .failures)
        #expect(KeepPolicy(rawValue: "all") == .all)
        #expect(KeepPolicy(rawValue: "none") == KeepPolicy.none)
        #expect(KeepPolicy(rawValue: "some") == nil)
        #expect(KeepPolicy.default == .failures)
    }
}
