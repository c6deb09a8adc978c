import Artifacts
import Coordinator
import FlowCrypto
import FlowSpec
import Foundation
import Journal

/// How the serving phase ended.
struct ServedRun {
    var final: RunProgress
    var status: RunStatus
    var elapsed: Duration
    var journalFailure: JournalError?
}

extension RunController {
    /// Starts the coordinator and the local workers, waits until every job is final (or the run is stopped), then
    /// drains the workers and journals the run's end. `workerEnvironment` (the matrix's web site) is laid over the
    /// local workers' launch environment.
    func serve(_ definition: RunDefinition, matrixName: String, alreadyFinal: Int, journal: RunJournal,
               observer: (any RunObserver)?, workerEnvironment: [String: String] = [:]) async throws -> ServedRun {
        let runID = definition.runID
        let jobCount = definition.jobs.count
        let token = request.token ?? Array(Hex.encode(secureRandomBytes(32)).utf8)
        let server = try await startServer(definition, token: token, journal: journal, observer: observer)
        journal.failure.attach { [weak self] error in
            // Said at once, and nothing more is dispatched: every further job would be lost from the journal.
            self?.emit(.journalFailed(runID: runID, error: error))
            server.stopDispatching(reason: "the journal cannot be written")
        }
        let started = ContinuousClock.now
        let workers: LocalWorkers?
        do {
            workers = try request.localWorkers.flatMap { local in
                var launch = local.launch
                launch.environment.merge(workerEnvironment) { _, matrix in matrix }
                return local.count > 0
                    ? try LocalWorkers(count: local.count, slots: local.slots, port: server.port,
                                       token: String(decoding: token, as: UTF8.self), launch: launch,
                                       quiet: local.quiet)
                    : nil
            }
        } catch {
            server.abort(reason: "the local workers could not be started")
            await server.shutdown(grace: .seconds(5))
            journal.recordAborted(runID: runID)
            let program = request.localWorkers?.launch.executable.path ?? ""
            throw RunError(.io, "cannot start local workers (\(program)): \(FileErrorText.reason(error))")
        }
        let pending = attach(server)
        emit(.serving(ServingRun(runID: runID, matrixName: matrixName, jobs: jobCount, alreadyFinal: alreadyFinal,
                                 host: request.host, port: server.port, localWorkers: request.localWorkers?.count ?? 0,
                                 started: started, progress: { server.progress })))
        if pending > 0 { Self.applyPending(interrupts: pending, to: server) }
        let final = await server.waitForCompletion()
        let elapsed = ContinuousClock.now - started
        emit(.served(final: final, elapsed: elapsed))
        let interrupts = detachServer()
        await server.shutdown(grace: .seconds(5))
        await workers?.waitForExit(grace: .seconds(5))
        let status: RunStatus = interrupts == 0 ? .completed : (interrupts == 1 ? .interrupted : .aborted)
        let failure = try journal.recordFinish(runID: runID, status: status)
        return ServedRun(final: final, status: status, elapsed: elapsed, journalFailure: failure)
    }

    /// Listens and starts serving `definition`; its records go to the journal writer.
    private func startServer(_ definition: RunDefinition, token: [UInt8], journal: RunJournal,
                             observer: (any RunObserver)?) async throws -> CoordinatorServer {
        var settings = CoordinatorSettings(host: request.host, port: request.port, token: token)
        settings.heartbeatInterval = request.heartbeatInterval
        settings.onNotice = { [weak self] line in self?.emit(.notice(line)) }
        settings.observer = observer
        do {
            settings.blobStore = try BlobStore(root: request.store.blobsRoot)
        } catch {
            throw RunError(.io, "cannot open the blob store in \(request.store.root.path): \(error)")
        }
        let writer = journal.writer
        do {
            return try await CoordinatorServer.start(definition: definition, settings: settings) { [weak self] records in
                do { try writer.submit(records) } catch { self?.emit(.journalWriteFailed("\(error)")) }
            }
        } catch {
            // The run was journaled as started: close it as aborted so `runs` does not show it running forever.
            journal.recordAborted(runID: definition.runID)
            throw RunError(.io, "cannot listen on \(request.host):\(request.port): \(error)")
        }
    }
}
