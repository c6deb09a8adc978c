import Synchronization
import Wire
import Worker

/// A worker session's connection without a socket: what the session sends is decoded into `sent`, and its
/// watchdog timer fires only when the test calls `fireTimers()` (together with a `ManualClock`, time is the test's).
package final class InMemoryWorkerTransport: WorkerTransport {
    private struct State {
        var decoder = FrameDecoder()
        var buffer = ByteBuffer()
        var timers: [(id: Int, work: @Sendable () -> Void)] = []
        var nextTimer = 0
        var closed = false
    }

    private struct Timer: WorkerTimer {
        let onCancel: @Sendable () -> Void
        func cancel() { onCancel() }
    }

    package let protocolVersion: UInt16
    /// What the session sent, decoded, with waits on it.
    package let log = MessageLog()
    private let state = Mutex(State())

    package init(protocolVersion: UInt16 = ProtocolVersion.current) { self.protocolVersion = protocolVersion }

    /// Every message the session sent, in order.
    package var sent: [Message] { log.messages }

    /// The connection is gone: later sends are refused, as a closed socket's are.
    package func close() { state.withLock { $0.closed = true } }

    package func send(encodedFrames produce: @escaping @Sendable () -> [UInt8]) -> Bool {
        state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.buffer.append(contentsOf: produce())
            var messages: [Message] = []
            while let frame = try? s.decoder.decode(buffer: &s.buffer), let message = try? Message(frame: frame) {
                messages.append(message)
            }
            s.buffer.discardReadBytes()
            // Recorded under this lock, so concurrent sends are logged in the order their bytes were decoded.
            log.append(messages)
            return true
        }
    }

    package func scheduleRepeating(every interval: Duration, _ work: @escaping @Sendable () -> Void) -> any WorkerTimer {
        let id = state.withLock { s -> Int in
            s.nextTimer += 1
            s.timers.append((s.nextTimer, work))
            return s.nextTimer
        }
        return Timer { [weak self] in self?.cancelTimer(id) }
    }

    /// Runs every live timer's work once, on the calling task (as one tick of the event loop would).
    package func fireTimers() {
        for work in state.withLock({ $0.timers.map(\.work) }) { work() }
    }

    /// Timers started and not cancelled.
    package var liveTimers: Int { state.withLock { $0.timers.count } }

    private func cancelTimer(_ id: Int) { state.withLock { $0.timers.removeAll { $0.id == id } } }

    /// Waits (up to `timeout`) until the messages sent so far satisfy `condition`.
    /// - Throws: `MessageLog.TimedOut` with what was sent.
    package func wait(_ what: String, timeout: Duration = .seconds(20),
                      until condition: @escaping @Sendable ([Message]) -> Bool) async throws {
        try await log.wait(what, timeout: timeout, until: condition)
    }
}
