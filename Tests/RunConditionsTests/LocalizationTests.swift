import Foundation
import RunConditions
import Testing

@Suite("Localization: string tables with fallback, locale formats")
struct LocalizationTests {
    let tables = StringTables(
        base: "en",
        tables: [
            "en": ["greeting": "Hello", "cart": "Cart", "only.base": "Base only"],
            "de": ["greeting": "Hallo", "cart": "Warenkorb"],
            "de-AT": ["greeting": "Servus"],
            "zh-Hant": ["greeting": "你好"],
        ])

    @Test("a region falls back to its language, then to the base table")
    func regionLanguageBase() {
        #expect(tables.resolve("greeting", locale: "de-AT").text == "Servus")
        #expect(tables.resolve("cart", locale: "de-AT") == .init(text: "Warenkorb", table: "de", isFallback: true))
        #expect(tables.resolve("only.base", locale: "de-AT") == .init(text: "Base only", table: "en", isFallback: true))
        #expect(tables.resolve("greeting", locale: "de-CH").text == "Hallo")
    }

    @Test("the fallback chain drops subtags from the end and ends at the base language")
    func fallbackChain() {
        #expect(tables.fallbackChain(for: "zh-hant-tw") == ["zh-Hant-TW", "zh-Hant", "zh", "en"])
        #expect(tables.fallbackChain(for: "en-US") == ["en-US", "en"])
        #expect(tables.resolve("greeting", locale: "zh-Hant-TW").text == "你好")
    }

    @Test("an unknown locale uses the base table; a missing key resolves to itself")
    func unknownLocaleAndMissingKey() {
        #expect(tables.resolve("greeting", locale: "sw").text == "Hello")
        let missing = tables.resolve("nowhere", locale: "de")
        #expect(missing.text == "nowhere")
        #expect(missing.table == nil)
    }

    @Test("placeholders are filled after lookup")
    func placeholders() {
        let l = Localizer(tables: StringTables(base: "en", tables: ["en": ["n": "{count} items"]]), locale: "en")
        #expect(l.string("n", ["count": "3"]) == "3 items")
    }

    @Test("money, numbers and dates follow the locale")
    func formats() {
        let de = LocaleFormatting(locale: "de-DE")
        let en = LocaleFormatting(locale: "en-US")
        #expect(de.currency(minorUnits: 8900, code: "EUR").contains("89,00"))
        #expect(en.currency(minorUnits: 8900, code: "EUR").contains("89.00"))
        #expect(de.number(1234) == "1.234")
        #expect(en.number(1234) == "1,234")
        let ar = LocaleFormatting(locale: "ar-SA").number(12)
        #expect(ar != "12", "Arabic (Saudi Arabia) uses Arabic-Indic digits: \(ar)")
        let date = Date(timeIntervalSince1970: 1_772_442_000)
        #expect(de.date(date).contains("März"))
        #expect(en.date(date).contains("March"))
    }
}
