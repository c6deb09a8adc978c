import FlowSpec
import FlowVocabulary
import Foundation
import UVTransport

/// The entry point of a worker executable: parse the command line, connect, serve, exit with a documented code.
///
/// A worker hosting your own registries is a few lines (see Workers/README.md):
/// ```swift
/// import Foundation
/// import Worker  // the module of the `FlowMatrixWorker` library product
/// exit(await WorkerMain.run(registries: [RegistryFactory(name: "myapp") { job in MyRegistry(job) }]))
/// ```
public enum WorkerMain {
    /// The option table of every worker executable (and, with `--allow-commands`, of `flowmatrix worker`): it parses
    /// the command line and writes the help.
    public static let options: [CommandOption] = [
        CommandOption("--connect", value: .text("<host:port>"), help: "The coordinator's address (numeric IPv4 or [IPv6]:port)."),
        CommandOption("--token-file", value: .text("<file>"), help: "File holding the shared token (or set FLOWMATRIX_TOKEN)."),
        CommandOption("--slots", value: .integer("<n>", 1...1024), help: "Jobs run at once.",
                      default: .described("the core count")),
        CommandOption("--label", value: .text("<key=value>"), help: "A label matched against matrices' required labels.",
                      repeatable: true),
        CommandOption("--name", value: .text("<name>"), help: "The name shown in reports.",
                      default: .described("<hostname>-<pid>")),
        CommandOption("--give-up-after", value: .text("<seconds>"),
                      help: "Exit (code 2) when no coordinator answered for this many seconds."),
        CommandOption("--exit-after-drain", help: "Exit (code 0) when the coordinator drains this worker, instead of reconnecting."),
        CommandOption("--registry", value: .text("<name>"), help: "Host only this registry of the worker's.",
                      repeatable: true, default: .described("all")),
        CommandOption(listRegistriesFlag, help: "Print the hosted registries, one per line, and exit (code 0); "
            + "'flowmatrix run --worker-executable' reads them to refuse a matrix none hosts."),
        CommandOption(jsonFlag, help: "With --list-registries: print their manifests instead (steps wired, assert clauses, "
            + "axes honoured) as {\"manifestVersion\": 1, \"registries\": [...]}; 'flowmatrix validate' checks with them."),
    ]

    /// What every worker's help says after its options.
    public static let exitCodesHelp = """
        EXIT CODES: 0 drained or stopped (or listed), 2 gave up reconnecting, 3 still rejected (wrong token or protocol
        version) when --give-up-after ran out, 64 usage error. A rejection is retried with back-off until then: it
        arrives before the coordinator proved the token, so anyone on that address could have sent it.
        """

    /// The help of a worker executable named `command` hosting `registries`.
    public static func help(command: String, registries: [RegistryFactory]) -> CommandHelp {
        CommandHelp(
            command: command,
            overview: "A FlowMatrix worker hosting: \(registries.map(\.name).sorted().joined(separator: ", "))",
            forms: ["--connect <host:port>", "--list-registries [--json]"], options: options, discussion: exitCodesHelp)
    }

    /// Parses worker flags with ``options``. - Throws: ``UsageError``.
    public static func parse(_ arguments: [String]) throws(UsageError) -> WorkerSettings {
        try settings(ParsedArguments(arguments, options: options))
    }

    /// The connection settings from a command line parsed with (a table holding) ``options``.
    /// - Throws: ``UsageError`` when `--connect` is missing or malformed, a label or `--give-up-after` is malformed,
    ///   or there is no usable token.
    public static func settings(_ arguments: ParsedArguments) throws(UsageError) -> WorkerSettings {
        guard let connect = arguments.value("--connect") else { throw UsageError("missing '--connect <host:port>'") }
        guard let (host, port) = splitHostPort(connect) else {
            throw UsageError("'--connect' takes host:port (e.g. 127.0.0.1:7700 or [::1]:7700), not '\(connect)'")
        }
        let labels = arguments.values("--label")
        if let bad = labels.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
            throw UsageError("'--label' takes key=value, not '\(bad)'")
        }
        var giveUp: Duration?
        if let text = arguments.value("--give-up-after") {
            guard let s = Double(text), s > 0, s.isFinite else { throw UsageError("'--give-up-after' takes seconds > 0, not '\(text)'") }
            giveUp = .milliseconds(Int64(s * 1000))
        }
        let token = try token(file: arguments.value("--token-file"))
        let slots = arguments.integer("--slots") ?? ProcessInfo.processInfo.activeProcessorCount
        let name = arguments.value("--name") ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        var settings = WorkerSettings(host: host, port: port, token: token, name: name, slots: slots, labels: labels)
        settings.giveUpAfter = giveUp
        settings.exitAfterDrain = arguments.has("--exit-after-drain")
        return settings
    }

    /// The token from `file`, else from FLOWMATRIX_TOKEN. - Throws: ``UsageError`` when neither gives a usable one.
    static func token(file: String?) throws(UsageError) -> [UInt8] {
        let token: [UInt8]
        if let file {
            do {
                let read = try TokenFile.read(file)
                token = read.token
                if let warning = read.warning { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            } catch {
                throw UsageError((error as? TokenFileError)?.message ?? "\(error)")
            }
        } else if let env = ProcessInfo.processInfo.environment["FLOWMATRIX_TOKEN"] {
            token = Array(env.utf8)
        } else {
            throw UsageError("no token: pass '--token-file <file>' or set FLOWMATRIX_TOKEN")
        }
        if let problem = TokenFile.problem(with: token) { throw UsageError("the token: \(problem)") }
        return token
    }

    /// The registries `--registry` names among `registries` (all of them when none is named).
    /// - Throws: ``UsageError`` for a name the worker does not host.
    public static func hosted(_ registries: [RegistryFactory], named names: [String]) throws(UsageError) -> [RegistryFactory] {
        guard !names.isEmpty else { return registries }
        if let unknown = names.first(where: { n in !registries.contains { $0.name == n } }) {
            let names = registries.map(\.name)
            let list = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
            throw UsageError("'--registry' takes \(list), not '\(unknown)'")
        }
        return registries.filter { names.contains($0.name) }
    }

    /// Answers `--list-registries [--json]` for `registries` on stdout and returns the exit code; nil when the
    /// command line does not ask.
    /// - Throws: ``UsageError`` for `--json` without `--list-registries`.
    public static func listIfAsked(_ arguments: ParsedArguments, registries: [RegistryFactory]) throws(UsageError) -> Int32? {
        guard arguments.has(listRegistriesFlag) else {
            if arguments.has(jsonFlag) { throw UsageError("'\(jsonFlag)' goes with '\(listRegistriesFlag)'") }
            return nil
        }
        guard arguments.has(jsonFlag) else {
            print(registries.map(\.name).sorted().joined(separator: "\n"))
            return ExitCode.success
        }
        do {
            print(try manifestJSON(registries))
            return ExitCode.success
        } catch {
            FileHandle.standardError.write(Data("Error: cannot encode the registry manifests: \(error)\n".utf8))
            return ExitCode.failures
        }
    }

    /// `host:port` or `[v6]:port` → parts.
    public static func splitHostPort(_ text: String) -> (String, Int)? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else { return nil }
            return (host, port)
        }
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let host = String(text[..<colon])
        guard !host.isEmpty, !host.contains(":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        return (host, port)
    }

    /// Asks a worker executable for the registries it hosts (`run --worker-executable` checks a matrix against them).
    public static let listRegistriesFlag = "--list-registries"

    /// With `--list-registries`: print the manifests as JSON (`RegistryManifest.Document`) instead of names.
    public static let jsonFlag = "--json"

    /// The `--list-registries --json` document of `registries`: sorted keys, one manifest per registry.
    /// - Throws: `EncodingError` (not expected: the document holds only strings, arrays and an integer).
    public static func manifestJSON(_ registries: [RegistryFactory]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let document = RegistryManifest.Document(registries: registries.map(\.manifest))
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    /// Parses `arguments` with ``options``, runs the worker with `registries` (or those `--registry` names), and
    /// returns the process exit code. `--help` and `--list-registries` answer and exit; a usage error prints
    /// `Error: …` and the usage line to stderr and returns 64.
    public static func run(registries: [RegistryFactory], arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        let help = help(command: URL(fileURLWithPath: CommandLine.arguments.first ?? "worker").lastPathComponent,
                        registries: registries)
        let settings: WorkerSettings
        let hosted: [RegistryFactory]
        do throws(UsageError) {
            let parsed = try ParsedArguments(arguments, options: options)
            if parsed.has(CommandOption.help.name) {
                print(help.text, terminator: "")
                return ExitCode.success
            }
            hosted = try self.hosted(registries, named: parsed.values("--registry"))
            if let code = try listIfAsked(parsed, registries: hosted) { return code }
            settings = try self.settings(parsed)
        } catch {
            FileHandle.standardError.write(Data(("Error: \(error.message)\nUsage: \(help.usage)\n"
                + "  See '\(help.command) --help' for more information.\n").utf8))
            return ExitCode.usage
        }
        return await serve(registries: hosted, settings: settings)
    }

    /// Runs the worker with `registries` and parsed `settings` (a host with its own command line, such as
    /// `flowmatrix worker`, parses with `parse` and reports usage errors its own way), and returns the exit code.
    public static func serve(registries: [RegistryFactory], settings: WorkerSettings) async -> Int32 {
        InheritedDescriptors.closeOnExec()
        var settings = settings
        let name = settings.name
        settings.onNotice = { line in FileHandle.standardError.write(Data("worker \(name): \(line)\n".utf8)) }
        let runtime = WorkerRuntime(settings: settings, registries: registries)
        // SIGTERM (a fleet manager stopping the worker) or Ctrl-C: stop cleanly — the jobs it holds are cancelled,
        // their process groups killed, and the connection closed so the coordinator runs them again elsewhere; the
        // worker exits 0 ("stopped"). A second signal exits at once (130).
        let notice = settings.onNotice
        let interrupts = InterruptHandler { count in
            guard count == 1 else { Foundation.exit(ExitCode.interrupted) }
            notice?("stopping: cancelling the jobs it holds (the coordinator runs them again)")
            runtime.stop()
        }
        let exit = await runtime.run()
        interrupts.cancel()
        FileHandle.standardError.write(Data("worker \(settings.name): \(exit) after \(runtime.jobsRun) attempt(s)\n".utf8))
        switch exit {
        case .drained, .stopped: return ExitCode.success
        case .gaveUp: return ExitCode.gaveUp
        case .rejected: return ExitCode.rejected
        }
    }
}
