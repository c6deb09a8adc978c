import Foundation
import Journal
import MatrixPlan

/// A run's journal: the writer (its first failed commit goes to `failure`) and a reader for resume and history.
struct RunJournal {
    let writer: JournalWriter
    let reader: JournalReader
    let failure: JournalFailureRelay

    /// Opens (or creates) the store's journal. - Throws: `RunError.io`.
    static func open(_ store: RunStore) throws -> RunJournal {
        let failure = JournalFailureRelay()
        do {
            let writer = try JournalWriter(path: store.journalPath, onFailure: { failure.fire($0) })
            return RunJournal(writer: writer, reader: try JournalReader(path: store.journalPath), failure: failure)
        } catch let error as JournalError where error.isReadOnly {
            throw RunError(.io, "the store \(store.root.path) is read-only: a run records in its journal, so it needs a store "
                + "it can write ('runs' and 'show' still read this one)")
        } catch let error as JournalError where error.isDamaged {
            throw RunError(.io, error.userText)
        } catch {
            throw RunError(.io, "cannot open the journal: \(error)")
        }
    }

    /// Journals the run's start and its planned jobs, or that it resumed.
    func recordStart(of planned: PlannedRun, runID: String) throws {
        if planned.resume != nil {
            try writer.submit(.runResumed(runID: runID, at: Date()))
            for (jobID, result) in planned.settled {
                try writer.submit(.jobFinished(runID: runID, jobID: jobID, result: result))
            }
            return
        }
        let plan = planned.plan
        try writer.submit(
            .runStarted(RunInfo(runID: runID, matrixName: plan.matrix.name,
                                matrixPath: URL(fileURLWithPath: planned.matrixPath).path, seed: plan.matrix.seed,
                                startedAt: Date(), settingsJSON: planned.settingsJSON)))
        // In chunks, each committed before the next is built: a million planned jobs never sit in memory twice.
        let chunk = 20_000
        for start in stride(from: 0, to: plan.jobs.count, by: chunk) {
            try writer.submit(.jobsPlanned(runID: runID, jobs: plan.jobs[start..<min(start + chunk, plan.jobs.count)].map { job in
                PlannedJob(jobID: job.id, scenarioID: job.scenario.id, scenarioTitle: job.scenario.title,
                           configuration: job.configurations.canonicalString(job.configurationIndex),
                           configurationJSON: job.configurations.canonicalJSON(job.configurationIndex),
                           registry: job.registry)
            }))
            if (start / chunk) % 5 == 4 { try writer.flushSync() }
        }
    }

    /// Journals the run's end and closes the writer.
    /// - Returns: the journal's first failed commit, if there was one (the run stopped because of it).
    func recordFinish(runID: String, status: RunStatus) throws -> JournalError? {
        try writer.submit(.runFinished(runID: runID, status: status, at: Date()))
        if let failure = failure.failure {
            try? writer.close()
            return failure
        }
        try writer.flushSync()
        try writer.close()
        return nil
    }

    /// Closes the writer of a run that did not start (nothing, or only what was committed, is kept).
    func close() {
        try? writer.close()
    }

    /// Closes a run that could not be served as aborted, so `runs` does not show it running forever.
    func recordAborted(runID: String) {
        try? writer.submit(.runFinished(runID: runID, status: .aborted, at: Date()))
        try? writer.close()
    }
}
