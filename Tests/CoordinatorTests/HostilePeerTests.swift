import Artifacts
import Coordinator
import FlowVocabulary
import Foundation
import Journal
import Synchronization
import Testing
import Wire

/// An authenticated peer that lies: it must never crash the engine, make the journal contradict itself, or make a
/// run impossible to finish (docs/PROTOCOL.md, "Bounds").
@Suite("Coordinator engine against hostile peers")
struct HostilePeerTests {
    private func hello(_ peer: UInt64, labels: [String] = [], version: UInt16 = 3) -> Hello {
        Hello(version: version, name: "w\(peer)", slots: 1, registries: ["test"], labels: labels, nonce: .zero, mac: .zero)
    }

    /// The ERROR messages sent to `peer` and whether it was closed.
    private func refusal(_ actions: [CoordinatorEngine.Action], _ peer: UInt64) -> (errors: [ErrorMessage], closed: Bool) {
        var errors: [ErrorMessage] = []
        var closed = false
        for action in actions {
            switch action {
            case .send(peer, let messages):
                for case .error(let e) in messages { errors.append(e) }
            case .close(peer, _): closed = true
            default: break
            }
        }
        return (errors, closed)
    }

    private func assigned(_ actions: [CoordinatorEngine.Action]) -> [JobAssignment] {
        var jobs: [JobAssignment] = []
        for case .send(_, let messages) in actions {
            for case .assign(let batch) in messages { jobs += batch }
        }
        return jobs
    }

    @Test("HELLO labels \"\", \"=\" and \"k=v=w\" do not crash the engine", arguments: [[""], ["="], ["k=v=w", "bare"]])
    func oddLabels(labels: [String]) {
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        _ = engine.onPeerJoined(1, hello: hello(1, labels: labels))
        #expect(engine.workerNames == ["w1"])
    }

    @Test("the handshake rejects HELLOs past their bounds after authentication", arguments: [
        Hello(version: 3, name: String(repeating: "n", count: 1 << 20), slots: 1, registries: ["r"], labels: [], nonce: .zero, mac: .zero),
        Hello(version: 3, name: "w", slots: UInt32.max, registries: ["r"], labels: [], nonce: .zero, mac: .zero),
        Hello(version: 3, name: "w", slots: 1, registries: ["r"], labels: ["="], nonce: .zero, mac: .zero),
        Hello(version: 3, name: "w", slots: 1, registries: (0..<65).map { "r\($0)" }, labels: [], nonce: .zero, mac: .zero),
    ])
    func helloBounds(_ candidate: Hello) {
        let token = Array("0123456789abcdef0123456789abcdef".utf8)
        var server = ServerHandshake(token: token, nonce: Bytes32(Array(repeating: 7, count: 32)) ?? .zero)
        _ = server.onStart()
        var hello = candidate
        hello.nonce = Bytes32(Array(repeating: 9, count: 32)) ?? .zero
        hello.mac = HandshakeMAC.hello(token: token, serverNonce: server.serverNonce, hello: hello)
        let directives = server.onMessage(.hello(hello))
        let rejected = directives.contains { if case .send(.reject(let r)) = $0 { r.knownCode == .malformedHello } else { false } }
        #expect(rejected)
        #expect(server.state == .failed)
    }

    @Test("a RESULT for an attempt never assigned (attempt 4294967295) is refused: ERROR, close, nothing journaled")
    func forgedAttempt() {
        let records = MessageBox.Records()
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { records.append($0) }, now: { .zero })
        _ = engine.onPeerJoined(1, hello: hello(1))
        _ = engine.onMessages(1, [.credit(1)])
        let forged = JobResult(job: "job0", attempt: UInt32.max, status: .passed, failure: nil, durationMicros: 1)
        let (errors, closed) = refusal(engine.onMessages(1, [.result(forged)]), 1)
        #expect(errors.count == 1 && closed)
        #expect(engine.progress.supersededResults == 0)
        #expect(!records.all.contains { "\($0)".contains("4294967295") })
    }

    @Test("a second join for a live peer id ends the first: its job runs again, no worker is left behind")
    func secondJoinForLivePeer() throws {
        var outcomes: [JobOutcome] = []
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        engine.onJobFinished = { outcomes.append($0.outcome) }
        _ = engine.onPeerJoined(1, hello: hello(1))
        let first = try #require(assigned(engine.onMessages(1, [.credit(1)])).first)
        _ = engine.onPeerJoined(1, hello: hello(1))
        #expect(engine.workerNames == ["w1"])
        let again = try #require(assigned(engine.onMessages(1, [.credit(1)])).first)
        #expect(again.job == first.job && again.attempt == first.attempt + 1)
        _ = engine.onMessages(1, [.result(JobResult(job: again.job, attempt: again.attempt, status: .passed, failure: nil,
                                                    durationMicros: 1))])
        #expect(outcomes == [.passed])
    }

    @Test("peers expelled for what they sent while holding a job do not get it quarantined: it runs again and passes")
    func expelledPeersDoNotQuarantine() throws {
        var outcomes: [JobOutcome] = []
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        engine.onJobFinished = { outcomes.append($0.outcome) }
        // Three peers in turn take the job, then send a forged report and are closed (three losses would quarantine
        // a job whose workers crashed).
        for peer: UInt64 in 1...4 {
            _ = engine.onPeerJoined(peer, hello: hello(peer))
            let job = try #require(assigned(engine.onMessages(peer, [.credit(1)])).first, "peer \(peer) got no job")
            if peer == 4 {
                _ = engine.onMessages(peer, [.result(JobResult(job: job.job, attempt: job.attempt, status: .passed,
                                                               failure: nil, durationMicros: 1))])
                break
            }
            let forged = JobResult(job: job.job, attempt: UInt32.max, status: .passed, failure: nil, durationMicros: 1)
            #expect(refusal(engine.onMessages(peer, [.result(forged)]), peer).closed)
            _ = engine.onPeerClosed(peer)
        }
        #expect(outcomes == [.passed])
    }

    @Test("a worker's reports on another worker's live attempt are ignored (nothing journaled); the owner's result decides")
    func reportOnAnothersAttempt() throws {
        var outcomes: [JobOutcome] = []
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { _ in }, now: { .zero })
        engine.onJobFinished = { outcomes.append($0.outcome) }
        _ = engine.onPeerJoined(1, hello: hello(1))
        let job = try #require(assigned(engine.onMessages(1, [.credit(1)])).first)
        _ = engine.onPeerJoined(2, hello: hello(2))
        let step = StepEvent(job: job.job, attempt: job.attempt,
                             StepReport(index: 0, status: .passed, durationMicros: 1, message: ""))
        let lie = JobResult(job: job.job, attempt: job.attempt, status: .passed, failure: nil, durationMicros: 1)
        #expect(!refusal(engine.onMessages(2, [.step(step)]), 2).closed)
        #expect(!refusal(engine.onMessages(2, [.result(lie)]), 2).closed)
        #expect(outcomes.isEmpty)
        // An attempt number no one was ever assigned is refused outright.
        let forged = JobResult(job: job.job, attempt: job.attempt + 5, status: .passed, failure: nil, durationMicros: 1)
        #expect(refusal(engine.onMessages(2, [.result(forged)]), 2).closed)
        let truth = JobResult(job: job.job, attempt: job.attempt, status: .failed,
                              failure: Failure(step: 0, message: "real failure"), durationMicros: 1)
        _ = engine.onMessages(1, [.result(truth)])
        #expect(outcomes == [.failed])
    }

    @Test("STEP and ARTIFACT_CHUNK for unknown jobs are refused at the first frame; the rest of the batch is dropped")
    func unknownJobs() {
        let records = MessageBox.Records()
        let engine = EngineHarness(definition: makeDefinition([["pass"]]), journal: { records.append($0) }, now: { .zero })
        _ = engine.onPeerJoined(1, hello: hello(1))
        let steps = (0..<10_000).map { i in
            Message.step(StepEvent(job: "nope\(i)", attempt: 1, StepReport(index: 0, status: .passed, durationMicros: 1, message: "")))
        }
        let actions = engine.onMessages(1, steps)
        #expect(refusal(actions, 1).errors.count == 1)
        #expect(records.all.isEmpty)
        let chunk = ArtifactChunk(job: "nope", attempt: 1, step: 0, name: "a", mediaType: "text/plain", sha256: .zero,
                                  offset: 0, bytes: [1], last: true, rawSize: 1)
        _ = engine.onPeerJoined(2, hello: hello(2))
        let chunkActions = engine.onMessages(2, [.artifactChunk(chunk)])
        #expect(refusal(chunkActions, 2).closed)
        #expect(!chunkActions.contains { if case .ingest = $0 { true } else { false } })
    }

    @Test("artifact ingest refuses a raw size of 2^63, too many open streams, and chunks past the window, without trapping")
    func ingestBounds() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-ingest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try BlobStore(root: folder)
        let events = MessageBox.Events()
        let ingest = ArtifactIngest(store: store) { events.append($0) }
        func chunk(_ name: String, rawSize: UInt64 = 1, bytes: [UInt8] = [1], last: Bool = false) -> ArtifactChunk {
            ArtifactChunk(job: "j", attempt: 1, step: 0, name: name, mediaType: "text/plain", sha256: .zero, offset: 0,
                          bytes: bytes, last: last, rawSize: rawSize)
        }
        #expect(ingest.submit(peer: 1, [chunk("huge", rawSize: 1 << 63, last: true)]))
        #expect(ingest.submit(peer: 2, (0..<(IngestLimits.openStreams + 5)).map { chunk("s\($0)") }))
        // Past the window: refused before anything is queued.
        #expect(!ingest.submit(peer: 3, [chunk("big", bytes: Array(repeating: 0, count: IngestLimits.pendingBytes + 1))]))
        await ingest.drain()
        let refused = events.all.compactMap { if case .refused(let peer, _) = $0 { peer } else { nil } }
        // Each peer has its own serial queue and the two run at once, so the refusals come in either order.
        #expect(refused.sorted() == [1, 2])
    }
}

extension MessageBox {
    /// Ingest events as the ingest delivers them.
    final class Events: Sendable {
        private let box = Mutex<[IngestEvent]>([])
        var all: [IngestEvent] { box.withLock { $0 } }
        func append(_ e: [IngestEvent]) { box.withLock { $0 += e } }
    }
}
