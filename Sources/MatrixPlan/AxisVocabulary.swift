import FlowSpec

// The typed vocabulary of the built-in matrix axes. MatrixPlan validates and normalises these values;
// the RunConditions module gives them meaning at run time. Every type parses its canonical string with
// `init?(parsing:)` and prints it back with `description`, so `T(parsing: x.description) == x`.

/// The names of the built-in, typed axes. Any other axis name is a custom axis with free string values.
///
/// `appearance`, `textSize`, `motion` and `contrast` are the accessibility settings (`AccessibilityAxes.swift`).
public enum BuiltInAxis: String, Sendable, Hashable, CaseIterable {
    case locale, direction, orientation, window, network
    case appearance, textSize, motion, contrast

    /// The canonical form of `text` as a value of this axis, or a sentence saying why it is not one.
    public func normalize(_ text: String) -> Result<String, AxisValueProblem> {
        switch self {
        case .locale:
            return LocaleTag.canonicalize(text).map { .success($0) }
                ?? .failure(.init(LocaleTag.problem(text) ?? "'\(text)' is not a BCP-47 language tag"))
        case .direction:
            return LayoutDirection(parsing: text).map { .success($0.description) }
                ?? .failure(.init("'\(text)' is not a direction; use one of \(LayoutDirection.allCases.map(\.rawValue).joined(separator: ", "))"))
        case .orientation:
            return DeviceOrientation(rawValue: text).map { .success($0.rawValue) }
                ?? .failure(.init("'\(text)' is not an orientation; use portrait or landscape"))
        case .window:
            return WindowSpec(parsing: text).map { .success($0.description) }
                ?? .failure(.init(WindowSpec.problem(text)))
        case .network:
            return NetworkSpec(parsing: text).map { .success($0.description) }
                ?? .failure(.init("'\(text)' is not a network profile; use one of \(NetworkProfileName.allCases.map(\.rawValue).joined(separator: ", ")) or a custom object"))
        case .appearance: return Self.closed(Appearance.self, text, axis: rawValue)
        case .textSize: return Self.closed(TextSize.self, text, axis: rawValue)
        case .motion: return Self.closed(Motion.self, text, axis: rawValue)
        case .contrast: return Self.closed(Contrast.self, text, axis: rawValue)
        }
    }
}

/// Why a text is not a value of a typed axis (a sentence a user can act on).
public struct AxisValueProblem: Error, Sendable, Hashable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// The `direction` axis: layout direction and pseudolocalization.
public enum LayoutDirection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Left to right.
    case ltr
    /// Right to left.
    case rtl
    /// The locale's own direction (`ar`, `he`, `fa`, `ur` … are right-to-left).
    case auto
    /// Every string doubled (like `-NSDoubleLocalizedStrings`).
    case pseudoDouble = "pseudo-double"
    /// Accented and bracketed strings (`[Ŝéţţîñĝš]`).
    case pseudoAccented = "pseudo-accented"
    /// Forced right-to-left (like `-NSForceRightToLeftWritingDirection`).
    case pseudoRTL = "pseudo-rtl"

    public init?(parsing text: String) { self.init(rawValue: text) }
    public var description: String { rawValue }
}

/// Named window sizes of the `window` axis.
public enum WindowPreset: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case narrowPortrait = "narrow-portrait"
    case narrowLandscape = "narrow-landscape"
    case shortWide = "short-wide"
    case tallNarrow = "tall-narrow"
    case regularSquare = "regular-square"
    case fullWindow = "full-window"
    case smallFloating = "small-floating"

    public var description: String { rawValue }
}

/// A `window` axis value: a preset name or an explicit `WxH` size in points (canonical form `390x844`).
public enum WindowSpec: Sendable, Hashable, CustomStringConvertible {
    case preset(WindowPreset)
    case custom(width: Int, height: Int)

    /// The largest accepted width or height.
    public static let maximumSide = 100_000

    /// Parses a preset name or `WxH` (`x` or `X`, whole positive numbers up to `maximumSide`).
    public init?(parsing text: String) {
        if let preset = WindowPreset(rawValue: text) {
            self = .preset(preset)
            return
        }
        let parts = text.split(separator: "x", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "X", omittingEmptySubsequences: false)
        }
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) && $0.count <= 6 }),
              let w = Int(parts[0]), let h = Int(parts[1]),
              (1...Self.maximumSide).contains(w), (1...Self.maximumSide).contains(h)
        else { return nil }
        self = .custom(width: w, height: h)
    }

    public var description: String {
        switch self {
        case .preset(let p): p.rawValue
        case .custom(let w, let h): "\(w)x\(h)"
        }
    }

    /// Why `text` is not a window value.
    static func problem(_ text: String) -> String {
        let presets = WindowPreset.allCases.map(\.rawValue).joined(separator: ", ")
        if text.contains("x") || text.contains("X") || text.first?.isASCIIDigit == true {
            return "'\(text)' is not a window size; write WxH with whole numbers from 1 to \(maximumSide) (e.g. 390x844)"
        }
        return "'\(text)' is not a window preset; use one of \(presets), or WxH"
    }
}

/// Named network profiles of the `network` axis.
public enum NetworkProfileName: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case edge
    case threeG = "3g"
    case lte
    case flaky
    case offline

    public var description: String { rawValue }
}

/// A custom network profile.
///
/// Canonical string: `custom(latency=200ms,jitter=50ms,rate=30000Bps,failure-rate=0.1,failure=timeout)`;
/// `failure=…` is left out when there is none; the failure rate prints as Swift's shortest round-trip `Double`.
public struct CustomNetwork: Sendable, Hashable, CustomStringConvertible {
    /// One-way added latency in milliseconds (0…600000).
    public var latencyMilliseconds: Int
    /// Latency jitter in milliseconds (0…600000).
    public var jitterMilliseconds: Int
    /// Throughput in bytes per second (1…10^12).
    public var bytesPerSecond: Int
    /// Probability in 0…1 that a request fails.
    public var failureRate: Double
    /// How a failing request fails (`timeout`, `reset`, … lowercase letters, digits and `-`), or nil.
    public var failure: String?

    public init(latencyMilliseconds: Int, jitterMilliseconds: Int, bytesPerSecond: Int, failureRate: Double,
                failure: String? = nil) {
        self.latencyMilliseconds = latencyMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.bytesPerSecond = bytesPerSecond
        self.failureRate = failureRate
        self.failure = failure
    }

    static let millisecondRange = 0...600_000
    static let rateRange = 1...1_000_000_000_000

    /// Nil when every field is in range, else a sentence naming the first field out of range.
    public var problem: String? {
        if !Self.millisecondRange.contains(latencyMilliseconds) { return "latency must be 0…600000 ms" }
        if !Self.millisecondRange.contains(jitterMilliseconds) { return "jitter must be 0…600000 ms" }
        if !Self.rateRange.contains(bytesPerSecond) { return "bytesPerSecond must be 1…10^12" }
        if !(failureRate >= 0 && failureRate <= 1) { return "failureRate must be between 0 and 1" }
        if let failure, !Self.isFailureWord(failure) {
            return "failure must be a word of lowercase letters, digits and '-' (e.g. timeout, reset)"
        }
        return nil
    }

    static func isFailureWord(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 40 && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    public var description: String {
        var s = "custom(latency=\(latencyMilliseconds)ms,jitter=\(jitterMilliseconds)ms,rate=\(bytesPerSecond)Bps,"
        s += "failure-rate=\(failureRate)"
        if let failure { s += ",failure=\(failure)" }
        return s + ")"
    }

    /// Parses the canonical string form (fields in any order; `failure` optional).
    public init?(parsing text: String) {
        guard text.hasPrefix("custom("), text.hasSuffix(")") else { return nil }
        let body = text.dropFirst("custom(".count).dropLast()
        var fields: [String: String] = [:]
        for part in body.split(separator: ",", omittingEmptySubsequences: false) {
            guard let eq = part.firstIndex(of: "=") else { return nil }
            let key = String(part[..<eq])
            guard fields[key] == nil else { return nil }
            fields[key] = String(part[part.index(after: eq)...])
        }
        func number(_ key: String, unit: String) -> Int? {
            guard let v = fields.removeValue(forKey: key), v.hasSuffix(unit) else { return nil }
            let digits = v.dropLast(unit.count)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), digits.count <= 13 else { return nil }
            return Int(digits)
        }
        guard let latency = number("latency", unit: "ms"), let jitter = number("jitter", unit: "ms"),
              let rate = number("rate", unit: "Bps"),
              let failureRateText = fields.removeValue(forKey: "failure-rate"), let failureRate = Double(failureRateText)
        else { return nil }
        let failure = fields.removeValue(forKey: "failure")
        guard fields.isEmpty else { return nil }
        self.init(latencyMilliseconds: latency, jitterMilliseconds: jitter, bytesPerSecond: rate,
                  failureRate: failureRate, failure: failure)
        guard problem == nil else { return nil }
    }
}

/// A `network` axis value: a named profile or a custom one.
public enum NetworkSpec: Sendable, Hashable, CustomStringConvertible {
    case named(NetworkProfileName)
    case custom(CustomNetwork)

    public init?(parsing text: String) {
        if let name = NetworkProfileName(rawValue: text) {
            self = .named(name)
        } else if let custom = CustomNetwork(parsing: text) {
            self = .custom(custom)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .named(let n): n.rawValue
        case .custom(let c): c.description
        }
    }
}

/// BCP-47 language tags (RFC 5646 well-formedness; no registry lookup), canonicalised by case:
/// language lowercase, script title case, region uppercase, everything else lowercase (`zh-hant-tw` → `zh-Hant-TW`).
public enum LocaleTag {
    /// The canonical form of a well-formed tag, or nil.
    public static func canonicalize(_ tag: String) -> String? {
        problem(tag) == nil ? canonicalCase(tag) : nil
    }

    /// Nil when `tag` is a well-formed BCP-47 tag, else why not.
    public static func problem(_ tag: String) -> String? {
        if tag.contains("_") {
            return "'\(tag)' is not a BCP-47 language tag; use '-' not '_' (e.g. \(tag.replacingUnderscores))"
        }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map { String($0).lowercased() }
        guard subtags.allSatisfy({ !$0.isEmpty && $0.count <= 8 && $0.unicodeScalars.allSatisfy(\.isASCIIAlphanumeric) })
        else { return "'\(tag)' is not a BCP-47 language tag: subtags are 1–8 letters or digits separated by '-'" }
        var i = 0
        if subtags[0] == "x" { return subtags.count > 1 ? nil : "'\(tag)' is an empty private-use tag" }
        let language = subtags[0]
        guard language.allSatisfy(\.isASCIILetter), (2...3).contains(language.count) || (5...8).contains(language.count)
        else { return "'\(tag)' is not a BCP-47 language tag: the language must be 2–3 or 5–8 letters (e.g. en, fil)" }
        i = 1
        // extlang: up to three 3-letter subtags after a 2–3 letter language.
        var extlangs = 0
        while i < subtags.count, language.count <= 3, extlangs < 3, subtags[i].count == 3, subtags[i].allSatisfy(\.isASCIILetter) {
            i += 1; extlangs += 1
        }
        if i < subtags.count, subtags[i].count == 4, subtags[i].allSatisfy(\.isASCIILetter) { i += 1 } // script
        if i < subtags.count,
           (subtags[i].count == 2 && subtags[i].allSatisfy(\.isASCIILetter)) || (subtags[i].count == 3 && subtags[i].allSatisfy(\.isASCIIDigit)) {
            i += 1 // region
        }
        var variants = Set<String>()
        while i < subtags.count, isVariant(subtags[i]) {
            guard variants.insert(subtags[i]).inserted else { return "'\(tag)' repeats the variant '\(subtags[i])'" }
            i += 1
        }
        var singletons = Set<String>()
        while i < subtags.count, subtags[i].count == 1, subtags[i] != "x" {
            guard singletons.insert(subtags[i]).inserted else { return "'\(tag)' repeats the extension '\(subtags[i])'" }
            i += 1
            var n = 0
            while i < subtags.count, (2...8).contains(subtags[i].count) { i += 1; n += 1 }
            if n == 0 { return "'\(tag)' has an empty extension '\(Array(singletons).sorted().last ?? "")'" }
        }
        if i < subtags.count, subtags[i] == "x" {
            i += 1
            if i == subtags.count { return "'\(tag)' has an empty private-use part" }
            i = subtags.count
        }
        guard i == subtags.count else {
            return "'\(tag)' is not a BCP-47 language tag: unexpected subtag '\(subtags[i])' (expected e.g. en, en-US, zh-Hant-TW, sr-Latn)"
        }
        return nil
    }

    private static func isVariant(_ s: String) -> Bool {
        (5...8).contains(s.count) || (s.count == 4 && s.first?.isASCIIDigit == true)
    }

    private static func canonicalCase(_ tag: String) -> String {
        let subtags = tag.split(separator: "-").map { String($0).lowercased() }
        var out: [String] = []
        var afterSingleton = false
        for (index, s) in subtags.enumerated() {
            if index == 0 || afterSingleton {
                out.append(s)
            } else if s.count == 1 {
                afterSingleton = true
                out.append(s)
            } else if s.count == 4, s.allSatisfy(\.isASCIILetter) {
                out.append(s.prefix(1).uppercased() + s.dropFirst())
            } else if s.count == 2, s.allSatisfy(\.isASCIILetter) {
                out.append(s.uppercased())
            } else {
                out.append(s)
            }
            if index == 0 && s == "x" { afterSingleton = true }
        }
        return out.joined(separator: "-")
    }

    /// The primary language subtags written right to left (used by `direction: auto`).
    public static let rightToLeftLanguages: Set<String> = ["ar", "arc", "ckb", "dv", "fa", "ha", "he", "iw", "khw",
                                                            "ks", "ku", "ps", "sd", "ur", "yi"]

    /// True when the tag's script is right-to-left (Arab, Hebr, Thaa, Syrc, Adlm, Nkoo, Rohg) or, without a
    /// script, when its language is in `rightToLeftLanguages`.
    public static func isRightToLeft(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-").map { $0.lowercased() }
        guard let language = subtags.first else { return false }
        if let script = subtags.dropFirst().first(where: { $0.count == 4 && $0.allSatisfy(\.isASCIILetter) }) {
            return ["arab", "hebr", "thaa", "syrc", "adlm", "nkoo", "rohg", "mand", "samr"].contains(script)
        }
        return rightToLeftLanguages.contains(language)
    }
}

/// One configuration: axis name → canonical value, kept in sorted key order.
///
/// `canonicalString` is `key=value` pairs sorted by key and joined by `,` (`direction=rtl,locale=ar`).
public struct Configuration: Hashable, Sendable, CustomStringConvertible {
    /// Axis name → canonical value.
    public let values: [String: String]
    /// The axis names, sorted (byte order of their UTF-8).
    public let keys: [String]

    public init(_ values: [String: String]) {
        self.values = values
        self.keys = values.keys.sorted(by: Configuration.keyOrder)
    }

    /// Keys sort by their UTF-8 bytes, so the order is the same on every platform and locale.
    public static func keyOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    public subscript(axis: String) -> String? { values[axis] }

    /// The pairs in canonical (sorted key) order.
    public var pairs: [(key: String, value: String)] { keys.map { ($0, values[$0] ?? "") } }

    /// `key=value,…` in sorted key order.
    public var canonicalString: String { pairs.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }

    public var description: String { canonicalString }

    /// Parses `key=value,…` (commas inside parentheses belong to the value, as in custom networks).
    public init?(parsing text: String) {
        var values: [String: String] = [:]
        guard !text.isEmpty else { self.init([:]); return }
        for part in Self.splitTopLevel(text) {
            guard let eq = part.firstIndex(of: "="), eq != part.startIndex else { return nil }
            let key = String(part[..<eq]).trimmingSpaces
            guard values[key] == nil else { return nil }
            values[key] = String(part[part.index(after: eq)...]).trimmingSpaces
        }
        self.init(values)
    }

    /// Splits on commas that are not inside parentheses.
    static func splitTopLevel(_ text: String) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for i in text.indices {
            switch text[i] {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1)
            case "," where depth == 0:
                parts.append(text[start..<i])
                start = text.index(after: i)
            default: break
            }
        }
        parts.append(text[start...])
        return parts
    }

    /// The typed `locale` value, when present.
    public var locale: String? { values[BuiltInAxis.locale.rawValue] }
    /// The typed `direction` value, when present and valid.
    public var direction: LayoutDirection? { values[BuiltInAxis.direction.rawValue].flatMap(LayoutDirection.init(parsing:)) }
    /// The typed `orientation` value, when present and valid.
    public var orientation: DeviceOrientation? { values[BuiltInAxis.orientation.rawValue].flatMap(DeviceOrientation.init(rawValue:)) }
    /// The typed `window` value, when present and valid.
    public var window: WindowSpec? { values[BuiltInAxis.window.rawValue].flatMap(WindowSpec.init(parsing:)) }
    /// The typed `network` value, when present and valid.
    public var network: NetworkSpec? { values[BuiltInAxis.network.rawValue].flatMap(NetworkSpec.init(parsing:)) }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
    var isASCIILetter: Bool { isASCII && isLetter }
}

extension Unicode.Scalar {
    var isASCIIAlphanumeric: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self) }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }

    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}

extension Substring {
    var isASCIIDigitsOnly: Bool { allSatisfy(\.isASCIIDigit) }
}
