import Baselines
import FlowVocabulary
import Foundation
import Journal
import RunControl

/// `flowmatrix baseline accept|show|reject|export|import`: the visual baselines (docs/VISUAL.md).
enum BaselineCommand {
    static let spec = CommandSpec(
        name: "baseline",
        overview: "Accept a run's step pictures as visual baselines, list, reject, export or import them.",
        forms: ["accept <run-id> [--scenario <id>] [--where <axis=value> ...]",
                "show [--scenario <id>] [--where <axis=value> ...]",
                "reject (--scenario <id> | --where <axis=value> ... | --all)",
                "export <dir> [--scenario <id>] [--where <axis=value> ...]", "import <dir>"],
        arguments: [("<run-id>", "A run id (or 'last')."),
                    ("<dir>", "A baseline folder: <registry>/<scenario>/<configuration>/step-N.png and manifest.json.")],
        options: [
            CommandOption("--scenario", value: .text("<id>"), help: "Only this scenario's steps."),
            CommandOption("--where", value: .text("<axis=value>"), help: "Only configurations with this value.",
                          repeatable: true),
            CommandOption("--all", help: "With 'reject': every baseline."),
            .store(),
        ],
        subcommands: [
            ("accept", "Make the run's step pictures the baselines of their (registry, scenario, configuration, step)."),
            ("show", "List the baselines."),
            ("reject", "Remove baselines (the next run reports those steps as new)."),
            ("export", "Write the baselines as a folder to commit."),
            ("import", "Read a folder's baselines into the store (all checked first; nothing stored on a problem)."),
        ],
        discussion: """
            A baseline belongs to (registry, scenario id, configuration, step), not to a job id: editing a scenario
            keeps its baselines. Accepting again re-baselines only the steps whose picture moved. Every run compares
            each step picture with its baseline; the matrix's policy.visual says how (docs/VISUAL.md).
            EXIT CODES: 0 success, 2 the store cannot be read or written, 64 usage error,
            65 bad input: a bad baseline folder (no manifest, a missing or corrupt PNG, a picture of another size),
            an unknown run, or a run with no step picture to accept.
            """,
        run: { args in try await execute(args) }
    )

    static func execute(_ args: ParsedArguments) async throws -> Int32 {
        var positional = args.positionals
        guard !positional.isEmpty else { throw UsageError("give a subcommand: accept, show, reject, export or import") }
        let action = positional.removeFirst()
        let store = RunStore(path: args.value("--store"))
        let selection = try selection(args)
        do {
            switch action {
            case "accept":
                guard positional.count == 1 else { throw UsageError("'accept' takes one <run-id>") }
                try store.requireJournal()
                let reader = try JournalReader(path: store.journalPath)
                let runID = try ArtifactsCommand.resolveRun(positional[0], reader: reader)
                let done = try BaselineStore(root: store.root).accept(runID: runID, reader: reader, selection: selection)
                print("accepted \(done.accepted) step picture(s) of run \(runID) as baselines; \(done.unchanged) already were"
                      + (done.jobsWithoutPictures > 0 ? "; \(done.jobsWithoutPictures) job(s) kept no picture" : ""))
            case "show":
                guard positional.isEmpty else { throw UsageError("'show' takes no argument") }
                try show(BaselineStore(root: store.root), selection)
            case "reject":
                guard positional.isEmpty else { throw UsageError("'reject' takes no argument") }
                guard args.has("--all") || selection != BaselineStore.Selection() else {
                    throw UsageError("'reject' needs --scenario, --where or --all")
                }
                let removed = try BaselineStore(root: store.root).reject(selection)
                print("rejected \(removed) baseline(s)")
            case "export", "import":
                guard positional.count == 1 else { throw UsageError("'\(action)' takes one <dir>") }
                let folder = URL(fileURLWithPath: positional[0])
                let baselines = try BaselineStore(root: store.root)
                if action == "export" {
                    let count = try BaselineFolder.export(baselines, to: folder, selection: selection)
                    print("exported \(count) baseline(s) to \(folder.path)")
                } else {
                    let count = try BaselineFolder.importFolder(folder, into: baselines)
                    print("imported \(count) baseline(s) from \(folder.path)")
                }
            default:
                throw UsageError("unknown subcommand '\(action)'; use accept, show, reject, export or import")
            }
        } catch let error as BaselineError {
            throw CommandFailure(error.message, exitCode: error.exitCode)
        }
        return ExitCode.success
    }

    /// `--scenario` and `--where axis=value` (each once per axis).
    static func selection(_ args: ParsedArguments) throws -> BaselineStore.Selection {
        var conditions: [String: String] = [:]
        for pair in args.values("--where") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw UsageError("--where takes <axis=value>, not '\(pair)'")
            }
            guard conditions[String(parts[0])] == nil else { throw UsageError("--where names axis '\(parts[0])' twice") }
            conditions[String(parts[0])] = String(parts[1])
        }
        return BaselineStore.Selection(scenario: args.value("--scenario"), conditions: conditions)
    }

    static func show(_ store: BaselineStore, _ selection: BaselineStore.Selection) throws {
        let entries = try store.load().values.filter { selection.selects($0.key) }.sorted { $0.key < $1.key }
        if entries.isEmpty { print("no baselines\(selection == BaselineStore.Selection() ? "" : " match") (accept a run's pictures with 'flowmatrix baseline accept <run-id>')") }
        for e in entries {
            print("\(e.key.registry)  \(e.key.scenario.terminalSafe)  \(e.key.configuration.terminalSafe)  step \(e.key.step)  "
                  + "\(e.width)×\(e.height)  from \(e.acceptedFrom)  \(e.sha256.prefix(16))")
        }
    }
}
