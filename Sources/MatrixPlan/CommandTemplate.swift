import FlowSpec
import FlowVocabulary

/// A matrix's `command`: an existing test command fanned out over the configurations (and over `items`), run by
/// workers that allow commands (docs/COMMAND-JOBS.md).
///
/// Placeholders (`{locale}`, `{window.width}`, `{job.id}`, …; `Placeholder`) stay in the template: the worker fills
/// them per attempt, so the job id depends only on the template, the item and the configuration.
public struct CommandTemplate: Sendable, Hashable {
    /// The key prefix of the steps that carry a command job's tests (`test:<classname>.<name>`): `show`, the
    /// reports and `diff` treat such steps as tests of their own.
    public static let testStepPrefix = "test:"

    /// Whether a step key is a test's (starts with ``testStepPrefix``, compared byte for byte: a report asks this of
    /// every step of every job, and `hasPrefix` compares by Unicode canonical equivalence).
    public static func isTestStep(_ key: String) -> Bool {
        key.utf8.starts(with: testStepPrefix.utf8)
    }

    /// The registry command jobs are assigned under; only workers started with `--allow-commands` advertise it.
    public static let registry = "command"
    /// The step key of a command job's one declared step (its tests follow as named steps).
    public static let stepTarget = "command"

    /// The name shown in reports (scenario id and title); default: the program's file name.
    public var name: String
    /// The argument vector (placeholders allowed), or with `shell` one script for `/bin/sh -c`.
    public var argv: [String]
    /// Run `argv[0]` with `/bin/sh -c` (only when the matrix asks: arguments are never interpolated into a shell
    /// otherwise).
    public var shell: Bool
    /// Extra environment variables (values may hold placeholders; passed verbatim otherwise).
    public var environment: [String: String]
    /// The working directory, relative to the worker's own (placeholders allowed); nil: the worker's.
    public var workingDirectory: String?
    /// The command's own time limit (its process group is killed); nil: the job's `policy.timeout` only.
    public var timeout: Duration?
    /// JUnit XML files the command writes (globs, relative to the working directory; placeholders allowed).
    public var results: [String]
    /// Further files to keep as artifacts (globs, like `results`).
    public var artifacts: [String]
    /// Items to fan out (one job per item and configuration, `{item}` in the argv), as listed in the file or as
    /// printed by `itemsCommand` at plan time; nil: one job per configuration.
    public var items: [String]?
    /// A command printing the items, one a line, run where the plan is made (its output is part of the plan).
    public var itemsCommand: [String]?

    public init(name: String? = nil, argv: [String], shell: Bool = false, environment: [String: String] = [:],
                workingDirectory: String? = nil, timeout: Duration? = nil, results: [String] = [],
                artifacts: [String] = [], items: [String]? = nil, itemsCommand: [String]? = nil) {
        self.name = name ?? argv.first.map { String($0.split(separator: "/").last ?? Substring($0)) } ?? "command"
        self.argv = argv
        self.shell = shell
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.timeout = timeout
        self.results = results
        self.artifacts = artifacts
        self.items = items
        self.itemsCommand = itemsCommand
    }

    /// Every text that may hold placeholders, with its JSON path (for findings).
    public var templatedTexts: [(path: String, text: String)] {
        var out = argv.enumerated().map { ("$.command.argv[\($0.offset)]", $0.element) }
        out += environment.keys.sorted().map { ("$.command.env.\($0)", environment[$0] ?? "") }
        if let workingDirectory { out.append(("$.command.cwd", workingDirectory)) }
        out += results.enumerated().map { ("$.command.results[\($0.offset)]", $0.element) }
        out += artifacts.enumerated().map { ("$.command.artifacts[\($0.offset)]", $0.element) }
        return out
    }

    /// The scenarios the planner crosses with the configurations: one per item (or one), each with a single
    /// `request:command` step whose argument is the template's canonical JSON with the item.
    public func scenarios() -> [Scenario] {
        guard let items else { return [scenario(item: nil)] }
        return items.map { scenario(item: $0) }
    }

    /// The scenario of one item (nil: the command without items).
    public func scenario(item: String?) -> Scenario {
        Scenario(id: item.map { "\(name)[\($0)]" } ?? name, title: item ?? name, tags: ["command"],
                 steps: [Step(verb: .request, target: Self.stepTarget, arg: canonicalJSON(item: item))])
    }

    /// The job's command as the worker reads it: no whitespace, keys sorted, absent members left out.
    public func canonicalJSON(item: String?) -> String {
        var m: [(String, String)] = [("argv", jsonArray(argv)), ("name", jsonString(name))]
        if shell { m.append(("shell", "true")) }
        if !environment.isEmpty { m.append(("env", jsonObject(environment.map { ($0.key, jsonString($0.value)) }))) }
        if let workingDirectory { m.append(("cwd", jsonString(workingDirectory))) }
        if let timeout { m.append(("timeoutMillis", "\(Int64(timeout.milliseconds.rounded()))")) }
        if !results.isEmpty { m.append(("results", jsonArray(results))) }
        if !artifacts.isEmpty { m.append(("artifacts", jsonArray(artifacts))) }
        if let item { m.append(("item", jsonString(item))) }
        return jsonObject(m)
    }

    private func jsonArray(_ values: [String]) -> String { "[" + values.map(jsonString).joined(separator: ",") + "]" }
}

/// A placeholder of a command template: `{name}` in an argument, environment value, directory or glob; `{{` and `}}`
/// are literal braces.
public enum Placeholder {
    /// Placeholders every command job has.
    public static let job: Set<String> = ["job.id", "attempt", "seed", "output", "item"]
    /// The device mapping of `plan --device-args` (RunConditions' `DeviceArguments`).
    public static let device: Set<String> = ["device.testLanguage", "device.testRegion", "device.orientation",
                                             "device.windowSize"]
    /// Device placeholders that stand for several arguments: allowed only as a whole argument.
    public static let deviceLists: Set<String> = ["device.launchArguments", "device.xcodebuildFlags"]
    /// Derived from the `window` axis.
    public static let window: Set<String> = ["window.width", "window.height"]
    /// `{raw:name}`: in a `"shell": true` script, the value pasted as script text (MX030 warns); anywhere else the
    /// same as `{name}`, which a shell script gets as an environment variable (`variable(_:)`).
    public static let rawPrefix = "raw:"

    /// The environment variable through which a shell script gets placeholder `name`: `FLOWMATRIX_` and the name in
    /// capitals, every character other than a letter or digit an underscore (`{window.width}`:
    /// `FLOWMATRIX_WINDOW_WIDTH`; `{job.id}`: `FLOWMATRIX_JOB_ID`, as every command has it).
    public static func variable(_ name: String) -> String {
        "FLOWMATRIX_" + String(name.uppercased().unicodeScalars.map { scalar -> Character in
            ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
        })
    }

    /// The placeholder names of `text` (raw ones with their prefix); empty when its braces do not balance.
    public static func names(in text: String) -> [String] {
        guard case .success(let pieces) = pieces(text) else { return [] }
        return pieces.compactMap { if case .name(let n) = $0 { n } else { nil } }
    }

    /// A piece of a template: literal text or a placeholder name.
    public enum Piece: Sendable, Hashable {
        case text(String)
        case name(String)
    }

    /// Splits `text` into pieces. - Returns: nil with a reason when a brace is unbalanced.
    public static func pieces(_ text: String) -> Result<[Piece], PlaceholderProblem> {
        var pieces: [Piece] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "{" || c == "}", next < text.endIndex, text[next] == c {
                literal.append(c)
                i = text.index(after: next)
                continue
            }
            if c == "}" { return .failure(PlaceholderProblem("a '}' without its '{' (write '}}' for a literal brace)")) }
            if c == "{" {
                guard let close = text[next...].firstIndex(of: "}") else {
                    return .failure(PlaceholderProblem("a '{' without its '}' (write '{{' for a literal brace)"))
                }
                if !literal.isEmpty { pieces.append(.text(literal)) }
                literal = ""
                pieces.append(.name(String(text[next..<close])))
                i = text.index(after: close)
                continue
            }
            literal.append(c)
            i = next
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return .success(pieces)
    }

    /// Problems with the placeholders of `text`, given the configuration keys the matrix can produce.
    /// - Parameters:
    ///   - wholeArgument: the text is one argv element (list placeholders are allowed when alone).
    ///   - shellScript: the text is the script of a `"shell": true` command (`{raw:…}` is allowed).
    public static func problems(in text: String, keys: Set<String>, hasItems: Bool, hasWindow: Bool,
                                wholeArgument: Bool, shellScript: Bool = false) -> [String] {
        let written: [String]
        switch pieces(text) {
        case .failure(let problem): return [problem.message]
        case .success(let pieces): written = pieces.compactMap { if case .name(let n) = $0 { n } else { nil } }
        }
        var problems: [String] = []
        if !shellScript, let raw = written.first(where: { $0.hasPrefix(rawPrefix) }) {
            problems.append("'{\(raw)}' pastes a value into a shell script; only the script of a \"shell\": true command has one (write '{\(raw.dropFirst(rawPrefix.count))}')")
        }
        let names = written.map { $0.hasPrefix(rawPrefix) ? String($0.dropFirst(rawPrefix.count)) : $0 }
        return problems + names.compactMap { name -> String? in
            if name == "item" && !hasItems { return "'{item}' needs 'items' (a list, or a command that prints them)" }
            if job.contains(name) || device.contains(name) || keys.contains(name) { return nil }
            if window.contains(name) { return hasWindow ? nil : "'{\(name)}' needs a 'window' axis" }
            // In an argument a list stands alone (it becomes several arguments); elsewhere it is joined by spaces.
            if deviceLists.contains(name) {
                return !wholeArgument || (names.count == 1 && text == "{\(name)}")
                    ? nil : "'{\(name)}' stands for several arguments: write it alone as one argv element"
            }
            let known = (job.union(device).union(deviceLists).union(window).union(keys)).sorted()
            let hint = known.min { editDistance($0, name) < editDistance($1, name) }
                .flatMap { editDistance($0, name) <= 2 ? " (did you mean '{\($0)}'?)" : nil } ?? ""
            return "unknown placeholder '{\(name)}'\(hint); known: \(known.map { "{\($0)}" }.joined(separator: ", "))"
        }
    }
}

/// Why a template's braces do not parse.
public struct PlaceholderProblem: Error, Sendable, Hashable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
