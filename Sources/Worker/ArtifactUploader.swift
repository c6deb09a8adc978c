import Artifacts
import FlowCrypto
import Foundation
import Synchronization
import Wire

/// Streams compressed artifacts to the coordinator as ARTIFACT_CHUNK frames with flow control: at most `window`
/// bytes are unacknowledged on the connection, so neither process buffers a large artifact whole in its queues.
/// An artifact that does not verify at the coordinator (ACK resend-from) is sent again, up to `maximumSends`.
final class ArtifactUploader: Sendable {
    static let chunkSize = 256 * 1024

    private struct StreamKey: Hashable {
        var job: String
        var attempt: UInt32
        var name: String
    }

    private enum Completion: Sendable {
        case stored
        case resend(reason: String)
        case connectionLost
    }

    private struct State {
        var unacknowledged = 0
        var ackedPerStream: [StreamKey: Int] = [:]
        var sentPerStream: [StreamKey: Int] = [:]
        var totalPerStream: [StreamKey: Int] = [:]
        var windowWaiters: [CheckedContinuation<Bool, Never>] = []
        var completions: [StreamKey: CheckedContinuation<Completion, Never>] = [:]
        var early: [StreamKey: Completion] = [:]
        var closed = false
        var resends = 0
    }

    private let state = Mutex(State())
    private let outbox: Outbox
    let window: Int
    let maximumSends: Int

    init(outbox: Outbox, window: Int = 4 << 20, maximumSends: Int = 3) {
        self.outbox = outbox
        self.window = window
        self.maximumSends = maximumSends
    }

    /// Artifacts sent again because the coordinator could not verify them.
    var resends: Int { state.withLock { $0.resends } }

    /// Sends one artifact and waits until the coordinator stored it.
    /// - Returns: false when the connection closed or it never verified.
    func upload(_ artifact: CompressedArtifact, job: String, attempt: UInt32) async -> Bool {
        let key = StreamKey(job: job, attempt: attempt, name: artifact.name)
        guard let hash = Bytes32(Hex.decode(artifact.sha256) ?? []) else { return false }
        for send in 1...maximumSends {
            if send > 1 { state.withLock { $0.resends += 1 } }
            state.withLock { s in
                s.ackedPerStream[key] = 0
                s.sentPerStream[key] = 0
                s.totalPerStream[key] = artifact.compressed.count
                s.early[key] = nil
            }
            let chunks = artifact.chunks(size: Self.chunkSize)
            var offset = 0
            for (i, chunk) in chunks.enumerated() {
                guard await reserve(chunk.count, for: key) else { return false }
                var bytes = Array(chunk)
                FaultInjection.corruptIfAsked(&bytes, name: artifact.name, send: send, chunk: i)
                outbox.emit([.artifactChunk(ArtifactChunk(
                    job: job, attempt: attempt, step: UInt32(artifact.stepIndex), name: artifact.name,
                    mediaType: artifact.mediaType, sha256: hash, offset: UInt64(offset), bytes: bytes,
                    last: i == chunks.count - 1, rawSize: UInt64(artifact.rawSize)))])
                offset += chunk.count
            }
            if chunks.isEmpty { return true }
            switch await completion(for: key) {
            case .stored:
                release(key)
                return true
            case .resend:
                release(key)
                continue
            case .connectionLost:
                return false
            }
        }
        return false
    }

    /// An ARTIFACT_ACK arrived.
    func onAck(_ ack: ArtifactAck) {
        let key = StreamKey(job: ack.job, attempt: ack.attempt, name: ack.name)
        var wake: [CheckedContinuation<Bool, Never>] = []
        var done: (CheckedContinuation<Completion, Never>, Completion)?
        state.withLock { s in
            guard let sent = s.sentPerStream[key] else { return }
            switch ack.kind {
            case .acceptedThrough:
                let acked = min(Int(ack.offset), sent)
                let delta = acked - (s.ackedPerStream[key] ?? 0)
                if delta > 0 {
                    s.unacknowledged -= delta
                    s.ackedPerStream[key] = acked
                }
                let complete = acked == s.totalPerStream[key]
                if complete, let c = s.completions.removeValue(forKey: key) {
                    done = (c, .stored)
                } else if complete {
                    s.early[key] = .stored
                }
            case .resendFrom:
                if let c = s.completions.removeValue(forKey: key) {
                    done = (c, .resend(reason: "resend requested"))
                } else {
                    s.early[key] = .resend(reason: "resend requested")
                }
            }
            wake = s.windowWaiters
            s.windowWaiters.removeAll()
        }
        for w in wake { w.resume(returning: true) }
        if let (c, value) = done { c.resume(returning: value) }
    }

    /// The connection closed: every waiting upload fails.
    func close() {
        let (waiters, completions) = state.withLock { s -> ([CheckedContinuation<Bool, Never>], [CheckedContinuation<Completion, Never>]) in
            s.closed = true
            defer { s.windowWaiters.removeAll(); s.completions.removeAll() }
            return (s.windowWaiters, Array(s.completions.values))
        }
        for w in waiters { w.resume(returning: false) }
        for c in completions { c.resume(returning: .connectionLost) }
    }

    private func reserve(_ bytes: Int, for key: StreamKey) async -> Bool {
        while true {
            let granted = state.withLock { s -> Bool? in
                if s.closed { return false }
                if s.unacknowledged == 0 || s.unacknowledged + bytes <= window {
                    s.unacknowledged += bytes
                    s.sentPerStream[key, default: 0] += bytes
                    return true
                }
                return nil
            }
            if let granted { return granted }
            let open = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.closed || s.unacknowledged + bytes <= window { return true }
                    s.windowWaiters.append(c)
                    return false
                }
                if resumeNow { c.resume(returning: true) }
            }
            if !open { return false }
        }
    }

    private func completion(for key: StreamKey) async -> Completion {
        await withCheckedContinuation { (c: CheckedContinuation<Completion, Never>) in
            let now = state.withLock { s -> Completion? in
                if s.closed { return .connectionLost }
                if let early = s.early.removeValue(forKey: key) { return early }
                s.completions[key] = c
                return nil
            }
            if let now { c.resume(returning: now) }
        }
    }

    /// Forgets a finished stream and returns its unacknowledged bytes to the window.
    private func release(_ key: StreamKey) {
        let wake = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            let outstanding = (s.sentPerStream[key] ?? 0) - (s.ackedPerStream[key] ?? 0)
            s.unacknowledged -= max(0, outstanding)
            s.sentPerStream[key] = nil
            s.ackedPerStream[key] = nil
            s.totalPerStream[key] = nil
            defer { s.windowWaiters.removeAll() }
            return s.windowWaiters
        }
        for w in wake { w.resume(returning: true) }
    }
}

/// Deliberate faults for end-to-end tests, switched on by environment variables (documented in docs/FLEET.md).
enum FaultInjection {
    /// `FLOWMATRIX_FAULT_CORRUPT_ARTIFACT=<name>` flips one byte in the first chunk of the first send of every
    /// artifact with that name, so the coordinator's hash check must catch it and ask for a resend.
    static let corruptArtifactName: String? = {
        guard let value = getenv("FLOWMATRIX_FAULT_CORRUPT_ARTIFACT") else { return nil }
        return String(cString: value)
    }()

    static func corruptIfAsked(_ bytes: inout [UInt8], name: String, send: Int, chunk: Int) {
        guard send == 1, chunk == 0, name == corruptArtifactName, !bytes.isEmpty else { return }
        bytes[bytes.count / 2] ^= 0xFF
    }
}
