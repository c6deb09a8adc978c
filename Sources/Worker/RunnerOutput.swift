import Synchronization
import Wire

/// The frames of the job a runner runs, handed to the shared `Outbox` in one piece when the job ends: one lock of
/// the outbox per job instead of one per message (two pool threads and the loop contend for it, and a contended
/// `Mutex` sleeps in the kernel). The session's watchdog hands over what a longer job has emitted so far at each
/// tick, so the STEP events of long jobs still stream as they happen (at most one tick late).
final class RunnerOutput: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    private let outbox: Outbox

    init(outbox: Outbox) { self.outbox = outbox }

    /// Encodes `messages` into this runner's buffer.
    func emit(_ messages: [Message]) {
        bytes.withLock { b in for m in messages { m.encodeFrame(into: &b) } }
    }

    /// Hands everything emitted so far to the outbox (in order: under this runner's lock).
    func flush() {
        bytes.withLock { b in
            guard !b.isEmpty else { return }
            outbox.append(encoded: b)
            b.removeAll(keepingCapacity: true)
        }
    }
}
