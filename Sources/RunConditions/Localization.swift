import Foundation
import MatrixPlan
import Synchronization

/// An app's string tables: locale tag → key → translated string, with a base (development) language.
///
/// Lookup falls back from the most specific tag to the least, then to the base table:
/// `de-AT` → `de-AT`, `de`, base; `zh-Hant-TW` → `zh-Hant-TW`, `zh-Hant`, `zh`, base.
public struct StringTables: Sendable {
    /// The development language whose table answers when no translation does (e.g. `en`).
    public let base: String
    /// Canonical locale tag → key → string.
    public let tables: [String: [String: String]]

    /// - Parameters:
    ///   - base: the development language; must be a key of `tables`.
    ///   - tables: translations keyed by BCP-47 tag (any case; tags are canonicalised).
    public init(base: String, tables: [String: [String: String]]) {
        self.base = LocaleTag.canonicalize(base) ?? base
        var canonical: [String: [String: String]] = [:]
        for (tag, table) in tables { canonical[LocaleTag.canonicalize(tag) ?? tag, default: [:]].merge(table) { $1 } }
        self.tables = canonical
    }

    /// The tags tried for `tag`, most specific first, ending with the base language.
    public func fallbackChain(for tag: String) -> [String] {
        var subtags = (LocaleTag.canonicalize(tag) ?? tag).split(separator: "-").map(String.init)
        var chain: [String] = []
        while !subtags.isEmpty {
            // A private-use or extension singleton ends the meaningful part of a tag.
            if subtags.count >= 2, subtags[subtags.count - 2].count == 1 {
                subtags.removeLast(2)
                continue
            }
            chain.append(subtags.joined(separator: "-"))
            subtags.removeLast()
        }
        if !chain.contains(base) { chain.append(base) }
        return chain
    }

    /// How a key resolved: the string and the table it came from.
    public struct Resolution: Sendable, Hashable {
        /// The translated string, or the key itself when no table has it.
        public var text: String
        /// The tag of the table that answered; nil when the key is missing everywhere.
        public var table: String?
        /// True when a less specific table than the requested tag answered.
        public var isFallback: Bool

        public init(text: String, table: String?, isFallback: Bool) {
            self.text = text
            self.table = table
            self.isFallback = isFallback
        }
    }

    /// Resolves `key` for `tag` along `fallbackChain(for:)`. A key missing everywhere resolves to itself
    /// (like `NSLocalizedString`), with `table == nil`.
    public func resolve(_ key: String, locale tag: String) -> Resolution {
        let chain = fallbackChain(for: tag)
        for (index, candidate) in chain.enumerated() {
            if let text = tables[candidate]?[key] {
                return Resolution(text: text, table: candidate, isFallback: index > 0)
            }
        }
        return Resolution(text: key, table: nil, isFallback: true)
    }
}

/// Resolves and formats an app's strings for one run: locale, fallback and pseudolocalization.
public struct Localizer: Sendable {
    public let tables: StringTables
    /// The canonical BCP-47 tag strings are resolved for.
    public let locale: String
    public let pseudo: PseudoMode
    public let formatting: LocaleFormatting
    /// The tables consulted, most specific first (resolved once).
    private let chain: [[String: String]]

    public init(tables: StringTables, locale: String, pseudo: PseudoMode = .none) {
        self.tables = tables
        self.locale = LocaleTag.canonicalize(locale) ?? locale
        self.pseudo = pseudo
        self.formatting = LocaleFormatting(locale: self.locale)
        self.chain = tables.fallbackChain(for: self.locale).compactMap { tables.tables[$0] }
    }

    /// The tag of the most specific table this locale's strings come from: the base language when no table is
    /// closer (the screen is then in another language than the one configured).
    public var tableLanguage: String {
        tables.fallbackChain(for: locale).first { tables.tables[$0] != nil } ?? tables.base
    }

    /// The string for `key` with `{name}` placeholders replaced by `arguments`, then pseudolocalized.
    /// Arguments are inserted as given (format numbers with `formatting` first); they are not pseudolocalized.
    public func string(_ key: String, _ arguments: [String: String] = [:]) -> String {
        var text = key
        for table in chain {
            if let found = table[key] { text = found; break }
        }
        let template = Pseudolocalizer.transform(text, mode: pseudo)
        guard !arguments.isEmpty else { return template }
        return Self.fill(template, arguments)
    }

    /// Replaces each `{name}` whose name is in `arguments`; other braces stay as written.
    static func fill(_ template: String, _ arguments: [String: String]) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = arguments[name] { out += value } else { out += rest[open...close] }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }
}

/// Locale-aware formatting of numbers, money and dates with Foundation's format styles.
/// Dates are formatted in UTC so a run reproduces on any machine.
public struct LocaleFormatting: Sendable {
    /// The Foundation locale (`de-DE` → `de_DE`).
    public let locale: Locale

    public init(locale tag: String) {
        self.locale = Locale(identifier: tag.replacingOccurrences(of: "-", with: "_"))
    }

    /// A whole number in the locale's digits and grouping (`1234` → `1.234` in German, `١٬٢٣٤` in Arabic).
    public func number(_ value: Int) -> String {
        value.formatted(IntegerFormatStyle<Int>(locale: locale))
    }

    /// An amount of money given in minor units (cents), e.g. `8900, "EUR"` → `89,00 €` in German.
    /// Results are memoised per locale, currency and amount (formatting is pure).
    public func currency(minorUnits: Int, code: String) -> String {
        let key = CurrencyKey(locale: locale.identifier, code: code, minorUnits: minorUnits)
        if let cached = Self.currencyCache.withLock({ $0[key] }) { return cached }
        let amount = Decimal(minorUnits) / 100
        let text = amount.formatted(Decimal.FormatStyle.Currency(code: code, locale: locale))
        Self.currencyCache.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[key] = text
        }
        return text
    }

    private struct CurrencyKey: Hashable {
        var locale: String
        var code: String
        var minorUnits: Int
    }

    private static let currencyCache = Mutex<[CurrencyKey: String]>([:])

    /// A date with the day, the month's name and the year, in UTC (`2. März 2026`).
    public func date(_ date: Date) -> String {
        var style = Date.FormatStyle(
            date: .long, time: .omitted, locale: locale, calendar: Calendar(identifier: .gregorian))
        style.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? style.timeZone
        return date.formatted(style)
    }
}
