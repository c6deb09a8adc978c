import Synchronization
import Wire
import Worker

/// A worker session's connection without a socket: what the session sends is decoded into `sent`, and its
/// watchdog timer fires only when the test calls `fireTimers()` (together with a `ManualClock`, time is the test's).
package final class InMemoryWorkerTransport: WorkerTransport {
    /// A condition a test waits for did not come in time.
    package struct TimedOut: Error, CustomStringConvertible {
        package var what: String
        package var sent: [Message]
        package var description: String { "timed out waiting for \(what); sent so far: \(sent.map(\.type))" }
    }

    private struct Waiter {
        var id: Int
        var condition: @Sendable ([Message]) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var decoder = FrameDecoder()
        var buffer = ByteBuffer()
        var sent: [Message] = []
        var timers: [(id: Int, work: @Sendable () -> Void)] = []
        var nextID = 0
        var waiters: [Waiter] = []
        var closed = false
    }

    private struct Timer: WorkerTimer {
        let onCancel: @Sendable () -> Void
        func cancel() { onCancel() }
    }

    package let protocolVersion: UInt16
    private let state = Mutex(State())

    package init(protocolVersion: UInt16 = ProtocolVersion.current) { self.protocolVersion = protocolVersion }

    /// Every message the session sent, in order.
    package var sent: [Message] { state.withLock { $0.sent } }

    /// The connection is gone: later sends are refused, as a closed socket's are.
    package func close() { state.withLock { $0.closed = true } }

    package func send(encodedFrames produce: @escaping @Sendable () -> [UInt8]) -> Bool {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>]? in
            guard !s.closed else { return nil }
            s.buffer.append(contentsOf: produce())
            while let frame = try? s.decoder.decode(buffer: &s.buffer), let message = try? Message(frame: frame) {
                s.sent.append(message)
            }
            s.buffer.discardReadBytes()
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [Waiter] = []
            for waiter in s.waiters {
                if waiter.condition(s.sent) { ready.append(waiter.continuation) } else { waiting.append(waiter) }
            }
            s.waiters = waiting
            return ready
        }
        guard let ready else { return false }
        for continuation in ready { continuation.resume() }
        return true
    }

    package func scheduleRepeating(every interval: Duration, _ work: @escaping @Sendable () -> Void) -> any WorkerTimer {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.timers.append((s.nextID, work))
            return s.nextID
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
    /// - Throws: `TimedOut` with what was sent.
    package func wait(_ what: String, timeout: Duration = .seconds(20),
                      until condition: @escaping @Sendable ([Message]) -> Bool) async throws {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = self.state.withLock { s -> Bool in
                            if condition(s.sent) || Task.isCancelled { return true }
                            s.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = self.state.withLock { s -> CheckedContinuation<Void, Never>? in
                        guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                        return s.waiters.remove(at: i).continuation
                    }
                    waiter?.resume()
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimedOut(what: what, sent: self.sent)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
