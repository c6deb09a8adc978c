import Coordinator
import FlowVocabulary
import Foundation
import Journal
import Synchronization
import Testing
import Wire

/// What a `CoordinatorShell` did, in the order it did it: its journal batches, what its connections sent and
/// closed, what its observer and the person running it heard.
final class ShellEffects: Sendable, RunObserver {
    enum Effect: Sendable {
        case journal([JournalRecord])
        case sent(UInt64, [Message])
        case closed(UInt64)
        case observed(RunEvents)
        case notice(String)
    }

    private let log = Mutex<[Effect]>([])
    var all: [Effect] { log.withLock { $0 } }
    func append(_ effect: Effect) { log.withLock { $0.append(effect) } }
    func onRunEvents(_ events: RunEvents) { append(.observed(events)) }

    /// The position of the first effect `matches` accepts.
    func first(_ matches: (Effect) -> Bool) -> Int? { all.firstIndex(where: matches) }

    /// The position of the journal batch holding job `id`'s final result.
    func journaledResult(of id: String) -> Int? {
        first {
            guard case .journal(let records) = $0 else { return false }
            return records.contains { record in
                switch record {
                case .jobFinished(_, let job, _): job == id
                case .attemptCompleted(let c): c.jobID == id && c.job != nil
                default: false
                }
            }
        }
    }

    /// The position of the observer batch announcing job `id` final.
    func announced(_ id: String) -> Int? {
        first { if case .observed(let events) = $0 { events.finished.contains { $0.id == id } } else { false } }
    }

    /// How many observer batches said the run was complete.
    var completions: Int {
        all.filter { if case .observed(let events) = $0 { events.complete } else { false } }.count
    }
}

/// A peer connection in memory: what the shell sends is logged; a close is logged and reaches the shell only when
/// the test calls `deliverCloses()`, as a socket's close comes back on a later loop iteration.
final class InMemoryPeerConnection: PeerConnection {
    let effects: ShellEffects
    var peer: UInt64 = 0
    private(set) var closing = false

    init(effects: ShellEffects) { self.effects = effects }

    func send(_ messages: [Message]) {
        guard !closing else { return }
        effects.append(.sent(peer, messages))
    }

    func close(graceful: Bool) {
        guard !closing else { return }
        closing = true
        effects.append(.closed(peer))
    }
}

/// A `CoordinatorShell` over in-memory connections with a manual clock: the loop's events are the test's calls.
final class InMemoryCoordinator {
    let effects = ShellEffects()
    let shell: CoordinatorShell
    let shared: CoordinatorServer.Shared
    var connections: [UInt64: InMemoryPeerConnection] = [:]
    /// The id the shell gives the next connection (it numbers them 1, 2, … in the order they open).
    private var nextPeer: UInt64 = 1

    init(_ definition: RunDefinition, observe: Bool = true) {
        let effects = self.effects
        shared = CoordinatorServer.Shared(progress: RunProgress(total: definition.jobs.count, done: 0, outcomes: [:],
            inFlight: 0, workers: 0, attempts: 0, retries: 0, supersededResults: 0))
        let engine = CoordinatorEngine(definition: definition, now: { .zero })
        shell = CoordinatorShell(engine: engine, shared: shared, journal: { effects.append(.journal($0)) },
                                 onNotice: { effects.append(.notice($0)) }, observer: observe ? effects : nil)
    }

    /// A worker joins (version 3, one slot, the `test` registry unless said otherwise) and grants `credit`.
    func join(_ name: String, registries: [String] = ["test"], credit: UInt32 = 1) -> UInt64 {
        let connection = InMemoryPeerConnection(effects: effects)
        connection.peer = nextPeer  // what it sends while joining is logged under its id
        let hello = Hello(version: 3, name: name, slots: 1, registries: registries, labels: [], nonce: .zero, mac: .zero)
        let peer = shell.onOpen(connection, hello: hello)
        #expect(peer == nextPeer)
        nextPeer = peer + 1
        connections[peer] = connection
        if credit > 0 { shell.onMessages(peer, [.credit(credit)]) }
        return peer
    }

    /// The closes the shell asked for reach it, as the transport's close callbacks would.
    func deliverCloses() {
        for (peer, connection) in connections.sorted(by: { $0.key < $1.key }) where connection.closing {
            connections[peer] = nil
            shell.onPeerClosed(peer)
        }
    }

    /// The jobs assigned to `peer` so far.
    func assigned(to peer: UInt64) -> [JobAssignment] {
        var jobs: [JobAssignment] = []
        for case .sent(peer, let messages) in effects.all { for case .assign(let batch) in messages { jobs += batch } }
        return jobs
    }
}

@Suite("Coordinator shell over in-memory connections")
struct CoordinatorShellTests {
    private func passed(_ a: JobAssignment) -> Message {
        .result(Wire.JobResult(job: a.job, attempt: a.attempt, status: .passed, failure: nil, durationMicros: 10))
    }

    @Test("a job's result reaches the journal before the observer hears of it, and the run completes once")
    func journalBeforeAnnouncement() async throws {
        let fleet = InMemoryCoordinator(makeDefinition([["pass"], ["pass"]]))
        let peer = fleet.join("w", credit: 1)
        let first = try #require(fleet.assigned(to: peer).first)
        fleet.shell.onMessages(peer, [passed(first), .credit(1)])
        let second = try #require(fleet.assigned(to: peer).last)
        #expect(second.job != first.job)
        fleet.shell.onMessages(peer, [passed(second), .credit(1)])
        for job in [first.job, second.job] {
            let journaled = try #require(fleet.effects.journaledResult(of: job), "\(job)'s result was never journaled")
            let announced = try #require(fleet.effects.announced(job), "\(job) was never announced")
            #expect(journaled < announced)
        }
        // A late duplicate and a tick change nothing: the run completed once.
        fleet.shell.onMessages(peer, [passed(second)])
        fleet.shell.onTick(every: .milliseconds(250))
        #expect(fleet.effects.completions == 1)
        let progress = await fleet.shared.waitForCompletion()
        #expect(progress.done == 2 && progress.count(.passed) == 2)
        #expect(fleet.shared.progress.supersededResults == 1)
    }

    @Test("steps journaled in a batch go to the journal before the ERROR and close that refuse the batch's next message")
    func stepsBeforeRefusal() throws {
        var definition = makeDefinition([["pass", "pass"]])
        definition.journalStartDelay = .zero
        let fleet = InMemoryCoordinator(definition)
        let peer = fleet.join("w")
        let job = try #require(fleet.assigned(to: peer).first)
        fleet.shell.onTick(every: .milliseconds(250))  // the attempt's start is journaled: its steps are records of their own from now on
        let step = Wire.StepEvent(job: job.job, attempt: job.attempt, index: 0, status: .passed, durationMicros: 5,
                                  message: "")
        fleet.shell.onMessages(peer, [.step(step), .drain])
        let stepJournaled = try #require(fleet.effects.first {
            if case .journal(let records) = $0 { records.contains { if case .stepRecorded = $0 { true } else { false } } }
            else { false }
        })
        let refused = try #require(fleet.effects.first {
            if case .sent(peer, let messages) = $0 { messages.contains { if case .error = $0 { true } else { false } } }
            else { false }
        })
        let closed = try #require(fleet.effects.first { if case .closed(peer) = $0 { true } else { false } })
        #expect(stepJournaled < refused && refused < closed)
        // The expelled peer's close is heard: its attempt runs again on the next worker, not blamed.
        fleet.deliverCloses()
        let next = fleet.join("w2")
        #expect(fleet.assigned(to: next).map(\.job) == [job.job])
    }

    @Test("a worker that can run nothing is named to the person running the coordinator and told so itself")
    func noticeOfUselessWorker() {
        let fleet = InMemoryCoordinator(makeDefinition([["pass"]]))
        let peer = fleet.join("other", registries: ["catalog"], credit: 0)
        let notices = fleet.effects.all.compactMap { if case .notice(let s) = $0 { s } else { nil } }
        #expect(notices.count == 1 && notices.first?.contains("worker other offers [catalog]") == true)
        let told = fleet.effects.all.contains {
            if case .sent(peer, let messages) = $0 { messages.contains { if case .notice = $0 { true } else { false } } }
            else { false }
        }
        #expect(told)
    }

    @Test("draining sends DRAIN to every worker and finishes once the last connection has closed")
    func drain() {
        let fleet = InMemoryCoordinator(makeDefinition([["pass"]]), observe: false)
        let peers = [fleet.join("a", credit: 0), fleet.join("b", credit: 0)]
        var done = 0
        #expect(!fleet.shell.drain { done += 1 })
        for peer in peers {
            let drained = fleet.effects.all.contains {
                if case .sent(peer, let messages) = $0 { messages.contains { if case .drain = $0 { true } else { false } } }
                else { false }
            }
            #expect(drained)
        }
        fleet.connections[peers[0]]?.close(graceful: true)
        fleet.deliverCloses()
        #expect(done == 0)
        fleet.shell.closeRemaining()  // the grace ran out
        #expect(done == 1)
        fleet.deliverCloses()
        #expect(done == 1)
    }

    @Test("a connection that did not authenticate is closed at once and never joins")
    func unauthenticated() {
        let fleet = InMemoryCoordinator(makeDefinition([["pass"]]))
        let connection = InMemoryPeerConnection(effects: fleet.effects)
        let peer = fleet.shell.onOpen(connection, hello: nil)
        #expect(connection.closing)
        fleet.shell.onPeerClosed(peer)
        #expect(fleet.shared.progress.workers == 0)
        #expect(!fleet.effects.all.contains { if case .sent = $0 { true } else { false } })
    }
}
