/// JSON text written by hand where a report emits one small value per job (100,000 of them): strings escaped for
/// JSON and, because the text may sit inside an HTML `<script>` data block, `<`, `>` and `&` as `\u003c`-style
/// escapes (so no `</script>` or comment opener can appear).
enum JSONText {
    /// `text` as a quoted JSON string for the page's data (chunks, the run-data block): like `string`, and
    /// bidirectional controls shown as `[U+202E]` (see `Escape.html`), since the page puts these strings on screen.
    static func pageString(_ text: String) -> String {
        // Bidi controls are E2 80 AA–AE and E2 81 A6–A9: most strings have no E2 byte at all.
        guard text.utf8.contains(0xE2), text.unicodeScalars.contains(where: Escape.isBidiControl) else { return string(text) }
        var visible = ""
        for scalar in text.unicodeScalars {
            if Escape.isBidiControl(scalar) {
                visible += "[U+" + String(scalar.value, radix: 16, uppercase: true) + "]"
            } else {
                visible.unicodeScalars.append(scalar)
            }
        }
        return string(visible)
    }

    /// `text` as a quoted JSON string.
    static func string(_ text: String) -> String {
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }) {
            return "\"" + text + "\""
        }
        var out = "\""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number, or `null` for nil or a value JSON cannot carry (NaN, infinity).
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A JSON integer, or `null`.
    static func int(_ value: Int?) -> String { value.map(String.init) ?? "null" }
}
