/// A command's help, written from its option table: `OVERVIEW:` / `USAGE:` / `ARGUMENTS:` / `OPTIONS:` /
/// `SUBCOMMANDS:` then the discussion, as `--help` prints it, and the usage line a usage error prints.
public struct CommandHelp: Sendable {
    /// The command as typed: `flowmatrix plan`, `catalog-worker`.
    public var command: String
    public var overview: String
    /// What follows the command besides its bracketed options, one line per form: `<matrix>`,
    /// `--resume <run-id> [<matrix>]`. The options are added to the first form when they fit on it, else
    /// `[<options>]` stands for them.
    public var forms: [String]
    public var arguments: [(String, String)]
    public var options: [CommandOption]
    public var subcommands: [(String, String)]
    public var discussion: String?

    public init(
        command: String, overview: String, forms: [String], arguments: [(String, String)] = [],
        options: [CommandOption], subcommands: [(String, String)] = [], discussion: String? = nil
    ) {
        self.command = command
        self.overview = overview
        self.forms = forms.isEmpty ? [""] : forms
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.discussion = discussion
    }

    /// The widest usage line before the options are written as `[<options>]`.
    public static let usageWidth = 120

    /// The options a usage line and the OPTIONS section show: the table's, then `-h, --help`.
    public var shownOptions: [CommandOption] {
        options.contains(.help) ? options : options + [.help]
    }

    /// The usage, one line per form, without a heading: `flowmatrix plan [--json] ... <matrix>`.
    public var usage: String {
        let indent = String(repeating: " ", count: "Usage: ".count)
        let bracketed = options.filter { $0 != .help }.map(\.usageSynopsis).joined(separator: " ")
        return forms.enumerated().map { index, form in
            var parts = [command]
            if !form.isEmpty { parts.append(form) }
            if index == 0, !bracketed.isEmpty {
                let inline = (parts + [bracketed]).joined(separator: " ")
                parts.append(inline.count + indent.count <= Self.usageWidth ? bracketed : "[<options>]")
            }
            return (index == 0 ? "" : indent) + parts.joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// The full `--help` text.
    public var text: String {
        var out = "OVERVIEW: \(overview)\n\nUSAGE: \(usage)\n"
        out += Self.section("ARGUMENTS", arguments)
        out += Self.section("OPTIONS", shownOptions.map { ($0.synopsis, $0.helpWithDefault) })
        out += Self.section("SUBCOMMANDS", subcommands)
        if let discussion { out += "\n\(discussion)\n" }
        return out
    }

    /// A titled two-column section; a name wider than the column puts its text on the next line, and text wider
    /// than ``usageWidth`` wraps under itself.
    public static func section(_ title: String, _ rows: [(String, String)]) -> String {
        guard !rows.isEmpty else { return "" }
        var out = "\n\(title):\n"
        let width = min(28, rows.map(\.0.count).max() ?? 0)
        let hanging = String(repeating: " ", count: width + 4)
        for (name, text) in rows {
            let lines = wrapped(text, width: usageWidth - hanging.count)
            if name.count > width {
                out += "  \(name)\n"
            } else {
                out += "  " + name + String(repeating: " ", count: width - name.count) + "  " + (lines.first ?? "") + "\n"
            }
            for line in lines.dropFirst(name.count > width ? 0 : 1) { out += hanging + line + "\n" }
        }
        return out
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word gets a line of its own).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
