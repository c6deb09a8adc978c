import CommandJobs
import FlowVocabulary
import MatrixPlan
import Worker

/// `flowmatrix worker`: a worker process hosting the built-in registries.
enum WorkerCommand {
    static let spec = CommandSpec(
        name: "worker",
        overview: "Run a worker that connects to a coordinator and runs jobs with the built-in registries.",
        forms: ["--connect <host:port>", "--list-registries [--json]"],
        // WorkerMain's table (every worker executable's), with the built-in registries and command jobs.
        options: WorkerMain.options.map { option in
            guard option.name == "--registry" else { return option }
            var builtIn = option
            builtIn.help = "Host only this built-in registry."
            return builtIn
        } + [
            CommandOption("--allow-commands",
                          help: "Also run command jobs (the 'command' registry): programs a matrix names, as this user."),
        ],
        discussion: """
            Built-in registries: \(BuiltInRegistries.all.map(\.name).joined(separator: ", ")), and '\(CommandTemplate.registry)'
            with --allow-commands only: a worker without it never advertises the registry, so the coordinator never
            assigns it a command job (docs/COMMAND-JOBS.md). The local workers of 'flowmatrix run' allow commands.
            The worker reconnects with back-off when the coordinator goes away, and serves the next coordinator
            on the same address. A rejection (wrong token, protocol version) arrives before the coordinator proved
            it knows the token, so it is retried with back-off too, with a warning each time. EXIT CODES: 0 drained
            or stopped (or listed), 2 gave up reconnecting, 3 still rejected when --give-up-after ran out, 64 usage error.
            """,
        run: { args in
            let registries = try chosenRegistries(args.values("--registry"), allowCommands: args.has("--allow-commands"))
            if let code = try WorkerMain.listIfAsked(args, registries: registries) { return code }
            let code = await WorkerMain.serve(registries: registries, settings: try WorkerMain.settings(args))
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
