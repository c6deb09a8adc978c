/// A command line parsed against its option table (``CommandOption``): the values of the options given, and the
/// positional arguments in order.
///
/// `--name value` and `--name=value` are both accepted (only the latter for an ``CommandOption/Value/attachedText(_:)``
/// option); `--` ends option parsing (what follows is positional, even
/// when it starts with `-`); a lone `-` is positional. Every word starting with `-` before `--` must be an option of
/// the table. Reading an option the table does not have is a programming error (checked in debug builds).
public struct ParsedArguments: Sendable {
    /// The table, with ``CommandOption/help`` added.
    public let options: [CommandOption]
    /// Given values per long name, in order (a flag holds one empty string per time it was given).
    private var given: [String: [String]] = [:]
    /// The positional arguments, in order (those after `--` included).
    public private(set) var positionals: [String] = []

    /// Parses `arguments` (without the program or subcommand name) against `options`.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a value a flag does not take, a value that
    ///   is not of the option's kind, or an option that does not repeat given twice.
    public init(_ arguments: [String], options: [CommandOption]) throws(UsageError) {
        self.options = options.contains(.help) ? options : options + [.help]
        var byName: [String: CommandOption] = [:]
        for option in self.options { for name in option.names { byName[name] = option } }
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {
                positionals += arguments[index...]
                break
            }
            guard word.hasPrefix("-"), word != "-" else {
                positionals.append(word)
                continue
            }
            let (name, attached) = Self.split(word)
            guard let option = byName[name] else { throw UsageError("unknown option '\(name)'") }
            var value = ""
            if option.isFlag {
                if attached != nil { throw UsageError("'\(option.name)' takes no value") }
            } else if case .attachedText = option.value {
                value = attached ?? ""
            } else if let attached {
                value = attached
            } else {
                guard index < arguments.count else {
                    throw UsageError("missing value for '\(name)'" + (option.placeholder.isEmpty ? "" : " (\(option.placeholder))"))
                }
                value = arguments[index]
                index += 1
            }
            try Self.check(value, of: option, as: name)
            if !option.repeatable, !option.isFlag, given[option.name] != nil {
                throw UsageError("'\(option.name)' given more than once")
            }
            given[option.name, default: []].append(value)
        }
    }

    /// `--name=value` → (`--name`, `value`); `--name` → (`--name`, nil).
    private static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// Checks `value` against the option's kind.
    private static func check(_ value: String, of option: CommandOption, as name: String) throws(UsageError) {
        switch option.value {
        case .none, .text, .attachedText: return
        case .integer(_, let range):
            guard let number = Int(value), range.contains(number) else {
                throw UsageError("'\(option.name)' takes a whole number from \(range.lowerBound) to \(range.upperBound), "
                    + "not '\(value)'")
            }
        case .choice(let choices):
            guard choices.contains(value) else {
                let list = choices.dropLast().joined(separator: ", ") + (choices.count > 1 ? " or " : "") + (choices.last ?? "")
                throw UsageError("'\(option.name)' takes \(list), not '\(value)'")
            }
        }
    }

    private func declared(_ name: String) -> CommandOption? {
        let option = options.first { $0.name == name }
        assert(option != nil, "'\(name)' is not in this command's option table")
        return option
    }

    /// Whether the option was given (a flag: present).
    public func has(_ name: String) -> Bool {
        _ = declared(name)
        return given[name] != nil
    }

    /// The option's value: the one given, else its ``CommandOption/Default/value(_:)`` default, else nil.
    public func value(_ name: String) -> String? {
        if let values = given[name] { return values.last }
        if case .value(let value)? = declared(name)?.defaultValue { return value }
        return nil
    }

    /// Every value of a repeatable option, in order (empty when absent).
    public func values(_ name: String) -> [String] {
        _ = declared(name)
        return given[name] ?? []
    }

    /// The value of an ``CommandOption/Value/integer(_:_:)`` option (already checked against its range), or its
    /// default, or nil.
    public func integer(_ name: String) -> Int? {
        value(name).flatMap { Int($0) }
    }

    /// Every option given, by long name, in table order (for a command that hands them on).
    public var givenNames: [String] {
        options.map(\.name).filter { given[$0] != nil }
    }
}
