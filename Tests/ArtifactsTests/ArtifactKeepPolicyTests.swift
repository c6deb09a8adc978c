import Artifacts
import Testing

@Suite("Keep policy")
struct KeepPolicyTests {
    @Test("which attempts keep their artifacts", arguments: AttemptVerdict.allCases)
    func decisions(verdict: AttemptVerdict) {
        #expect(ArtifactKeepPolicy.all.keepsArtifacts(of: verdict))
        #expect(!ArtifactKeepPolicy.none.keepsArtifacts(of: verdict))
        #expect(ArtifactKeepPolicy.failures.keepsArtifacts(of: verdict) == (verdict == .failed || verdict == .timedOut))
    }

    @Test("parsed from the flag value; failures is the default")
    func parsing() {
        #expect(ArtifactKeepPolicy(rawValue: "failures") == .failures)
        #expect(ArtifactKeepPolicy(rawValue: "all") == .all)
        #expect(ArtifactKeepPolicy(rawValue: "none") == ArtifactKeepPolicy.none)
        #expect(ArtifactKeepPolicy(rawValue: "some") == nil)
        #expect(ArtifactKeepPolicy.default == .failures)
    }
}
