import Artifacts
import Dispatch
import FlowCrypto
import Synchronization
import Wire

/// What happened to a streamed artifact chunk, reported back to the loop thread.
public enum IngestEvent: Sendable, Hashable {
    /// Bytes up to `ack.offset` are on disk: the worker may send more.
    case accepted(peer: UInt64, ack: ArtifactAck)
    /// The whole artifact verified and is stored (or was already: identical content is stored once).
    case stored(peer: UInt64, ack: ArtifactAck, step: Int, mediaType: String, size: Int, rawSize: Int)
    /// The artifact did not verify (or arrived out of order): the worker must resend from `ack.offset`.
    case resend(peer: UInt64, ack: ArtifactAck, reason: String)
}

/// Writes streamed artifacts into the content-addressed store **off the loop thread**: each connection gets its own
/// serial queue (so two workers' uploads proceed on two cores), chunks are written as they come (memory bounded by
/// the chunk size), and a blob becomes visible only after its SHA-256 verified.
public final class ArtifactIngest: Sendable {
    private let store: BlobStore
    private let deliver: @Sendable ([IngestEvent]) -> Void
    private let peers = Mutex<[UInt64: PeerIngest]>([:])

    /// - Parameter deliver: receives each batch's events on an ingest queue; hop to the loop from there.
    public init(store: BlobStore, deliver: @escaping @Sendable ([IngestEvent]) -> Void) {
        self.store = store
        self.deliver = deliver
    }

    /// Queues a read batch's chunks (one hop per batch).
    public func submit(peer: UInt64, _ chunks: [ArtifactChunk]) {
        let ingest = peers.withLock { peers in
            if let existing = peers[peer] { return existing }
            let created = PeerIngest(peer: peer, store: store)
            peers[peer] = created
            return created
        }
        ingest.submit(chunks, deliver: deliver)
    }

    /// Abandons a peer's partial artifacts (its connection closed; the attempts will run again).
    public func dropPeer(_ peer: UInt64) {
        peers.withLock { $0.removeValue(forKey: peer) }?.abandon()
    }

    /// Waits until every queued chunk is handled (for an orderly shutdown).
    public func drain() async {
        for ingest in peers.withLock({ Array($0.values) }) { await ingest.drain() }
    }
}

/// One connection's artifact streams.
///
/// `@unchecked Sendable` is safe because `streams` is touched only on `queue` (checked with `dispatchPrecondition`
/// in every method that touches it); `peer` and `store` are immutable and Sendable.
private final class PeerIngest: @unchecked Sendable {
    private struct StreamKey: Hashable {
        var job: String
        var attempt: UInt32
        var step: UInt32
        var name: String
    }

    private let peer: UInt64
    private let store: BlobStore
    private let queue: DispatchQueue
    private var streams: [StreamKey: BlobWriter] = [:]

    init(peer: UInt64, store: BlobStore) {
        self.peer = peer
        self.store = store
        queue = DispatchQueue(label: "flowmatrix.artifact-ingest.\(peer)")
    }

    func submit(_ chunks: [ArtifactChunk], deliver: @escaping @Sendable ([IngestEvent]) -> Void) {
        queue.async { [self] in
            dispatchPrecondition(condition: .onQueue(queue))
            var events: [IngestEvent] = []
            events.reserveCapacity(chunks.count)
            for chunk in chunks { events.append(ingest(chunk)) }
            deliver(events)
        }
    }

    func abandon() {
        queue.async { [self] in
            dispatchPrecondition(condition: .onQueue(queue))
            for writer in streams.values { writer.abort() }
            streams.removeAll()
        }
    }

    func drain() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
    }

    private func ingest(_ chunk: ArtifactChunk) -> IngestEvent {
        let key = StreamKey(job: chunk.job, attempt: chunk.attempt, step: chunk.step, name: chunk.name)
        func ack(_ kind: ArtifactAck.Kind, _ offset: Int) -> ArtifactAck {
            ArtifactAck(job: chunk.job, attempt: chunk.attempt, name: chunk.name, sha256: chunk.sha256, kind: kind,
                        offset: UInt64(offset))
        }
        func restart(_ reason: String) -> IngestEvent {
            streams.removeValue(forKey: key)?.abort()
            return .resend(peer: peer, ack: ack(.resendFrom, 0), reason: reason)
        }
        let writer: BlobWriter
        if let existing = streams[key] {
            writer = existing
        } else {
            guard chunk.offset == 0 else { return restart("chunk at offset \(chunk.offset) of an artifact never started") }
            do {
                writer = try store.makeWriter()
            } catch {
                return restart("cannot open a blob: \(error)")
            }
            streams[key] = writer
        }
        guard chunk.offset == UInt64(writer.bytesAppended) else {
            return restart("chunk at offset \(chunk.offset), expected \(writer.bytesAppended)")
        }
        do {
            try writer.append(chunk.bytes)
        } catch {
            return restart("cannot write the blob: \(error)")
        }
        guard chunk.last else { return .accepted(peer: peer, ack: ack(.acceptedThrough, writer.bytesAppended)) }
        streams[key] = nil
        do {
            let commit = try writer.commit(expectedSHA256: Hex.encode(chunk.sha256.bytes))
            return .stored(peer: peer, ack: ack(.acceptedThrough, commit.size), step: Int(chunk.step),
                           mediaType: chunk.mediaType, size: commit.size, rawSize: Int(chunk.rawSize))
        } catch {
            writer.abort()
            return .resend(peer: peer, ack: ack(.resendFrom, 0), reason: "the artifact did not verify: \(error)")
        }
    }
}
