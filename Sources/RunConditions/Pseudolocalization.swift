/// How strings are pseudolocalized for a run.
public enum PseudoMode: String, Sendable, Hashable, CaseIterable {
    /// Strings as translated.
    case none
    /// Every string doubled (`-NSDoubleLocalizedStrings YES`): finds layouts that cannot take longer text.
    case double
    /// Accented and bracketed (`[Àðð ţö Çåŕţ]`, like `-NSAccentuateLocalizedStrings` with
    /// `-NSSurroundLocalizedStrings`): shows clipping (a missing bracket) and hard-coded strings (no accents).
    case accented
}

/// The pseudolocalization transformations.
public enum Pseudolocalizer {
    /// Transforms a translated string for `mode`. `{name}` placeholders are kept intact.
    public static func transform(_ text: String, mode: PseudoMode) -> String {
        switch mode {
        case .none: text
        case .double: text.isEmpty ? text : "\(text) \(text)"
        case .accented: "[" + accent(text) + "]"
        }
    }

    /// Replaces ASCII letters by accented look-alikes, leaving `{placeholders}` untouched.
    public static func accent(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var inPlaceholder = false
        for scalar in text.unicodeScalars {
            if scalar == "{" { inPlaceholder = true }
            if !inPlaceholder, scalar.isASCII, let mapped = accented[Int(scalar.value)] {
                out.append(mapped)
            } else {
                out.append(scalar)
            }
            if scalar == "}" { inPlaceholder = false }
        }
        return String(out)
    }

    private static let accented: [Int: Unicode.Scalar] = {
        let pairs: [(Character, Unicode.Scalar)] = [
            ("a", "å"), ("b", "ƀ"), ("c", "ç"), ("d", "ð"), ("e", "é"), ("f", "ƒ"), ("g", "ĝ"), ("h", "ĥ"), ("i", "î"),
            ("j", "ĵ"), ("k", "ķ"), ("l", "ļ"), ("m", "ɱ"), ("n", "ñ"), ("o", "ö"), ("p", "þ"), ("q", "ǫ"), ("r", "ŕ"),
            ("s", "š"), ("t", "ţ"), ("u", "û"), ("v", "ṽ"), ("w", "ŵ"), ("x", "ẋ"), ("y", "ý"), ("z", "ž"),
            ("A", "Å"), ("B", "Ɓ"), ("C", "Ç"), ("D", "Ð"), ("E", "É"), ("F", "Ƒ"), ("G", "Ĝ"), ("H", "Ĥ"), ("I", "Î"),
            ("J", "Ĵ"), ("K", "Ķ"), ("L", "Ļ"), ("M", "Ṁ"), ("N", "Ñ"), ("O", "Ö"), ("P", "Þ"), ("Q", "Ǫ"), ("R", "Ŕ"),
            ("S", "Š"), ("T", "Ţ"), ("U", "Û"), ("V", "Ṽ"), ("W", "Ŵ"), ("X", "Ẋ"), ("Y", "Ý"), ("Z", "Ž"),
        ]
        var table: [Int: Unicode.Scalar] = [:]
        for (plain, accent) in pairs { if let v = plain.unicodeScalars.first?.value { table[Int(v)] = accent } }
        return table
    }()

    /// True when `text` looks pseudolocalized for `mode` (accented mode: starts with `[` and ends with `]`).
    /// Visible UI copy that is not is hard-coded rather than read from a string table.
    public static func looksLocalized(_ text: String, mode: PseudoMode) -> Bool {
        switch mode {
        case .none, .double: true
        case .accented: !text.contains(where: \.isLetter) || (text.hasPrefix("[") && text.hasSuffix("]"))
        }
    }
}

/// The effective writing direction of a run.
public enum TextDirection: String, Sendable, Hashable, CaseIterable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"

    public var isRightToLeft: Bool { self == .rightToLeft }
}
