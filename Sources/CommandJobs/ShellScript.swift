import MatrixPlan

/// The script of a `"shell": true` command with its placeholders filled so that no value becomes script text: each
/// `{name}` becomes a reference to an environment variable holding the value (`Placeholder.variable`), written for
/// the quoting it stands in — `"${V}"` outside quotes, `${V}` inside double quotes, `'"${V}"'` inside single quotes —
/// so the value reaches the command as the word (or the part of a word) the template put it in. Only
/// `{raw:name}`, which the matrix asks for explicitly (MX030), pastes the value itself.
///
/// The quoting is followed with a small reading of sh's syntax (quotes, backslashes, `$(…)`, backquotes); where it
/// guesses wrong (a here-document, `case` patterns inside `$(…)`) the value still arrives as a variable's
/// expansion, never as script text: at worst split into words or with a quote character around it.
enum ShellScript {
    /// The script and the variables it reads.
    static func render(_ template: String, values: PlaceholderValues) -> (script: String, environment: [String: String]) {
        guard case .success(let pieces) = Placeholder.pieces(template) else { return (template, [:]) }
        var reader = QuoteReader()
        var script = ""
        var environment: [String: String] = [:]
        for piece in pieces {
            switch piece {
            case .text(let text):
                script += text
                reader.read(text)
            case .name(let name) where name.hasPrefix(Placeholder.rawPrefix):
                let value = values.value(String(name.dropFirst(Placeholder.rawPrefix.count)))
                script += value
                reader.read(value)
            case .name(let name):
                let variable = Placeholder.variable(name)
                environment[variable] = values.value(name)
                script += reader.reference(to: variable)
            }
        }
        return (script, environment)
    }

    /// Where a point of a shell script stands: inside which quotes or substitutions.
    struct QuoteReader {
        enum Context: Equatable {
            case plain
            case single
            case double
            /// `$(…)`, with the parentheses opened inside it.
            case substitution(depth: Int)
            case backquote
        }

        private(set) var stack: [Context] = [.plain]
        private var escaped = false
        private var dollar = false

        /// How a variable is referred to at the current point.
        func reference(to variable: String) -> String {
            switch stack.last ?? .plain {
            case .single: "'\"${\(variable)}\"'"
            case .double: "${\(variable)}"
            // Inside backquotes within double quotes, a double quote would end the outer string.
            case .backquote where stack.contains(.double): "${\(variable)}"
            case .plain, .substitution, .backquote: "\"${\(variable)}\""
            }
        }

        mutating func read(_ text: String) {
            for c in text.unicodeScalars { read(c) }
        }

        private mutating func read(_ c: Unicode.Scalar) {
            let afterDollar = dollar
            dollar = false
            if escaped {
                escaped = false
                return
            }
            let context = stack.last ?? .plain
            switch context {
            case .single:
                if c == "'" { stack.removeLast() }
            case .double:
                switch c {
                case "\\": escaped = true
                case "\"": stack.removeLast()
                case "`": stack.append(.backquote)
                case "$": dollar = true
                case "(" where afterDollar: stack.append(.substitution(depth: 0))
                default: break
                }
            case .plain, .substitution, .backquote:
                switch c {
                case "\\": escaped = true
                case "'": stack.append(.single)
                case "\"": stack.append(.double)
                case "`": if context == .backquote { stack.removeLast() } else { stack.append(.backquote) }
                case "$": dollar = true
                case "(" where afterDollar: stack.append(.substitution(depth: 0))
                case "(": if case .substitution(let depth) = context { stack[stack.count - 1] = .substitution(depth: depth + 1) }
                case ")":
                    if case .substitution(let depth) = context {
                        if depth == 0 { stack.removeLast() } else { stack[stack.count - 1] = .substitution(depth: depth - 1) }
                    }
                default: break
                }
            }
            if stack.isEmpty { stack = [.plain] }
        }
    }
}
