import Coordinator
import Foundation
import Journal
import Testing
import Wire

/// The smallest shell for a `CoordinatorEngine`: it forwards events, returns the engine's actions, and carries out
/// the effects tests watch — records to `journal`, finished jobs to `onJobFinished`, sentences to `onNotice` — in
/// the order the engine gives them, recording an issue when that order breaks the engine's promise: a job announced
/// before its result was journaled, or the run completed twice or with a job not final.
final class EngineHarness {
    let engine: CoordinatorEngine
    private let journal: @Sendable ([JournalRecord]) -> Void
    var onJobFinished: ((FinishedJob) -> Void)?
    var onNotice: ((String) -> Void)?
    /// Jobs whose final result has been journaled.
    private(set) var journaledResults = Set<String>()
    private(set) var announced: [FinishedJob] = []
    private(set) var completions = 0

    init(definition: RunDefinition, journal: @escaping @Sendable ([JournalRecord]) -> Void, now: @escaping () -> Duration,
         wallClock: @escaping () -> Date = Date.init) {
        engine = CoordinatorEngine(definition: definition, now: now, wallClock: wallClock)
        self.journal = journal
        for (index, _) in definition.finished { journaledResults.insert(definition.jobs[index].id) }
    }

    var definition: RunDefinition { engine.definition }
    var isComplete: Bool { engine.isComplete }
    var progress: RunProgress { engine.progress }
    var unservableQueuedJobs: Int { engine.unservableQueuedJobs }
    var workerNames: [String] { engine.workerNames }

    func onPeerJoined(_ peer: UInt64, hello: Hello) -> [CoordinatorEngine.Action] {
        carryOut(engine.onPeerJoined(peer, hello: hello))
    }
    func onMessages(_ peer: UInt64, _ messages: [Message]) -> [CoordinatorEngine.Action] {
        carryOut(engine.onMessages(peer, messages))
    }
    func onPeerClosed(_ peer: UInt64) -> [CoordinatorEngine.Action] { carryOut(engine.onPeerClosed(peer)) }
    func onTick() -> [CoordinatorEngine.Action] { carryOut(engine.onTick()) }
    func onIngest(_ events: [IngestEvent]) -> [CoordinatorEngine.Action] { carryOut(engine.onIngest(events)) }
    func refuse(_ peer: UInt64, reason: String) -> [CoordinatorEngine.Action] { carryOut(engine.refuse(peer, reason: reason)) }
    func stopDispatching(reason: String) -> [CoordinatorEngine.Action] {
        carryOut(engine.stopDispatching(reason: reason))
    }
    func abort(reason: String) -> [CoordinatorEngine.Action] { carryOut(engine.abort(reason: reason)) }

    /// Carries out the effects in `actions`, in order, and returns them all.
    @discardableResult
    func carryOut(_ actions: [CoordinatorEngine.Action]) -> [CoordinatorEngine.Action] {
        for action in actions {
            switch action {
            case .journal(let records):
                for record in records {
                    switch record {
                    case .jobFinished(_, let job, _): journaledResults.insert(job)
                    case .attemptCompleted(let c) where c.job != nil: journaledResults.insert(c.jobID)
                    default: break
                    }
                }
                journal(records)
            case .jobFinished(let job):
                if !journaledResults.contains(job.id) { Issue.record("\(job.id) announced before its result was journaled") }
                announced.append(job)
                onJobFinished?(job)
            case .runComplete:
                completions += 1
                if completions > 1 { Issue.record("the run completed \(completions) times") }
                let open = definition.jobs.map(\.id).filter { !journaledResults.contains($0) }
                if !open.isEmpty { Issue.record("the run completed with jobs whose result was not journaled: \(open)") }
            case .notice(let sentence):
                onNotice?(sentence)
            case .send, .close, .ingest:
                break
            }
        }
        return actions
    }
}
