import CatalogApp
import FlowSpec
import Foundation
import Testing

/// The Catalog registry's published manifest says exactly what its `execute` does: what it calls unwired throws
/// `unknownStep`, and every clause it lists is read (never "invalid argument").
@Suite("The Catalog registry's manifest")
struct ManifestTests {
    let manifest = CatalogRegistry.manifest

    @Test(
        "steps the manifest does not wire are the ones the registry throws unknownStep for",
        arguments: [
            Step(verb: .tap, target: "catalog.teleport"), Step(verb: .open, target: "moon"),
            Step(verb: .ambient, target: "earthquake"), Step(verb: .request, target: "database.drop"),
            Step(verb: .rotate, target: "table", arg: "landscape"), Step(verb: .wait, target: "ghost"),
            Step(verb: .assert, target: "ghost.label"), Step(verb: .type, target: "catalog.title", arg: "x"),
            Step(verb: .swipe, target: "item.name", arg: "up"), Step(verb: .tap, target: "catalog.item.3.4.add"),
        ])
    func unwiredAgree(step: Step) async throws {
        #expect(!manifest.wires(step))
        let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.baseline, seed: 1)
        await #expect(throws: StepError.unknownStep(step)) { try await registry.execute(step) }
    }

    @Test("every step of the shipped corpus is wired and every assert clause in it is understood")
    func corpusIsClean() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Workers/Catalog/Scenarios")
        let corpus = ScenarioLoader.loadCorpus(paths: [folder])
        #expect(corpus.scenarios.count >= 20)
        #expect(corpus.scenarios.flatMap { manifest.findings(for: $0) }.isEmpty)
    }

    /// Runs an assert with `clause` (and a short timeout) and says whether the registry refused the clause itself.
    func refusesClause(_ clause: String, on target: String) async throws -> Bool {
        let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.baseline, seed: 1)
        try await registry.execute(Step(verb: .open, target: "catalog"))
        do {
            try await registry.execute(Step(verb: .assert, target: target, arg: "0.1; \(clause)"))
            return false
        } catch StepError.invalidArgument {
            return true
        } catch {
            return false  // The assertion may fail on this screen; only a refused clause matters here.
        }
    }

    @Test("every clause the manifest lists is read by the registry; a clause it omits is refused")
    func clausesAgree() async throws {
        for target in ["layout", "catalog.title"] {
            let clauses = try #require(manifest.clauses(on: target))
            for clause in clauses {
                let written = clause.hasSuffix("=") ? clause + "x" : clause
                #expect(try await !refusesClause(written, on: target), "\(target): \(written)")
            }
            for unknown in ["leading", "not-empty", "shiny"] {
                #expect(!RegistryManifest.understands(unknown, vocabulary: clauses))
                #expect(try await refusesClause(unknown, on: target), "\(target): \(unknown)")
            }
        }
    }
}
