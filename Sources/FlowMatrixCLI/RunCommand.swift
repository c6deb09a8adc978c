import FlowCrypto
import Foundation
import RunControl
import UVTransport
import MatrixPlan
import Worker

/// `flowmatrix run` and `flowmatrix serve`: run a matrix with local workers, or for a fleet.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        overview: "Run a matrix: an embedded coordinator on loopback plus local worker processes.",
        usage: "run <matrix> [--workers <n>] [--slots <n>] [--worker-executable <path>] [--store <dir>] [--strict]\n"
            + "                      [--baseline last|<run-id>]\n"
            + "                      [--http [<addr>:]<port> [--http-token-file <file>] [--http-linger <s>]]\n"
            + "                      [--max-jobs <n>] [--repeat <n>] [--shard <i/n>|auto [--shard-count <n>]]\n"
            + "                      [--durations <journal|summary.json>]\n"
            + "                      | run --resume <run-id> [<matrix>]",
        arguments: [("<matrix>", "A matrix file (see docs/MATRIX.md).")],
        options: [
            ("--workers <n>", "Local worker processes (default: the core count)."),
            ("--slots <n>", "Jobs each local worker runs at once (default: 2)."),
            ("--worker-executable <p>",
             "Start the local workers from this worker program (built on WorkerMain), not 'flowmatrix worker'."),
            ("--store <dir>", "Where the journal, blobs and reports live (default: .flowmatrix)."),
            ("--resume <run-id>", "Finish an interrupted run: final jobs stay final, the rest run again."),
            ("--strict", "Flaky jobs fail the run (exit 1)."),
            ("--baseline <run>", "Compare with a run ('last' or a run id) in the report."),
            ("--retries <n>", "Override the matrix's retry count."),
            ("--seed <n>", "Override the matrix's seed."),
            ("--repeat <n>", "Stability mode: run every job n times with n seeds; prints pass and flake rates (stability.json)."),
            ("--quiet", "No progress line or summary."),
            ("--shard <i/n>", "Run only shard i of n (from 1) of the plan; 'auto' reads the engine's index (below)."),
            ("--shard-count <n>", "The shard count for '--shard auto' on Kubernetes (or FLOWMATRIX_SHARD_COUNT)."),
            ("--durations <path>", "Balance shards by a previous run's durations: its journal, store or summary.json."),
            ("--max-jobs <n>", "The job limit: a plan with more jobs is finding MX025 and nothing runs (default 1000000)."),
            ("--isolate[=<budget>]", "After a run with failures, run 'flowmatrix isolate' on it (budget as there; default 20%)."),
        ] + LiveViewOptions.help,
        discussion: """
            Ctrl-C once stops dispatching and lets in-flight jobs finish; twice cancels them. The journal stays
            consistent either way; 'flowmatrix run --resume <run-id>' finishes the run later.
            The local workers allow command jobs (a matrix's 'command', docs/COMMAND-JOBS.md): you asked for it here.
            With --worker-executable they are that program (catalog-worker, your own worker, the tests' test-worker):
            it gets --connect, --slots, --name, --exit-after-drain and --give-up-after, and the token in
            FLOWMATRIX_TOKEN. Its registries ('<path> --list-registries --json') are checked before the run when it
            answers, and the scenarios against their manifests (FS021, FS022). A registry that ignores an axis of the
            matrix is named once, after planning ('note: registry web ignores axis …').
            EXIT CODES: 0 all jobs passed (flaky allowed unless --strict), 1 failures, 2 I/O error (store, port),
            64 usage error, 65 the matrix or its corpus has findings (a plan over --max-jobs, MX025, included;
            nothing runs), 130 interrupted.
            SHARDS: every shard computes the same split of the plan (by count, or longest-first by --durations, which
            every shard must be given alike) and runs its share; 'flowmatrix merge' joins the shard stores into one
            run. A shard resumes like any run ('--resume', its store). docs/SCALE-OUT.md has engine files.
            \(ShardSelection.environmentHelp)
            """,
        run: { args in
            let isolate = try IsolateCommand.Budget.runOption(&args)
            var options = try commonOptions(&args)
            if let n = try args.intOption("--workers", in: 1...256) { options.localWorkers = n }
            let shardCount = try args.intOption("--shard-count", in: 1...100_000)
            let durations = try args.option("--durations")
            if let (spec, source) = try ShardSelection.resolve(shard: try args.option("--shard"), count: shardCount,
                                                               environment: ProcessInfo.processInfo.environment) {
                guard options.resume == nil else { throw UsageError("a resumed shard keeps its share: drop '--shard'") }
                options.shard = ShardSelection(spec: spec, source: source,
                                               durations: try durations.map(ShardSelection.loadDurations),
                                               durationsPath: durations)
            } else if durations != nil {
                throw UsageError("'--durations' balances shards: give it with '--shard'")
            }
            if let n = try args.intOption("--slots", in: 1...256) { options.slotsPerWorker = n }
            options.workerExecutable = try args.option("--worker-executable")
            let rest = try args.positionals()
            guard rest.count <= 1 else { throw UsageError("give one matrix") }
            options.matrixPath = rest.first
            guard options.matrixPath != nil || options.resume != nil else { throw UsageError("missing <matrix>") }
            let code = try await RunSession.execute(options)
            guard let isolate, code == ExitCode.failures else { return code }
            return try await IsolateCommand.afterRun(options, budget: isolate)
        }
    )

    static let serveSpec = CommandSpec(
        name: "serve",
        overview: "Run a matrix as a coordinator for workers on other machines (no local workers).",
        usage: "serve <matrix> --listen <host:port> [--token-file <file>] [--store <dir>] [--resume <run-id>] [--max-jobs <n>]\n"
            + "                        [--http [<addr>:]<port> [--http-token-file <file>] [--http-linger <s>]]",
        arguments: [("<matrix>", "A matrix file.")],
        options: [
            ("--listen <host:port>", "Address to listen on (default 127.0.0.1:7700). Non-loopback needs a token."),
            ("--token-file <file>", "The shared token workers authenticate with (required off loopback)."),
            ("--store <dir>", "Where the journal, blobs and reports live (default: .flowmatrix)."),
            ("--resume <run-id>", "Finish an interrupted run."),
            ("--strict", "Flaky jobs fail the run (exit 1)."),
            ("--baseline <run>", "Compare with a run ('last' or a run id) in the report."),
            ("--retries <n>", "Override the matrix's retry count."),
            ("--seed <n>", "Override the matrix's seed."),
            ("--repeat <n>", "Stability mode: run every job n times with n seeds; prints pass and flake rates (stability.json)."),
            ("--quiet", "No progress line or summary."),
            ("--max-jobs <n>", "The job limit: a plan with more jobs is finding MX025 and nothing runs (default 1000000)."),
            ("--isolate[=<budget>]", "After a run with failures, run 'flowmatrix isolate' on it (budget as there; default 20%)."),
        ] + LiveViewOptions.help,
        discussion: """
            Workers: flowmatrix worker --connect <host:port> --token-file <file> (add --allow-commands for a matrix
            with a 'command': other workers never get command jobs). When the run completes the
            coordinator drains its workers and exits; workers reconnect to the next coordinator on that address.
            Without --token-file on loopback a token is generated into <store>/token (mode 0600).
            EXIT CODES: as for 'run'.
            """,
        run: { args in
            var options = try commonOptions(&args)
            options.localWorkers = 0
            let listen = try args.option("--listen") ?? "127.0.0.1:7700"
            guard let (host, port) = WorkerMain.splitHostPort(listen) else {
                throw UsageError("'--listen' takes host:port (e.g. 0.0.0.0:7700 or [::]:7700), not '\(listen)'")
            }
            options.host = host
            options.port = port
            let tokenFile = try args.option("--token-file")
            let rest = try args.positionals()
            guard rest.count <= 1 else { throw UsageError("give one matrix") }
            options.matrixPath = rest.first
            guard options.matrixPath != nil || options.resume != nil else { throw UsageError("missing <matrix>") }
            if let tokenFile {
                options.token = try readToken(tokenFile)
            } else if isLoopback(host) {
                try options.store.create()
                let path = options.store.root.appendingPathComponent("token").path
                let token = Hex.encode(secureRandomBytes(32))
                guard FileManager.default.createFile(atPath: path, contents: Data(token.utf8), attributes: [.posixPermissions: 0o600]) else {
                    throw CommandFailure("cannot write the token file \(path)")
                }
                options.token = Array(token.utf8)
                FlowMatrixCLI.say("token written to \(path)")
            } else {
                throw UsageError("listening on \(host) (not loopback) needs --token-file: network peers must authenticate")
            }
            return try await RunSession.execute(options)
        }
    )

    static func commonOptions(_ args: inout ArgumentList) throws -> RunOptions {
        var options = RunOptions()
        options.store = RunStore(path: try args.option("--store"))
        options.resume = try args.option("--resume")
        options.strict = args.flag("--strict")
        options.quiet = args.flag("--quiet")
        options.baseline = try args.option("--baseline")
        options.retriesOverride = try args.intOption("--retries", in: 0...100)
        options.repetitionsOverride = try args.intOption("--repeat", in: 1...1000)
        options.planSettings = try args.planSettings()
        options.live = try LiveViewOptions.parse(&args)
        if let text = try args.option("--seed") {
            guard let seed = UInt64(text) else { throw UsageError("'--seed' takes a whole number, not '\(text)'") }
            options.seedOverride = seed
        }
        return options
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "::1" || host.hasPrefix("127.") || host == "localhost"
    }

    static func readToken(_ path: String) throws -> [UInt8] {
        do {
            let (token, warning) = try TokenFile.read(path)
            if let warning { FlowMatrixCLI.writeError("warning: \(warning)\n") }
            return token
        } catch let error as TokenFileError {
            throw CommandFailure(error.message)
        }
    }
}
