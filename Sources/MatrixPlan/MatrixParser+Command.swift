import FlowSpec

/// The `command` member (docs/COMMAND-JOBS.md): MX028 for its shape, MX027 for its placeholders.
extension MatrixParser {
    static let commandMembers: Set<String> = ["name", "argv", "shell", "env", "cwd", "timeout", "results", "artifacts",
                                              "items"]

    mutating func parseCommand(_ node: JSONNode) -> CommandTemplate? {
        guard node.members != nil else {
            add(.wrongType, "$.command", node.position, "expected an object with 'argv', found \(node.kindName)")
            return nil
        }
        checkMembers(node, path: "$.command", allowed: Self.commandMembers)
        let before = findings.count
        var shell = false
        if let s = node["shell"] {
            if let b = s.bool { shell = b } else { add(.wrongType, "$.command.shell", s.position, "expected true or false, found \(s.kindName)") }
        }
        let argv = stringList(node["argv"], "$.command.argv")
        if node["argv"] == nil {
            add(.missingMember, "$.command.argv", node.position, "a command needs 'argv': the program and its arguments, as a list")
        } else if argv.isEmpty {
            add(.badCommand, "$.command.argv", node["argv"]?.position, "'argv' is empty; name the program to run")
        } else if node["argv"]?.string != nil && !shell {
            add(.badCommand, "$.command.argv", node["argv"]?.position,
                "'argv' is one string: list the program and its arguments, or set \"shell\": true to run it with /bin/sh -c")
        } else if shell && argv.count != 1 {
            add(.badCommand, "$.command.argv", node["argv"]?.position,
                "with \"shell\": true, 'argv' is one script for /bin/sh -c, not \(argv.count) arguments")
        }
        var environment: [String: String] = [:]
        if let env = node["env"] {
            if let members = env.members {
                for m in members {
                    if let v = m.value.string { environment[m.key] = v } else {
                        add(.wrongType, "$.command.env.\(m.key)", m.value.position, "an environment value is a string, found \(m.value.kindName)")
                    }
                    if m.key.isEmpty || m.key.contains("=") {
                        add(.badCommand, "$.command.env.\(m.key)", m.keyPosition, "an environment variable's name is non-empty and has no '='")
                    }
                }
            } else { add(.wrongType, "$.command.env", env.position, "expected an object of strings, found \(env.kindName)") }
        }
        var timeout: Duration?
        if let t = node["timeout"] {
            if let n = t.number, n > 0, n <= 86_400 { timeout = .nanoseconds(Int64((n * 1e9).rounded())) } else {
                add(.badCommand, "$.command.timeout", t.position, "the command's timeout is in seconds, above 0 and at most 86400")
            }
        }
        let cwd = string(node["cwd"], "$.command.cwd", required: false, parent: node)
        let name = string(node["name"], "$.command.name", required: false, parent: node)
        let (items, itemsCommand) = parseItems(node["items"])
        guard findings.count == before else { return nil }
        return CommandTemplate(name: name, argv: argv, shell: shell, environment: environment, workingDirectory: cwd,
                               timeout: timeout, results: stringList(node["results"], "$.command.results"),
                               artifacts: stringList(node["artifacts"], "$.command.artifacts"), items: items,
                               itemsCommand: itemsCommand)
    }

    /// `items`: a list of strings, or `{"command": [...]}` run at plan time.
    private mutating func parseItems(_ node: JSONNode?) -> ([String]?, [String]?) {
        guard let node else { return (nil, nil) }
        if node.members != nil {
            checkMembers(node, path: "$.command.items", allowed: ["command"])
            let argv = stringList(node["command"], "$.command.items.command")
            if argv.isEmpty {
                add(.badCommand, "$.command.items.command", node.position, "'items.command' names the program that prints the items, one a line")
                return (nil, nil)
            }
            return (nil, argv)
        }
        let items = stringList(node, "$.command.items")
        if node.array != nil && items.isEmpty {
            add(.badCommand, "$.command.items", node.position, "'items' is empty; list the items or leave 'items' out")
        }
        if Set(items).count != items.count {
            add(.badCommand, "$.command.items", node.position, "'items' lists an item twice; each item is one job per configuration")
        }
        return (items, nil)
    }

    /// MX027: every placeholder of the template names something a job has. MX028: two placeholders of a shell script
    /// would share one environment variable.
    mutating func checkPlaceholders(_ command: CommandTemplate, axes: [Axis], extraKeys: [String: [String]], root: JSONNode) {
        let keys = Set(axes.map(\.name)).union(extraKeys.keys)
        let hasItems = command.items != nil || command.itemsCommand != nil
        let hasWindow = keys.contains(BuiltInAxis.window.rawValue)
        for (path, text) in command.templatedTexts {
            let script = command.shell && path == "$.command.argv[0]"
            for problem in Placeholder.problems(in: text, keys: keys, hasItems: hasItems, hasWindow: hasWindow,
                                                wholeArgument: path.hasPrefix("$.command.argv") && !script,
                                                shellScript: script) {
                add(.unknownPlaceholder, path, root["command"]?.position, problem)
            }
        }
        guard command.shell, let script = command.argv.first else { return }
        var byVariable: [String: String] = [:]
        for name in Placeholder.names(in: script) where !name.hasPrefix(Placeholder.rawPrefix) {
            let variable = Placeholder.variable(name)
            if let other = byVariable[variable], other != name {
                add(.badCommand, "$.command.argv[0]", root["command"]?.position,
                    "'{\(other)}' and '{\(name)}' would both reach the script as $\(variable); rename one of them")
            }
            byVariable[variable] = name
        }
    }
}

extension CommandTemplate {
    /// MX030 (a warning): the script of a `"shell": true` command pastes values as script text (`{raw:name}`).
    func rawPlaceholderWarnings(file: String, position: SourcePosition?) -> [ValidationFinding] {
        guard shell, let script = argv.first else { return [] }
        return Placeholder.names(in: script).filter { $0.hasPrefix(Placeholder.rawPrefix) }.map { raw in
            let name = raw.dropFirst(Placeholder.rawPrefix.count)
            return ValidationFinding(
                file: file, code: MatrixRule.rawShellPlaceholder.code, path: "$.command.argv[0]", position: position,
                message: "'{\(raw)}' pastes the value into the shell script as script text: a value such as 'x; rm -rf ~' "
                    + "would run as a command. Write '{\(name)}' (the script gets it as \"${\(Placeholder.variable(String(name)))}\")",
                warning: true)
        }
    }
}
