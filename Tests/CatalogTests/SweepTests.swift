import CatalogApp
import FlowSpec
import Testing

/// The whole corpus under sweep configurations: which scenarios fail is decided by the layout rules and the
/// network conditioner, and is the same on every run.
@Suite("Locale, RTL and network sweeps of the corpus")
struct SweepTests {
    static let cases: [([String: String], Set<String>)] = [
        (["locale": "de", "window": "narrow-portrait"], ["item-detail", "out-of-stock-item", "cart-total-layout"]),
        (["locale": "de"], []),
        (["locale": "en", "window": "narrow-portrait"], []),
        (["locale": "fr", "window": "narrow-portrait"], []),
        (["locale": "ja", "window": "small-floating"], []),
        (["locale": "he", "direction": "auto", "window": "narrow-portrait"], ["cart-total-layout"]),
        (
            ["locale": "ar", "direction": "auto", "orientation": "landscape", "window": "regular-square"],
            ["cart-total-layout"]
        ),
        (["direction": "pseudo-rtl"], ["cart-total-layout"]),
        (["direction": "pseudo-accented"], ["settings-localized"]),
        (["direction": "pseudo-double"], []),
        (["network": "edge"], ["large-catalog-loads"]),
        (["network": "3g"], []),
    ]

    @Test("each configuration fails exactly the scenarios its rules find", arguments: cases)
    func sweep(changes: [String: String], expected: Set<String>) async throws {
        var failed: Set<String> = []
        for scenario in try Corpus.scenarios() {
            let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.configuration(changes), seed: 11)
            if !(await AsyncScenarioRunner(registry: registry).run(scenario)).passed { failed.insert(scenario.id) }
        }
        #expect(failed == expected, "\(changes)")
    }
}
