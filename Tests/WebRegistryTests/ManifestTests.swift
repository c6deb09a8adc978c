import FlowSpec
import Foundation
import Testing
import WebRegistry

/// The `web` registry's manifest: what `validate` checks scenarios against is what `assert` dispatches on.
@Suite("web registry manifest")
struct WebManifestTests {
    let manifest = WebRegistry.manifest

    @Test("any selector is wired; the assert clauses and axes are the registry's own")
    func contents() throws {
        #expect(manifest.name == "web")
        #expect(manifest.wires(Step(verb: .tap, target: "[data-testid=buy] > span")))
        let clauses = try #require(manifest.clauses(on: "anything"))
        for clause in ["exists", "visible", "hidden", "absent", "text=", "contains=", "value=", "no-truncation",
                       "no-overlap", "on-screen", "mirrored", "localized", "clean"] {
            #expect(clauses.contains(clause), "\(clause)")
        }
        #expect(!RegistryManifest.understands("leading", vocabulary: clauses))
        #expect(!RegistryManifest.understands("not-empty", vocabulary: clauses))
        #expect(manifest.honours(axis: "timezone") && manifest.honours(axis: "locale"))
        #expect(!manifest.honours(axis: "flavor"))
        // The accessibility axes are applied (docs/ACCESSIBILITY.md); the audit is a clause of `page` alone.
        for axis in ["appearance", "textSize", "motion", "contrast"] { #expect(manifest.honours(axis: axis), "\(axis)") }
        #expect(manifest.clauses(on: "page")?.contains("accessible") == true)
        #expect(manifest.clauses(on: "page")?.contains("clean") == true)
        #expect(!clauses.contains("accessible"))
    }

    @Test("every scenario of the shipped web corpus passes the manifest's checks")
    func shippedCorpus() {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Workers/Web/Scenarios")
        let corpus = ScenarioLoader.loadCorpus(paths: [folder])
        #expect(!corpus.scenarios.isEmpty)
        #expect(corpus.scenarios.flatMap { manifest.findings(for: $0) }.isEmpty)
    }
}

extension RealChromium {
    @Suite("web registry: assert refuses exactly the clauses its manifest omits (real Chromium)", .serialized)
    struct ManifestDispatchTests {
        @Test("a clause outside the manifest is an invalid argument naming the manifest's clauses")
        func unknownClause() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                try await r.step(.assert, "tap-me", "visible")
                do {
                    try await r.step(.assert, "tap-me", "leading")
                    Issue.record("an unknown clause must fail the step")
                } catch StepError.invalidArgument(let message) {
                    #expect(message.contains("'leading'"))
                    let listed = WebRegistry.manifest.assertClauses?.first?.clauses ?? []
                    #expect(message.contains(listed.joined(separator: ", ")))
                }
            }
        }
    }
}
