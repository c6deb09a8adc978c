import Synchronization
import Wire

/// Messages bound for the coordinator, coalesced: tasks encode their frames straight into one shared buffer, and
/// one hop to the event loop sends everything queued until it runs (docs/ARCHITECTURE-TRANSPORT.md: batches out, never one hop
/// per frame on the hot path). Credits granted between two sends travel as one CREDIT frame.
final class Outbox: Sendable {
    private struct State {
        /// Whole encoded frames, in emission order.
        var bytes: [UInt8] = []
        var credit: UInt32 = 0
        /// A hop to the loop is on its way and will take everything queued before it runs.
        var scheduled = false
    }

    private let state = Mutex(State())
    private let transport: any WorkerTransport

    init(transport: any WorkerTransport) { self.transport = transport }

    func emit(_ messages: [Message]) {
        let schedule = state.withLock { s -> Bool in
            for m in messages { m.encodeFrame(into: &s.bytes) }
            defer { s.scheduled = true }
            return !s.scheduled
        }
        if schedule { scheduleFlush() }
    }

    /// Queues whole encoded frames (a runner's output, see `RunnerOutput`).
    func append(encoded bytes: [UInt8]) {
        let schedule = state.withLock { s -> Bool in
            s.bytes.append(contentsOf: bytes)
            defer { s.scheduled = true }
            return !s.scheduled
        }
        if schedule { scheduleFlush() }
    }

    func grant(_ credit: UInt32) {
        let schedule = state.withLock { s -> Bool in
            s.credit += credit
            defer { s.scheduled = true }
            return !s.scheduled
        }
        if schedule { scheduleFlush() }
    }

    private func scheduleFlush() {
        let accepted = transport.send(encodedFrames: { [self] in take() })
        if !accepted { state.withLock { $0.scheduled = false } }
    }

    /// On the loop: everything queued, the pending credit last.
    private func take() -> [UInt8] {
        state.withLock { s in
            if s.credit > 0 { Message.credit(s.credit).encodeFrame(into: &s.bytes) }
            s.credit = 0
            s.scheduled = false
            var out: [UInt8] = []
            swap(&out, &s.bytes)
            return out
        }
    }
}
