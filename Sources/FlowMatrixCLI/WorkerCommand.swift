import Worker

/// `flowmatrix worker`: a worker process hosting the built-in registries.
enum WorkerCommand {
    static let spec = CommandSpec(
        name: "worker",
        overview: "Run a worker that connects to a coordinator and runs jobs with the built-in registries.",
        usage: "worker --connect <host:port> [--token-file <file>] [--slots <n>] [--label <key=value>] ...",
        options: [
            ("--connect <host:port>", "The coordinator's address (numeric IPv4, or [IPv6]:port)."),
            ("--token-file <file>", "File holding the shared token (or set FLOWMATRIX_TOKEN)."),
            ("--slots <n>", "Jobs run at once (default: the core count)."),
            ("--label <key=value>", "A label matched against matrices' required labels (repeatable)."),
            ("--name <name>", "The name shown in reports (default: <hostname>-<pid>)."),
            ("--give-up-after <seconds>", "Exit (code 2) when no coordinator answered for this long."),
            ("--exit-after-drain", "Exit when the coordinator drains this worker instead of reconnecting."),
            ("--registry <name>", "Host only this built-in registry (repeatable; default: all)."),
        ],
        discussion: """
            Built-in registries: \(BuiltInRegistries.all.map(\.name).joined(separator: ", ")).
            The worker reconnects with back-off when the coordinator goes away, and serves the next coordinator
            on the same address. A rejection (wrong token, protocol version) arrives before the coordinator proved
            it knows the token, so it is retried with back-off too, with a warning each time. EXIT CODES: 0 drained
            or stopped, 2 gave up reconnecting, 3 still rejected when --give-up-after ran out, 64 usage error.
            """,
        run: { args in
            let names = try args.options("--registry")
            var registries = BuiltInRegistries.all
            if !names.isEmpty {
                let unknown = names.filter { n in !registries.contains { $0.name == n } }
                guard unknown.isEmpty else {
                    throw UsageError("unknown registry '\(unknown[0])'; built in: \(registries.map(\.name).joined(separator: ", "))")
                }
                registries = registries.filter { names.contains($0.name) }
            }
            let code = await WorkerMain.run(registries: registries, arguments: args.takeAll())
            // The web registry's browser (if a web job started one) ends with the worker, its profile removed.
            await BuiltInRegistries.web.shutdown()
            return code
        }
    )
}
