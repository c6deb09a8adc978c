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
    /// The peer broke a bound (too many open artifacts, an artifact too large): it is refused and closed.
    case refused(peer: UInt64, reason: String)
}

/// The bounds the coordinator enforces on a peer's artifact streams (docs/PROTOCOL.md, "Bounds").
public enum IngestLimits {
    /// Chunk bytes received from one connection and not yet written: a worker keeps at most its window (4 MiB)
    /// unacknowledged, so more means it ignores flow control. 8 MiB.
    public static let pendingBytes = 8 << 20
    /// Artifacts one connection may have started and not finished. 64.
    public static let openStreams = 64
    /// Compressed bytes of one artifact. 1 GiB.
    public static let artifactBytes = 1 << 30
    /// A chunk's declared raw (uncompressed) size. 1 TiB.
    public static let rawSize: UInt64 = 1 << 40
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
    /// - Returns: false, queuing nothing, when the peer's unwritten bytes would exceed `IngestLimits.pendingBytes`
    ///   (it ignores the window): the caller refuses and closes it.
    public func submit(peer: UInt64, _ chunks: [ArtifactChunk]) -> Bool {
        let ingest = peers.withLock { peers in
            if let existing = peers[peer] { return existing }
            let created = PeerIngest(peer: peer, store: store)
            peers[peer] = created
            return created
        }
        return ingest.submit(chunks, deliver: deliver)
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
/// `pending` is an atomic counter, read and written from both sides.
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
    /// Bytes submitted and not yet written.
    private let pending = Atomic<Int>(0)

    init(peer: UInt64, store: BlobStore) {
        self.peer = peer
        self.store = store
        queue = DispatchQueue(label: "flowmatrix.artifact-ingest.\(peer)")
    }

    func submit(_ chunks: [ArtifactChunk], deliver: @escaping @Sendable ([IngestEvent]) -> Void) -> Bool {
        let bytes = chunks.reduce(0) { $0 + $1.bytes.count }
        guard pending.add(bytes, ordering: .relaxed).newValue <= IngestLimits.pendingBytes else {
            pending.subtract(bytes, ordering: .relaxed)
            return false
        }
        queue.async { [self] in
            dispatchPrecondition(condition: .onQueue(queue))
            var events: [IngestEvent] = []
            events.reserveCapacity(chunks.count)
            for chunk in chunks {
                let event = ingest(chunk)
                events.append(event)
                if case .refused = event { break }
            }
            pending.subtract(bytes, ordering: .relaxed)
            deliver(events)
        }
        return true
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
            guard streams.count < IngestLimits.openStreams else {
                return .refused(peer: peer, reason: "more than \(IngestLimits.openStreams) artifacts open at once")
            }
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
        guard writer.bytesAppended + chunk.bytes.count <= IngestLimits.artifactBytes, chunk.rawSize <= IngestLimits.rawSize else {
            streams.removeValue(forKey: key)?.abort()
            return .refused(peer: peer, reason: "an artifact over \(IngestLimits.artifactBytes >> 20) MiB compressed "
                + "or \(IngestLimits.rawSize >> 30) GiB raw")
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
                           mediaType: chunk.mediaType, size: commit.size, rawSize: Int(clamping: chunk.rawSize))
        } catch {
            writer.abort()
            return .resend(peer: peer, ack: ack(.resendFrom, 0), reason: "the artifact did not verify: \(error)")
        }
    }
}
