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
        guard needsXMLEscape(text) else { return text }
        var out: [UInt8] = []
        xml(text, attribute: attribute, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func needsXMLEscape(_ text: String) -> Bool {
        text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0xEF })
    }

    /// ``xml(_:attribute:)`` appended to `out` as UTF-8, without a string in between (a JUnit report writes every
    /// failing job's case this way).
    static func xml(_ text: String, attribute: Bool = false, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            // Byte by byte (a String is valid UTF-8), a run of bytes that need nothing copied at once: a JUnit
            // report escapes every failing job's details, which hold apostrophes and line feeds.
            var i = 0, plain = 0
            func copyPlain(upTo end: Int) {
                if end > plain { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plain..<end])) }
            }
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                let replacement: StaticString
                switch byte {
                case 0x26: replacement = "&amp;"
                case 0x3C: replacement = "&lt;"
                case 0x3E: replacement = "&gt;"
                case 0x22: replacement = "&quot;"
                case 0x27: replacement = "&apos;"
                case 0x09, 0x0A, 0x0D:
                    guard attribute else { continue }
                    replacement = byte == 0x09 ? "&#9;" : byte == 0x0A ? "&#10;" : "&#13;"
                case 0..<0x20: replacement = "\u{FFFD}"
                case 0xEF where i + 1 < bytes.count && bytes[i] == 0xBF && (bytes[i + 1] == 0xBE || bytes[i + 1] == 0xBF):
                    // U+FFFE, U+FFFF
                    copyPlain(upTo: i - 1)
                    out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    i += 2
                    plain = i
                    continue
                default: continue
                }
                copyPlain(upTo: i - 1)
                out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                plain = i
            }
            copyPlain(upTo: bytes.count)
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
