/// Text measurement by simple, honest rules: a per-script glyph width (in ems) times the font size.
public enum TextMetrics {
    /// Text styles and their point sizes.
    public enum Font: String, Sendable, Hashable {
        case largeTitle, headline, body, caption

        public var size: Double {
            switch self {
            case .largeTitle: 26
            case .headline: 17
            case .body: 17
            case .caption: 13
            }
        }

        /// Bold styles are 5 % wider.
        var weightFactor: Double { self == .largeTitle || self == .headline ? 1.05 : 1 }
        public var lineHeight: Double { (size * 1.3).rounded() }
    }

    /// The advance of one scalar in ems: Latin/Greek/Cyrillic ~0.55 (capitals 0.66), digits 0.56, Arabic 0.48,
    /// Hebrew 0.52, CJK/kana/hangul 1.0, spaces 0.28, combining marks 0.
    public static func em(_ scalar: Unicode.Scalar) -> Double {
        let v = scalar.value
        switch v {
        case 0x20, 0xA0, 0x2009, 0x202F: return 0.28
        case 0x30...0x39: return 0.56
        case 0x41...0x5A: return 0.66
        case 0x61...0x7A: return 0.55
        case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E: return 0.32
        case 0x200B...0x200F, 0x2066...0x2069, 0x061C: return 0  // zero-width and direction marks
        case 0x0300...0x036F, 0x064B...0x065F, 0x0591...0x05C7: return 0  // combining marks
        case 0x00C0...0x024F, 0x1E00...0x1EFF: return (scalar.properties.isUppercase ? 0.66 : 0.55)
        case 0x0370...0x04FF: return 0.58
        case 0x0600...0x06FF, 0x0750...0x077F, 0xFB50...0xFDFF, 0xFE70...0xFEFF: return 0.48
        case 0x0590...0x05FF: return 0.52
        case 0x1100...0x11FF, 0x2E80...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF00...0xFF60: return 1.0
        case 0x2026: return 0.9
        case 0x2000...0x206F: return 0.4
        case 0x20AC: return 0.56
        default: return 0.6
        }
    }

    /// The width of `text` on one line in `font`.
    public static func width(_ text: String, font: Font) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars { ems += em(scalar) }
        return (ems * font.size * font.weightFactor * 10).rounded() / 10
    }
}
