/// One option of a command line, as a row of the declarative table that both parses the arguments
/// (``ParsedArguments``) and writes the help (``CommandHelp``): `flowmatrix`'s subcommands and every worker
/// executable built on `WorkerMain` read their options through it.
public struct CommandOption: Sendable, Hashable {
    /// What an option takes after its name.
    public enum Value: Sendable, Hashable {
        /// Nothing: the option is a flag, present or not.
        case none
        /// Any text, shown in help as `placeholder` (e.g. `<dir>`); the command checks its form.
        case text(_ placeholder: String)
        /// A whole number within `range`, shown as `placeholder`; anything else is a usage error.
        case integer(_ placeholder: String, _ range: ClosedRange<Int>)
        /// One of `choices`, shown as `a|b|c`; anything else is a usage error.
        case choice(_ choices: [String])
        /// Text that may follow only as `--name=value`, shown as `--name[=placeholder]`; the name alone is a flag
        /// (its value empty), and the next word is never taken (`run --isolate` or `run --isolate=30%`).
        case attachedText(_ placeholder: String)
    }

    /// What `--help` says the option's default is.
    public enum Default: Sendable, Hashable {
        /// A value of the option's kind, used when the option is absent (``ParsedArguments/value(_:)`` returns it).
        case value(String)
        /// A default the command works out itself (`the core count`); only shown in help.
        case described(String)
    }

    /// Every spelling, the long one first (`--help`, `-h`).
    public var names: [String]
    public var value: Value
    public var help: String
    /// Whether the option may be given more than once (each value kept, in order); otherwise twice is an error.
    public var repeatable: Bool
    public var defaultValue: Default?

    /// - Parameters:
    ///   - names: every spelling, the long one first.
    ///   - value: what follows the name (`.none` for a flag).
    ///   - help: one sentence for `--help`, without the default (given apart).
    ///   - repeatable: whether it may be given more than once.
    ///   - default: what applies when it is absent.
    public init(_ names: String..., value: Value = .none, help: String, repeatable: Bool = false, default: Default? = nil) {
        self.names = names
        self.value = value
        self.help = help
        self.repeatable = repeatable
        self.defaultValue = `default`
    }

    /// The long name, by which commands read the option.
    public var name: String { names[0] }

    /// True for an option that takes no value.
    public var isFlag: Bool { value == .none }

    /// How the value is shown after the name: `<dir>`, `<n>`, `failed|all|none`; empty for a flag.
    public var placeholder: String {
        switch value {
        case .none: ""
        case .text(let placeholder), .integer(let placeholder, _), .attachedText(let placeholder): placeholder
        case .choice(let choices): choices.joined(separator: "|")
        }
    }

    /// The name and placeholder as help shows them: `--store <dir>`, `--isolate[=<budget>]`.
    private func spelled(_ name: String) -> String {
        if case .attachedText(let placeholder) = value { return name + "[=" + placeholder + "]" }
        return placeholder.isEmpty ? name : name + " " + placeholder
    }

    /// The option as help's left column shows it: `-h, --help`, `--store <dir>`.
    public var synopsis: String {
        let names = names.sorted { $0.count < $1.count }
        return (names.dropLast() + [spelled(names[names.count - 1])]).joined(separator: ", ")
    }

    /// The option as a usage line shows it: `[--store <dir>]`, `[--label <key=value> ...]`.
    public var usageSynopsis: String {
        "[" + spelled(name) + (repeatable ? " ..." : "") + "]"
    }

    /// The help text with its default and repeatability, as the OPTIONS section prints it:
    /// `Jobs run at once (default: the core count).`
    public var helpWithDefault: String {
        var notes: [String] = []
        switch defaultValue {
        case .value(let value)?, .described(let value)?: notes.append("default: \(value)")
        case nil: break
        }
        if repeatable { notes.append("repeatable") }
        guard !notes.isEmpty else { return help }
        let sentence = help.hasSuffix(".") ? String(help.dropLast()) : help
        return sentence + " (" + notes.joined(separator: "; ") + ")."
    }

    /// `-h, --help`: every command takes it; the table adds it to each command's options.
    public static let help = CommandOption("--help", "-h", help: "Show help information.")
}
