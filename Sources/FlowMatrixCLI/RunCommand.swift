import FlowCrypto
import FlowVocabulary
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
        forms: ["<matrix>", "--resume <run-id> [<matrix>]"],
        arguments: [("<matrix>", "A matrix file (see docs/MATRIX.md).")],
        options: [
            CommandOption("--workers", value: .integer("<n>", 1...256), help: "Local worker processes.",
                          default: .described("the core count")),
            CommandOption("--slots", value: .integer("<n>", 1...256), help: "Jobs each local worker runs at once.",
                          default: .described("2")),
            CommandOption("--worker-executable", value: .text("<p>"),
                          help: "Start the local workers from this worker program (built on WorkerMain), not 'flowmatrix worker'."),
        ] + commonOptions(resume: "Finish an interrupted run: final jobs stay final, the rest run again.") + [
            CommandOption("--shard", value: .text("<i/n>|auto"),
                          help: "Run only shard i of n (from 1) of the plan; 'auto' reads the engine's index (below)."),
            CommandOption("--shard-count", value: .integer("<n>", 1...100_000),
                          help: "The shard count for '--shard auto' on Kubernetes (or FLOWMATRIX_SHARD_COUNT)."),
            CommandOption("--durations", value: .text("<path>"),
                          help: "Balance shards by a previous run's durations: its journal, store or summary.json."),
        ] + IsolateCommand.Budget.runOptions,
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
            nothing runs), 130 interrupted. With --isolate a run with failures still exits 1 when isolation explains
            them all (2 when isolation could not be done).
            SHARDS: every shard computes the same split of the plan (by count, or longest-first by --durations, which
            every shard must be given alike) and runs its share; 'flowmatrix merge' joins the shard stores into one
            run. A shard resumes like any run ('--resume', its store). docs/SCALE-OUT.md has engine files.
            \(ShardSelection.environmentHelp)
            """,
        run: { args in
            let isolate = try IsolateCommand.Budget.runOption(args)
            var options = try commonOptions(args)
            if let n = args.integer("--workers") { options.localWorkers = n }
            let shardCount = args.integer("--shard-count")
            let durations = args.value("--durations")
            if let (spec, source) = try ShardSelection.resolve(shard: args.value("--shard"), count: shardCount,
                                                               environment: ProcessInfo.processInfo.environment) {
                guard options.resume == nil else { throw UsageError("a resumed shard keeps its share: drop '--shard'") }
                options.shard = ShardSelection(spec: spec, source: source,
                                               durations: try durations.map(ShardSelection.loadDurations),
                                               durationsPath: durations)
            } else if durations != nil {
                throw UsageError("'--durations' balances shards: give it with '--shard'")
            }
            if let n = args.integer("--slots") { options.slotsPerWorker = n }
            options.workerExecutable = args.value("--worker-executable")
            let rest = args.positionals
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
        forms: ["<matrix> --listen <host:port>", "--resume <run-id> [<matrix>] --listen <host:port>"],
        arguments: [("<matrix>", "A matrix file.")],
        options: [
            CommandOption("--listen", value: .text("<host:port>"), help: "Address to listen on. Non-loopback needs a token.",
                          default: .value("127.0.0.1:7700")),
            CommandOption("--token-file", value: .text("<file>"),
                          help: "The shared token workers authenticate with (required off loopback)."),
        ] + commonOptions(resume: "Finish an interrupted run.") + IsolateCommand.Budget.runOptions,
        discussion: """
            Workers: flowmatrix worker --connect <host:port> --token-file <file> (add --allow-commands for a matrix
            with a 'command': other workers never get command jobs). When the run completes the
            coordinator drains its workers and exits; workers reconnect to the next coordinator on that address.
            Without --token-file on loopback a token is generated into <store>/token (mode 0600).
            With --isolate the follow-up runs listen on the same address (a fixed port) for the same workers.
            EXIT CODES: as for 'run'.
            """,
        run: { args in
            let isolate = try IsolateCommand.Budget.runOption(args)
            var options = try commonOptions(args)
            let rest = args.positionals
            guard rest.count <= 1 else { throw UsageError("give one matrix") }
            options.matrixPath = rest.first
            guard options.matrixPath != nil || options.resume != nil else { throw UsageError("missing <matrix>") }
            try listen(args.value("--listen") ?? "127.0.0.1:7700", tokenFile: args.value("--token-file"), into: &options)
            if isolate != nil && options.port == 0 {
                throw UsageError("'--isolate' needs a fixed port in '--listen': its follow-up runs listen there again for "
                    + "the workers to reconnect")
            }
            let code = try await RunSession.execute(options)
            guard let isolate, code == ExitCode.failures else { return code }
            return try await IsolateCommand.afterRun(options, budget: isolate)
        }
    )

    /// `--listen` and `--token-file` (`serve`, `isolate --listen`): no local workers, the address to listen on, and
    /// the token workers authenticate with — the file's, or on loopback one generated into `<store>/token`.
    static func listen(_ address: String, tokenFile: String?, into options: inout RunOptions) throws {
        options.localWorkers = 0
        guard let (host, port) = WorkerMain.splitHostPort(address) else {
            throw UsageError("'--listen' takes host:port (e.g. 0.0.0.0:7700 or [::]:7700), not '\(address)'")
        }
        options.host = host
        options.port = port
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
    }

    /// The options `run` and `serve` share; `resume` is what `--resume` says.
    static func commonOptions(resume: String) -> [CommandOption] {
        [
            .store("Where the journal, blobs and reports live."),
            CommandOption("--resume", value: .text("<run-id>"), help: resume),
            CommandOption("--strict", help: "Flaky jobs fail the run (exit 1)."),
            CommandOption("--baseline", value: .text("<run>"), help: "Compare with a run ('last' or a run id) in the report."),
            CommandOption("--retries", value: .integer("<n>", 0...100), help: "Override the matrix's retry count."),
            CommandOption("--seed", value: .text("<n>"), help: "Override the matrix's seed."),
            CommandOption("--repeat", value: .integer("<n>", 1...1000),
                          help: "Stability mode: run every job n times with n seeds; prints pass and flake rates (stability.json)."),
            CommandOption("--quiet", help: "No progress line or summary."),
            .maxJobs("The job limit: a plan with more jobs is finding MX025 and nothing runs."),
        ] + LiveViewOptions.options
    }

    static func commonOptions(_ args: ParsedArguments) throws -> RunOptions {
        var options = RunOptions()
        options.store = RunStore(path: args.value("--store"))
        options.resume = args.value("--resume")
        options.strict = args.has("--strict")
        options.quiet = args.has("--quiet")
        options.baseline = args.value("--baseline")
        options.retriesOverride = args.integer("--retries")
        options.repetitionsOverride = args.integer("--repeat")
        options.planSettings = args.planSettings
        options.live = try LiveViewOptions.parse(args)
        if let text = args.value("--seed") {
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
