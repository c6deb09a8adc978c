import CatalogApp
import FlowSpec
import Testing

/// Failures that depend on the configuration, found by the layout rules and the network conditioner.
@Suite("Configuration-dependent failures")
struct ConfigurationFailureTests {
    @Test("German in a narrow window truncates the add-to-cart button, naming it")
    func germanNarrowTruncates() async throws {
        let result = try await Corpus.run("item-detail", ["locale": "de", "window": "narrow-portrait"])
        let failure = try #require(result.failure)
        #expect(failure.stepKey == "assert:layout")
        #expect(failure.message.contains("'item.add-to-cart' is truncated"))
        #expect(failure.message.contains("In den Warenkorb legen"))
    }

    @Test(
        "the same screen is sound in German at full width and in English when narrow",
        arguments: [
            ["locale": "de"], ["locale": "en", "window": "narrow-portrait"],
            ["locale": "fr", "window": "narrow-portrait"],
        ])
    func soundWhereItFits(changes: [String: String]) async throws {
        let result = try await Corpus.run("item-detail", changes)
        #expect(result.passed, "\(result.failure?.description ?? "")")
    }

    @Test(
        "right-to-left finds the cart total's hard-coded right alignment, and only that",
        arguments: [
            ["locale": "ar", "direction": "auto"], ["locale": "he", "direction": "auto"], ["direction": "pseudo-rtl"],
        ])
    func rtlMirroringDefect(changes: [String: String]) async throws {
        let result = try await Corpus.run("cart-total-layout", changes)
        let failure = try #require(result.failure)
        #expect(failure.message.contains("'cart.total.amount' is not mirrored for right-to-left"))
        let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.configuration(changes), seed: 1)
        let steps = try Corpus.scenario("cart-total-layout").steps.dropLast()
        let passed = await AsyncScenarioRunner(registry: registry).run(
            .init(id: "prefix", title: "prefix", steps: Array(steps)))
        #expect(passed.passed)
        let surface = await registry.engine.surface()
        #expect(surface.findings.map(\.element) == ["cart.total.amount"])
    }

    @Test("the rest of the corpus passes in Arabic right-to-left: the sweep passes where the layout is sound")
    func arabicSweep() async throws {
        var failed: [String] = []
        for scenario in try Corpus.scenarios() {
            let registry = try CatalogWorkerKit.makeRegistry(
                configuration: Corpus.configuration(["locale": "ar", "direction": "auto"]), seed: 3)
            let result = await AsyncScenarioRunner(registry: registry).run(scenario)
            if !result.passed { failed.append(scenario.id) }
        }
        #expect(failed == ["cart-total-layout"])
    }

    @Test("pseudo-accented finds the hard-coded version string")
    func hardCodedString() async throws {
        let failure = try #require(try await Corpus.run("settings-localized", ["direction": "pseudo-accented"]).failure)
        #expect(failure.message.contains("'settings.version' shows “Version 2.3.1” without pseudolocalization"))
    }

    @Test("pseudo-double in a narrow window makes the sign-in bar's title overlap its cancel button")
    func doubledOverlap() async throws {
        let failure = try #require(
            try await Corpus.run("sign-in-layout", ["direction": "pseudo-double", "window": "narrow-portrait"]).failure)
        #expect(failure.message.contains("'signin.cancel' overlaps 'signin.title'"))
        #expect(try await Corpus.run("sign-in-layout", ["direction": "pseudo-double"]).passed)
    }

    @Test("a 240-product catalog does not load within 5 s on edge, but does on 3g")
    func edgeTooSlow() async throws {
        let edge = try #require(try await Corpus.run("large-catalog-loads", ["network": "edge"]).failure)
        #expect(edge.outcome == .timedOut)
        #expect(edge.stepKey == "wait:catalog.list")
        #expect(try await Corpus.run("large-catalog-loads", ["network": "3g"]).passed)
    }

    @Test("offline, the catalog says the device is offline")
    func offline() async throws {
        let result = try await Corpus.run("catalog-unavailable-retry", ["network": "offline"])
        let failure = try #require(result.failure)
        #expect(failure.message.contains("You’re offline"))
    }
}
