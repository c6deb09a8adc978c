import CatalogApp
import FlowSpec
import Foundation
import Testing

@Suite("The Catalog scenario corpus")
struct CorpusTests {
    @Test("the corpus has at least 20 valid scenarios and uses every verb")
    func corpusIsCleanAndCoversEveryVerb() throws {
        let scenarios = try Corpus.scenarios()
        #expect(scenarios.count >= 20)
        let verbs = Set(scenarios.flatMap { $0.steps.map(\.verb) })
        #expect(verbs == Set(Verb.allCases))
    }

    @Test("every scenario passes under the baseline configuration (en, ltr, portrait, full-window, lte)")
    func everyScenarioPassesAtBaseline() async throws {
        for scenario in try Corpus.scenarios() {
            let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.baseline, seed: 7)
            let result = await AsyncScenarioRunner(registry: registry).run(scenario)
            #expect(result.passed, "\(scenario.id): \(result.failure?.description ?? "")")
        }
    }
}
