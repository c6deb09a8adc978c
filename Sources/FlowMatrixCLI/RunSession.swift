import FlowVocabulary
import Foundation
import Journal
import Reports
import MatrixPlan
import RunControl

/// How `run` and `serve` run a matrix.
struct RunOptions: Sendable {
    var matrixPath: String?
    var store = RunStore(path: nil)
    /// Local worker processes (embedded mode); 0 for `serve`.
    var localWorkers = ProcessInfo.processInfo.activeProcessorCount
    var slotsPerWorker = 2
    /// `--worker-executable`: start the local workers from this program instead of `flowmatrix worker`.
    var workerExecutable: String?
    var resume: String?
    var strict = false
    var baseline: String?
    var host = "127.0.0.1"
    var port = 0
    var token: [UInt8]?
    var quiet = false
    var retriesOverride: Int?
    /// `--repeat`: stability mode, every job this many times (overrides the matrix's `policy.repeat`).
    var repetitionsOverride: Int?
    var seedOverride: UInt64?
    /// `--shard`: run only this shard's share of the plan (docs/SCALE-OUT.md).
    var shard: ShardSelection?
    /// `--max-jobs`: the plan's job limit (MX025).
    var planSettings = PlanSettings()
    /// `--http`: the live view.
    var live: LiveViewOptions?

    /// How to finish run `runID` later with these options: `serve` resumes as `serve`, on the same address.
    func resumeCommand(_ runID: String) -> String {
        guard localWorkers == 0 else { return "flowmatrix run --resume \(runID)" }
        let address = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        return "flowmatrix serve --resume \(runID) --listen \(address)"
            + (RunCommand.isLoopback(host) ? "" : " --token-file <file>")
    }
}

/// `run` and `serve` over the run API (`RunControl.RunController`): the request from the options, the run's events
/// printed (`RunConsole`), Ctrl-C, the summary and the exit code.
enum RunSession {
    /// Exit code when the matrix or its corpus has findings (the run does not start).
    static let invalidInput = ExitCode.invalidInput

    static func execute(_ options: RunOptions) async throws -> Int32 {
        try options.store.create()
        let console = RunConsole(options: options)
        let runRequest = try await request(options)
        console.planNotes = ignoredAxisNotes(options.matrixPath, settings: runRequest.planSettings)
        let controller = RunController(runRequest, onEvent: { console.on($0) })
        console.controller = controller
        let summary: RunResult
        do {
            summary = try await controller.run()
        } catch let error as RunError {
            console.stop()
            try fail(error)
        } catch {
            console.stop()
            throw error
        }
        if let failure = summary.journalFailure {
            FlowMatrixCLI.writeError("Error: run \(summary.runID) stopped because its journal could not be written: \(failure)\n"
                + "  Every result committed before that is kept; '\(options.resumeCommand(summary.runID))' runs the rest.\n")
            return ExitCode.ioError
        }
        if !options.quiet { printSummary(summary, store: options.store) }
        if summary.status != .completed { return ExitCode.interrupted }
        // A visual change under policy.visual.onChange 'fail' fails the run like a failed job (docs/VISUAL.md).
        if (summary.report?.visualFailures ?? 0) > 0 { return ExitCode.failures }
        return RunVerdict.exitCode(strict: options.strict) { summary.progress.count($0) }
    }

    /// The run API's request for these options.
    static func request(_ options: RunOptions) async throws -> RunRequest {
        var request = RunRequest(matrixPath: options.matrixPath, store: options.store)
        request.resume = options.resume
        request.planSettings = options.planSettings
        request.retriesOverride = options.retriesOverride
        request.repetitionsOverride = options.repetitionsOverride
        request.seedOverride = options.seedOverride
        request.shard = options.shard
        (request.host, request.port, request.token) = (options.host, options.port, options.token)
        if options.localWorkers > 0 {
            var launch = WorkerLaunch.flowmatrixWorker()
            if let path = options.workerExecutable {
                let user = try await WorkerLaunch.userWorker(path)
                launch = user.launch
                // Its own registries' manifests, not the built-in ones of the same names.
                request.planSettings.registryManifests = user.published?.manifests ?? []
            }
            var local = LocalWorkerOptions(count: options.localWorkers, slots: options.slotsPerWorker, launch: launch)
            local.quiet = options.quiet
            request.localWorkers = local
        }
        request.liveView = options.live.map { LiveViewHook(options: $0, quiet: options.quiet) }
        request.reports = RunReportWriter(baseline: options.baseline)
        return request
    }

    /// Said once per run, after planning: the axes of the matrix whose values the registry's manifest says it does
    /// not use (`registry web ignores axis 'flavor' (custom): …`). Empty without a matrix path (a resume finds it in
    /// the journal) or a manifest that publishes its axes; a matrix with findings fails planning before they print.
    static func ignoredAxisNotes(_ matrixPath: String?, settings: PlanSettings) -> [String] {
        guard let matrixPath else { return [] }
        let (matrix, _) = MatrixFile.load(from: URL(fileURLWithPath: matrixPath))
        guard let matrix else { return [] }
        return settings.manifests(for: matrix).flatMap(matrix.ignoredAxisNotes)
    }

    /// A run that did not start or could not be served: its findings and message, with the CLI's exit codes.
    static func fail(_ error: RunError) throws -> Never {
        switch error.code {
        case .usage:
            throw UsageError(error.message)
        case .invalidInput:
            for f in error.findings { FlowMatrixCLI.writeError("\(f.description.terminalSafe)\n") }
            throw CommandFailure(error.message, exitCode: invalidInput)
        case .io:
            throw CommandFailure(error.message)
        }
    }

    static func printSummary(_ summary: RunResult, store: RunStore) {
        let final = summary.progress
        let seconds = max(summary.elapsed.milliseconds / 1000, 0.001)
        // Not run without an interrupt: fail-fast stopped dispatching.
        let word = summary.status == .completed && summary.notRun > 0 ? "stopped by fail-fast" : summary.status.rawValue
        FlowMatrixCLI.say(String(format: "run %@ %@ in %.2fs: %d passed, %d failed, %d flaky, %d timed out, %d quarantined, %d not run (%.0f jobs/s)",
                     summary.runID, word, seconds, final.count(.passed), final.count(.failed), final.count(.flaky),
                     final.count(.timedOut), final.count(.quarantined), summary.notRun, Double(summary.ran) / seconds))
        if final.artifactsStored > 0 || final.artifactResends > 0 {
            FlowMatrixCLI.say("  \(final.artifactsStored) artifact(s) stored"
                + (final.artifactResends > 0 ? ", \(final.artifactResends) re-sent after failing verification" : ""))
        }
        if final.supersededResults > 0 { FlowMatrixCLI.say("  \(final.supersededResults) late or duplicate result(s) ignored") }
        if let line = summary.report?.line { FlowMatrixCLI.say("  \(line)") }
        FlowMatrixCLI.say("  details: flowmatrix show \(summary.runID)  (store: \(store.root.path))")
    }
}
