import Journal
import Synchronization
import Wire

/// A peer's connection as the coordinator's shell writes to it: a `FramedConnection` in `CoordinatorServer`, an
/// in-memory one in tests. Called on the shell's thread only.
package protocol PeerConnection: AnyObject {
    /// Queues `messages` for the peer, in order; dropped once the connection is closing.
    func send(_ messages: [Message])
    /// Closes the connection: graceful writes what is queued first. Its close comes back as
    /// ``CoordinatorShell/onPeerClosed(_:)``.
    func close(graceful: Bool)
}

/// The coordinator's impure shell around the pure `CoordinatorEngine`: it owns the engine and the live connections,
/// feeds it the transport's events, and carries out its actions in order — sends and closes on the connections,
/// records to the journal, chunks to the artifact ingest, notices to the person running it, finished jobs and the
/// run's end to the observer and the completion waiters. Confined to one thread (the event loop's); it knows
/// nothing of libuv, so a test drives it with in-memory connections.
///
/// Order is the engine's: a `journal` action is handed to `journal` before any later action is carried out, and
/// what the observer and the waiters hear is published after the whole batch, so a job is never announced (nor the
/// run completed) before its result has gone to the journal.
package final class CoordinatorShell {
    let engine: CoordinatorEngine
    let shared: CoordinatorServer.Shared
    private let journal: @Sendable ([JournalRecord]) -> Void
    private let onNotice: (@Sendable (String) -> Void)?
    private(set) var connections: [UInt64: any PeerConnection] = [:]
    private var nextPeer: UInt64 = 1
    /// Called once when every connection has closed after ``drain(done:)``.
    private var onAllClosed: (() -> Void)?
    /// Where artifact chunks go; nil acknowledges them without storing (no blob store).
    var ingest: ArtifactIngest?
    private var observer: (any RunObserver)?
    /// Jobs finished since the observer last heard.
    private var observed: [FinishedJob] = []
    /// The engine said `runComplete` (or every job was final when the run resumed).
    private var complete = false
    /// The observer has been told the run is complete.
    private var observedComplete = false
    /// Worker names are published once per tick, not per read batch (sorting every name per batch would cost
    /// O(N log N) per result with a fleet connected).
    private var namesDue = true
    /// Says when connections are refused for lack of descriptors (checked once per tick).
    let descriptors = DescriptorWatch()

    /// - Parameters:
    ///   - journal: receives the engine's records, in order (hand them to a `JournalWriter`).
    ///   - onNotice: receives the engine's notices.
    ///   - observer: sees finished jobs, progress and workers once per batch and tick.
    package init(engine: CoordinatorEngine, shared: CoordinatorServer.Shared,
                 journal: @escaping @Sendable ([JournalRecord]) -> Void, onNotice: (@Sendable (String) -> Void)?,
                 observer: (any RunObserver)?) {
        self.engine = engine
        self.shared = shared
        self.journal = journal
        self.onNotice = onNotice
        self.observer = observer
        descriptors.onNotice = onNotice
        complete = engine.isComplete
        publish()
    }

    // MARK: - Events from the transport

    /// A connection opened; `hello` is what it advertised, nil when it did not authenticate (it is closed).
    /// - Returns: its peer id, for the events that follow.
    package func onOpen(_ connection: any PeerConnection, hello: Hello?) -> UInt64 {
        let peer = nextPeer
        nextPeer += 1
        connections[peer] = connection
        guard let hello else {
            connection.close(graceful: false)
            return peer
        }
        perform { $0.onPeerJoined(peer, hello: hello) }
        return peer
    }

    /// A read batch from `peer`.
    package func onMessages(_ peer: UInt64, _ messages: [Message]) {
        perform { $0.onMessages(peer, messages) }
    }

    /// `peer`'s connection closed, whoever closed it.
    package func onPeerClosed(_ peer: UInt64) {
        connections[peer] = nil
        ingest?.dropPeer(peer)
        perform { $0.onPeerClosed(peer) }
        if connections.isEmpty, let finish = onAllClosed {
            onAllClosed = nil
            finish()
        }
    }

    /// The periodic tick: leases, silent workers, held journal starts; the observer sees the workers.
    /// - Parameter interval: the tick's period (how long a descriptor shortage is remembered is counted in ticks).
    package func onTick(every interval: Duration) {
        namesDue = true
        descriptors.check(connected: connections.count, every: interval)
        perform { $0.onTick() }
        if let observer {
            observer.onRunEvents(RunEvents(finished: observed, progress: engine.progress,
                workers: engine.workerActivity(limit: WorkerActivity.listLimit), complete: announceCompletion()))
            observed.removeAll(keepingCapacity: true)
        }
    }

    /// What the artifact ingest reports, back on the shell's thread.
    func onIngest(_ events: [IngestEvent]) {
        perform { $0.onIngest(events) }
    }

    /// Ctrl-C once: no more dispatching; in-flight jobs finish.
    package func stopDispatching(reason: String) { perform { $0.stopDispatching(reason: reason) } }

    /// Ctrl-C twice: cancel everything in flight.
    package func abort(reason: String) { perform { $0.abort(reason: reason) } }

    /// Tells every worker to finish and leave; `done` runs once every connection has closed (at once when none is
    /// open). - Returns: false when `done` is still to come.
    package func drain(done: @escaping () -> Void) -> Bool {
        apply(engine.drainAll())
        if connections.isEmpty { done(); return true }
        onAllClosed = done
        return false
    }

    /// The drain's grace ran out: closes the connections still open and runs the drain's `done`.
    package func closeRemaining() {
        guard let finish = onAllClosed else { return }
        onAllClosed = nil
        for connection in connections.values { connection.close(graceful: false) }
        finish()
    }

    // MARK: - Carrying out actions

    private func perform(_ event: (CoordinatorEngine) -> [CoordinatorEngine.Action]) {
        apply(event(engine))
        publish()
    }

    /// Carries out `actions` in order.
    private func apply(_ actions: [CoordinatorEngine.Action]) {
        for action in actions {
            switch action {
            case .send(let peer, let messages):
                connections[peer]?.send(messages)
            case .close(let peer, _):
                connections[peer]?.close(graceful: true)
            case .journal(let records):
                journal(records)
            case .notice(let sentence):
                onNotice?(sentence)
            case .jobFinished(let job):
                if observer != nil { observed.append(job) }
            case .runComplete:
                complete = true  // published after the batch, with the progress that includes it
            case .ingest(let peer, let chunks):
                ingest(chunks, from: peer)
            }
        }
    }

    private func ingest(_ chunks: [ArtifactChunk], from peer: UInt64) {
        guard let ingest else {
            // No store: acknowledge so workers do not stall, store nothing.
            connections[peer]?.send(chunks.map { c in
                .artifactAck(ArtifactAck(job: c.job, attempt: c.attempt, name: c.name, sha256: c.sha256,
                                         kind: .acceptedThrough, offset: c.offset + UInt64(c.bytes.count)))
            })
            return
        }
        guard ingest.submit(peer: peer, chunks) else {
            let reason = "more than \(IngestLimits.pendingBytes >> 20) MiB of artifact chunks unacknowledged: "
                + "the worker ignores the artifact window"
            apply(engine.refuse(peer, reason: reason))
            return
        }
    }

    /// Hands the latest progress to other threads, the jobs finished since the last batch to the observer, and
    /// the run's end (once) to the observer and the completion waiters.
    private func publish() {
        let progress = engine.progress
        if let observer, !observed.isEmpty || (complete && !observedComplete) {
            observer.onRunEvents(RunEvents(finished: observed, progress: progress, workers: nil,
                                           complete: announceCompletion()))
            observed.removeAll(keepingCapacity: true)
        }
        let complete = self.complete
        let names = namesDue || complete ? engine.workerNames : nil
        namesDue = false
        let waiters = shared.state.withLock { s -> [CheckedContinuation<RunProgress, Never>] in
            s.progress = progress
            if let names { s.workerNames = names }
            guard complete, !s.complete else { return [] }
            s.complete = true
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.resume(returning: progress) }
    }

    /// True the first time it is asked after the run completed: the observer hears `complete` once.
    private func announceCompletion() -> Bool {
        guard complete, !observedComplete else { return false }
        observedComplete = true
        return true
    }
}
