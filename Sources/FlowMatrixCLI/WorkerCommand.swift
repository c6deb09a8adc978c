import CommandJobs
import MatrixPlan
import Worker

/// `flowmatrix worker`: a worker process hosting the built-in registries.
enum WorkerCommand {
    static let spec = CommandSpec(
        name: "worker",
        overview: "Run a worker that connects to a coordinator and runs jobs with the built-in registries.",
        usage: "worker --connect <host:port> [--token-file <file>] [--slots <n>] [--label <key=value>] ... [--allow-commands]",
        options: [
            ("--connect <host:port>", "The coordinator's address (numeric IPv4, or [IPv6]:port)."),
            ("--token-file <file>", "File holding the shared token (or set FLOWMATRIX_TOKEN)."),
            ("--slots <n>", "Jobs run at once (default: the core count)."),
            ("--label <key=value>", "A label matched against matrices' required labels (repeatable)."),
            ("--name <name>", "The name shown in reports (default: <hostname>-<pid>)."),
            ("--give-up-after <seconds>", "Exit (code 2) when no coordinator answered for this long."),
            ("--exit-after-drain", "Exit when the coordinator drains this worker instead of reconnecting."),
            ("--registry <name>", "Host only this built-in registry (repeatable; default: all)."),
            ("--allow-commands", "Also run command jobs (the 'command' registry): programs a matrix names, as this user."),
            ("--list-registries [--json]", "Print the hosted registries, one per line (or their manifests as JSON), and exit."),
        ],
        discussion: """
            Built-in registries: \(BuiltInRegistries.all.map(\.name).joined(separator: ", ")), and '\(CommandTemplate.registry)'
            with --allow-commands only: a worker without it never advertises the registry, so the coordinator never
            assigns it a command job (docs/COMMAND-JOBS.md). The local workers of 'flowmatrix run' allow commands.
            The worker reconnects with back-off when the coordinator goes away, and serves the next coordinator
            on the same address. A rejection (wrong token, protocol version) arrives before the coordinator proved
            it knows the token, so it is retried with back-off too, with a warning each time. EXIT CODES: 0 drained
            or stopped, 2 gave up reconnecting, 3 still rejected when --give-up-after ran out, 64 usage error.
            """,
        run: { args in
            let allowCommands = args.flag("--allow-commands")
            let registries = try chosenRegistries(try args.options("--registry"), allowCommands: allowCommands)
            if args.flag(WorkerMain.listRegistriesFlag) {
                let json = args.flag(WorkerMain.jsonFlag)
                _ = try args.positionals()
                print(json ? try WorkerMain.manifestJSON(registries) : registries.map(\.name).sorted().joined(separator: "\n"))
                return ExitCode.success
            }
            // The connection flags are WorkerMain's (shared with every custom worker executable); their errors are
            // reported like every other flowmatrix usage error.
            let settings: WorkerSettings
            do {
                settings = try WorkerMain.parse(args.takeAll())
            } catch let error as WorkerUsageError {
                throw UsageError(error.message)
            }
            let code = await WorkerMain.serve(registries: registries, settings: settings)
            // The web registry's browser (if a web job started one) ends with the worker, its profile removed.
            await BuiltInRegistries.web.shutdown()
            return code
        }
    )

    /// The registries `--registry` names (default: every built-in one), plus `command` when allowed.
    static func chosenRegistries(_ names: [String], allowCommands: Bool) throws -> [RegistryFactory] {
        var registries = BuiltInRegistries.all
        if allowCommands { registries.append(CommandRegistry.factory()) }
        guard !names.isEmpty else { return registries }
        if names.contains(CommandTemplate.registry) && !allowCommands {
            throw UsageError("'--registry \(CommandTemplate.registry)' needs '--allow-commands' (command jobs run programs as this user)")
        }
        if let unknown = names.first(where: { n in !registries.contains { $0.name == n } }) {
            throw UsageError("unknown registry '\(unknown)'; built in: \(registries.map(\.name).joined(separator: ", "))")
        }
        return registries.filter { names.contains($0.name) || ($0.name == CommandTemplate.registry && allowCommands) }
    }
}
