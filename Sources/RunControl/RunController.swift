import Artifacts
import Coordinator
import FlowSpec
import Foundation
import Journal
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs one matrix: plan → `RunDefinition` → serve (with local workers, if asked) → `RunResult`.
///
/// The journal records the run as it goes (start, planned jobs, every attempt, the end), so a run whose process died
/// finishes with a new controller whose request resumes it. What is printed, signals and exit codes are the
/// caller's: the controller says what happens through `onEvent`, and ``interrupt()`` stops the run.
///
/// ```swift
/// var request = RunRequest(matrixPath: "Matrices/smoke.json", store: RunStore(root: storeURL))
/// request.localWorkers = LocalWorkerOptions(count: 2, slots: 2, launch: myWorkerLaunch)
/// let summary = try await RunController(request).run()
/// ```
public final class RunController: Sendable {
    public let request: RunRequest
    private let onEvent: @Sendable (RunEvent) -> Void

    private struct State {
        var server: CoordinatorServer?
        var interrupts = 0
    }

    private let state = Mutex(State())

    /// - Parameter onEvent: called for each ``RunEvent``, in order, on the task that runs ``run()`` — except
    ///   `notice` and `journalWriteFailed` (the coordinator's loop thread) and `journalFailed` (the journal writer's
    ///   thread), which can come at any time while the run is served: return at once, never block.
    public init(_ request: RunRequest, onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) {
        self.request = request
        self.onEvent = onEvent
    }

    func emit(_ event: RunEvent) { onEvent(event) }

    /// Stops the run: the first call stops dispatching and lets in-flight jobs finish (status `interrupted`), a later
    /// one cancels them (`aborted`). Effective once the run is serving (``RunEvent/serving(_:)``); a call before that
    /// applies when it starts.
    /// - Returns: how many times the run was interrupted, this call included.
    @discardableResult
    public func interrupt() -> Int {
        let (count, server) = state.withLock { s -> (Int, CoordinatorServer?) in
            s.interrupts += 1
            return (s.interrupts, s.server)
        }
        if let server { Self.stop(server, interrupts: count) }
        return count
    }

    /// Makes `server` the one ``interrupt()`` stops. - Returns: interrupts that came before it (to apply now).
    func attach(_ server: CoordinatorServer) -> Int {
        state.withLock { s in
            s.server = server
            return s.interrupts
        }
    }

    /// The run is over: interrupts no longer reach its server. - Returns: how many there were.
    func detachServer() -> Int {
        state.withLock { s in
            s.server = nil
            return s.interrupts
        }
    }

    static func applyPending(interrupts: Int, to server: CoordinatorServer) {
        stop(server, interrupts: interrupts)
    }

    private static func stop(_ server: CoordinatorServer, interrupts: Int) {
        if interrupts == 1 {
            server.stopDispatching(reason: "interrupted by the user")
        } else {
            server.abort(reason: "aborted by the user")
        }
    }

    /// Runs the request to its end.
    /// - Returns: how the run ended; a run stopped by its journal has `journalFailure` set and no reports.
    /// - Throws: `RunError` when the run cannot start or be served; the journal's and the live view's errors.
    public func run() async throws -> RunResult {
        do {
            try FileManager.default.createDirectory(at: request.store.root, withIntermediateDirectories: true)
        } catch {
            throw RunError(.io, "cannot create the store folder \(request.store.root.path): \(error.localizedDescription)")
        }
        let journal = try RunJournal.open(request.store)
        var prepared: PreparedRun
        do {
            prepared = try prepare(journal)
        } catch {
            journal.close()
            throw error
        }
        let (runID, alreadyFinal) = (prepared.runID, prepared.alreadyFinal)
        // The live view draws from the journal: the run and its jobs are committed before it starts.
        var observer: (any RunObserver)?
        if let live = request.liveView {
            do {
                try journal.writer.flushSync()
                observer = try await live.start(runID: runID, jobs: prepared.jobCount, journalPath: request.store.journalPath)
            } catch {
                journal.recordAborted(runID: runID)
                throw error
            }
        }
        defer { request.liveView?.stop() }
        let served: ServedRun
        do {
            // Scoped: the definition is released when the run is over, before the reports.
            guard let taken = prepared.definition.take() else {
                throw RunError(.io, "internal error: the run has no definition")
            }
            served = try await serve(taken, matrixName: prepared.matrixName, alreadyFinal: alreadyFinal,
                                     journal: journal, observer: observer, workerEnvironment: prepared.workerEnvironment)
        }
        var result = RunResult(runID: runID, status: served.status, progress: served.final, elapsed: served.elapsed,
                               alreadyFinal: alreadyFinal, journalFailure: served.journalFailure)
        guard served.journalFailure == nil else { return result }
        // The run's memory (definition, engine, server) is released; hand it back to the system before the reports.
        journal.failure.detach()
        Self.returnFreedMemory()
        if let reports = request.reports {
            emit(.writingReports)
            let started = ContinuousClock.now
            let note = reports.write(runID: runID, store: request.store)
            emit(.reportsWritten(seconds: (ContinuousClock.now - started).milliseconds / 1000, note: note))
            result.report = note
            result.progress.applyVisualVerdicts(note.visualVerdicts)
        }
        if let live = request.liveView, request.reports != nil {
            // Open pages reload into the static report, served from the run's folder while the live view lingers.
            await live.finish(reportFolder: request.store.runFolder(runID))
        }
        return result
    }

    /// Returns freed heap memory to the system (glibc keeps it otherwise), so the reports that follow a large run
    /// do not add to its peak. A no-op where the allocator returns memory by itself.
    private static func returnFreedMemory() {
        #if canImport(Glibc)
        // malloc_trim is glibc's (malloc.h, which the Glibc module does not export): looked up by name.
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
    }
}
