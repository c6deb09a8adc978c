/// Escaping for the text formats the reports write. Every string that comes from a scenario, a matrix, a
/// worker or an artifact goes through one of these before it reaches a file.
enum Escape {
    /// Text or a double-quoted attribute value in HTML: `& < > " '` become entities, and bidirectional
    /// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are shown as `[U+202E]`, so a title
    /// such as RLO + "live" cannot display as "evil" nor reorder the text around it (this works inside attributes,
    /// where a `<bdi>` element cannot go).
    static func html(_ text: String) -> String {
        // Most strings need nothing: return them as they are. Bidi controls are E2 80 AA–AE and E2 81 A6–A9.
        if !text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0 || $0 == 0xE2 }) {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "\u{FFFD}"
            case _ where isBidiControl(scalar): out += "[U+" + String(scalar.value, radix: 16, uppercase: true) + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// True for the scalars that embed, override or isolate a run's direction (LRE, RLE, PDF, LRO, RLO; LRI,
    /// RLI, FSI, PDI).
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Text or a double-quoted attribute value in XML 1.0. Characters XML 1.0 cannot carry (control characters
    /// other than tab, line feed and carriage return; U+FFFE, U+FFFF) become U+FFFD. In attributes, tab, line feed
    /// and carriage return become character references so a parser keeps them.
    static func xml(_ text: String, attribute: Bool = false) -> String {
        // Most strings need nothing: no markup character, no control character, no U+FFFE/U+FFFF (EF BF BE/BF).
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0xEF }) {
            return text
        }
        // Byte by byte (a String is valid UTF-8): a JUnit report escapes every failing job's details, which hold
        // apostrophes and line feeds.
        var text = text
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 8 + 16)
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                switch byte {
                case 0x26: out.append(contentsOf: "&amp;".utf8)
                case 0x3C: out.append(contentsOf: "&lt;".utf8)
                case 0x3E: out.append(contentsOf: "&gt;".utf8)
                case 0x22: out.append(contentsOf: "&quot;".utf8)
                case 0x27: out.append(contentsOf: "&apos;".utf8)
                case 0x09, 0x0A, 0x0D:
                    if attribute { out.append(contentsOf: (byte == 0x09 ? "&#9;" : byte == 0x0A ? "&#10;" : "&#13;").utf8) } else {
                        out.append(byte)
                    }
                case 0..<0x20: out.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
                case 0xEF where i + 1 < bytes.count && bytes[i] == 0xBF && (bytes[i + 1] == 0xBE || bytes[i + 1] == 0xBF):
                    // U+FFFE, U+FFFF
                    out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    i += 2
                default: out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// A safe file name component: ASCII letters, digits, `.`, `-`, `_`; anything else becomes `_`; never empty,
    /// never `.` or `..`, at most 100 bytes.
    static func fileName(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(100) {
            let ok = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
            out.unicodeScalars.append(ok ? scalar : "_")
        }
        if out.isEmpty || out.allSatisfy({ $0 == "." }) { out = "_" + out }
        return out
    }
}
