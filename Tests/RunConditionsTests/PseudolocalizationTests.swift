import MatrixPlan
import RunConditions
import Testing

@Suite("Pseudolocalization and direction")
struct PseudolocalizationTests {
    @Test("pseudo-double doubles every string")
    func double() {
        #expect(Pseudolocalizer.transform("Add to Cart", mode: .double) == "Add to Cart Add to Cart")
        #expect(Pseudolocalizer.transform("", mode: .double) == "")
    }

    @Test("pseudo-accented accents letters, brackets the string and keeps placeholders")
    func accented() {
        #expect(Pseudolocalizer.transform("Cart", mode: .accented) == "[Çåŕţ]")
        #expect(Pseudolocalizer.transform("{count} items", mode: .accented) == "[{count} îţéɱš]")
        #expect(Pseudolocalizer.looksLocalized("[Çåŕţ]", mode: .accented))
        #expect(!Pseudolocalizer.looksLocalized("Version 2.3.1", mode: .accented))
        #expect(Pseudolocalizer.looksLocalized("89,00 €", mode: .accented), "text without letters needs no brackets")
    }

    @Test(
        "the configuration's direction axis picks direction and pseudo mode",
        arguments: [
            ("en", "auto", TextDirection.leftToRight, PseudoMode.none),
            ("ar", "auto", .rightToLeft, .none),
            ("he-IL", "auto", .rightToLeft, .none),
            ("fa", "auto", .rightToLeft, .none),
            ("ur", "auto", .rightToLeft, .none),
            ("ja", "auto", .leftToRight, .none),
            ("en", "rtl", .rightToLeft, .none),
            ("ar", "ltr", .leftToRight, .none),
            ("en", "pseudo-rtl", .rightToLeft, .none),
            ("en", "pseudo-double", .leftToRight, .double),
            ("ar", "pseudo-accented", .rightToLeft, .accented),
        ])
    func direction(locale: String, direction: String, expected: TextDirection, pseudo: PseudoMode) throws {
        let c = try RunConditions(values: ["locale": locale, "direction": direction], seed: 0)
        #expect(c.direction == expected)
        #expect(c.pseudo == pseudo)
    }

    @Test("a localizer applies the run's pseudo mode to every string")
    func localizerAppliesPseudo() throws {
        let tables = StringTables(base: "en", tables: ["en": ["ok": "OK"]])
        let c = try RunConditions(values: ["direction": "pseudo-double"], seed: 0)
        #expect(c.localizer(tables).string("ok") == "OK OK")
    }

    @Test("invalid axis values are rejected with the axis named")
    func invalid() {
        #expect(throws: RunConditionsError.self) { try RunConditions(values: ["window": "huge"], seed: 0) }
        #expect(throws: RunConditionsError.self) { try RunConditions(values: ["direction": "sideways"], seed: 0) }
    }
}
