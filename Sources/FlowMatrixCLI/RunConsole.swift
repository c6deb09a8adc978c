import Coordinator
import FlowVocabulary
import Foundation
import LiveView
import RunControl
import Synchronization
import Worker

/// What `run` and `serve` print while a `RunController` runs, and Ctrl-C: the phases, the run's first line, the
/// progress line (from serving until every job is final), notices and journal failures.
final class RunConsole: Sendable {
    private let options: RunOptions

    private struct State {
        var controller: RunController?
        var interrupts: InterruptHandler?
        var ticker: Task<Void, Never>?
        var progress: ProgressLine?
        var started = ContinuousClock.now
        var planNotes: [String] = []
    }

    private let state = Mutex(State())

    init(options: RunOptions) { self.options = options }

    /// Notes printed once, when the run is planned (the axes its registry ignores).
    var planNotes: [String] {
        get { state.withLock { $0.planNotes } }
        set { state.withLock { $0.planNotes = newValue } }
    }

    /// The run Ctrl-C stops.
    var controller: RunController? {
        get { state.withLock { $0.controller } }
        set { state.withLock { $0.controller = newValue } }
    }

    private func say(_ line: @autoclosure () -> String) {
        if !options.quiet { FlowMatrixCLI.say(line()) }
    }

    /// Prints one event of the run (or starts and stops what serving needs).
    func on(_ event: RunEvent) {
        switch event {
        case .planning(let matrixPath):
            say("planning \(matrixPath) …")
        case .planned(let jobs, let seconds):
            say(String(format: "planned %d jobs in %.1f s", jobs, seconds))
            for note in planNotes { say("note: \(note.terminalSafe)") }
        case .resuming(let runID, let alreadyFinal, let toRun):
            say("resuming run \(runID): \(alreadyFinal) job(s) already final, \(toRun) to run")
        case .serving(let run):
            serving(run)
        case .notice(let line):
            // A notice may quote what a worker sent (its name, its labels): escaped, as `show` prints stored text.
            if !options.quiet { FlowMatrixCLI.writeError("\nnotice: \(line.terminalSafe)\n") }
        case .journalWriteFailed(let text):
            FlowMatrixCLI.writeError("journal: \(text)\n")
        case .journalFailed(let runID, let error):
            // Said at once: nothing more is dispatched.
            FlowMatrixCLI.writeError("\nError: the journal cannot be written (\(error)): dispatching stopped, in-flight "
                + "jobs finish. Free space in \(options.store.root.path), then finish the run with "
                + "'\(options.resumeCommand(runID))'.\n")
        case .served(let final, _):
            let (progress, started) = state.withLock { ($0.progress, $0.started) }
            stop()
            progress?.finish(final, elapsed: ContinuousClock.now - started)
        case .writingReports:
            say("writing reports …")
        case .reportsWritten(let seconds, let note):
            for warning in note.warnings { FlowMatrixCLI.writeError("warning: \(warning)\n") }
            say(String(format: "reports written in %.1f s", seconds))
        }
    }

    private func serving(_ run: ServingRun) {
        let mode = run.localWorkers > 0 ? "\(run.localWorkers) local worker(s)" : "workers connecting to \(run.host):\(run.port)"
        say("run \(run.runID): \(run.matrixName.terminalSafe), \(run.jobs) job(s), \(mode)")
        if let shard = options.shard {
            say("  shard \(shard.spec) (from \(shard.source)), split by "
                + (shard.durations == nil ? "count" : "durations from \(shard.durationsPath ?? "?")"))
        }
        let interrupts = InterruptHandler { [weak self] count in
            if count == 1 {
                FlowMatrixCLI.writeError("\ninterrupted: finishing in-flight jobs (Ctrl-C again to abort)\n")
            } else {
                FlowMatrixCLI.writeError("\naborting: cancelling in-flight jobs\n")
            }
            self?.controller?.interrupt()
        }
        let started = run.started
        let progress = ProgressLine(total: run.jobs, alreadyDone: run.alreadyFinal, enabled: !options.quiet)
        let ticker = Task {
            while !Task.isCancelled {
                progress.update(run.progress(), elapsed: ContinuousClock.now - started)
                // A display refresh interval, not a wait for a condition.
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        state.withLock { s in
            (s.interrupts, s.ticker, s.progress, s.started) = (interrupts, ticker, progress, started)
        }
    }

    /// Stops the progress line's ticker and Ctrl-C handling (the run is over, or it failed).
    func stop() {
        let (interrupts, ticker) = state.withLock { s in
            defer { (s.interrupts, s.ticker) = (nil, nil) }
            return (s.interrupts, s.ticker)
        }
        ticker?.cancel()
        interrupts?.cancel()
    }
}

/// `--http`: the live view as the run API's hook. It says where it serves, and lingers after the reports.
final class LiveViewHook: RunLiveView {
    private let options: LiveViewOptions
    private let quiet: Bool
    private let server = Mutex<LiveServer?>(nil)

    init(options: LiveViewOptions, quiet: Bool) {
        self.options = options
        self.quiet = quiet
    }

    func start(runID: String, jobs: Int, journalPath: String) async throws -> any RunObserver {
        let started = try await options.start(runID: runID, jobs: jobs, journalPath: journalPath)
        server.withLock { $0 = started }
        if !quiet { FlowMatrixCLI.say("live view: \(options.url(port: started.port))") }
        return started.feed
    }

    func finish(reportFolder: URL) async {
        guard let live = server.withLock({ $0 }) else { return }
        // Open pages reload into the static report, served from the run's folder while the linger lasts.
        live.finish(reportFolder: reportFolder)
        if options.linger > .zero {
            if !quiet { FlowMatrixCLI.say("serving the report at \(options.url(port: live.port)) for \(options.linger)") }
            try? await Task.sleep(for: options.linger)
        }
    }

    func stop() {
        server.withLock { $0 }?.stop()
    }
}
