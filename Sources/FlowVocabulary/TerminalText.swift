/// Stored or received strings (failure messages, titles, ids, file names, a worker's name and labels, a peer's
/// REJECT reason) made safe to print on a terminal: `show`, `serve` and the worker all print through it.
///
/// A message a worker sent may hold `ESC ] 0;… BEL` (retitles the terminal), `ESC [2J` (clears it) or a NUL.
/// Every C0 control (U+0000–U+001F), DEL (U+007F), C1 control (U+0080–U+009F) and bidirectional embedding,
/// override or isolate (U+202A–U+202E, U+2066–U+2069, which reorder what follows them) is written visibly as
/// `\u{XX}`; a backslash stays a backslash. Tabs and, where the caller keeps lines, newlines pass through.
public enum TerminalText {
    /// `text` with every control and bidi-control scalar written as `\u{XX}`.
    /// - Parameter keepingNewlines: true for multi-line text laid out by FlowMatrix itself (a diff); false
    ///   for one stored value, whose newlines would break the line it is printed on.
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingNewlines: keepingNewlines) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A multi-line stored message (a failure message, a command's stderr tail) made safe to print as lines: each
    /// newline (or CRLF) stays a line break and every line after the first starts with `indent`, so the message
    /// reads as one indented block under the line that introduces it; trailing blank lines are dropped. Every
    /// other control and bidi-control scalar, a lone carriage return included, is written as `\u{XX}`.
    public static func lines(_ text: String, indent: String) -> String {
        var scalars = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if previousWasCR && scalar != "\n" { scalars.append("\r") }
            previousWasCR = scalar == "\r"
            if !previousWasCR { scalars.append(scalar) }
        }
        if previousWasCR { scalars.append("\r") }
        var lines = escaped(String(scalars), keepingNewlines: true).split(separator: "\n", omittingEmptySubsequences: false)
        while lines.count > 1, lines.last?.allSatisfy({ $0 == " " || $0 == "\t" }) == true { lines.removeLast() }
        return lines.joined(separator: "\n" + indent)
    }

    static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x09: return false
        case 0x0A: return !keepingNewlines
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension String {
    /// This stored string, safe to print on a terminal (`TerminalText.escaped`).
    public var terminalSafe: String { TerminalText.escaped(self) }

    /// This stored multi-line string, safe to print as lines under `indent` (`TerminalText.lines`).
    public func terminalSafeLines(indent: String) -> String { TerminalText.lines(self, indent: indent) }
}
