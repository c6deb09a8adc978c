import Synchronization
import Wire

/// Messages one side of a test connection received, in order, and the waits for a condition on them: the record
/// behind `InMemoryWorkerTransport` and the worker tests' scripted coordinator.
package final class MessageLog: Sendable {
    /// A condition a test waits for did not come in time.
    package struct TimedOut: Error, CustomStringConvertible {
        package var what: String
        package var messages: [Message]
        package var description: String { "timed out waiting for \(what); received so far: \(messages.map(\.type))" }
    }

    private struct Waiter {
        var id: Int
        var condition: @Sendable ([Message]) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var messages: [Message] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Every message recorded, in order.
    package var messages: [Message] { state.withLock { $0.messages } }

    /// Records `messages` and wakes the waits whose condition now holds.
    package func append(_ messages: [Message]) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.messages += messages
            var ready: [CheckedContinuation<Void, Never>] = []
            s.waiters.removeAll { waiter in
                guard waiter.condition(s.messages) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits (up to `timeout`) until the messages recorded so far satisfy `condition`.
    /// - Throws: `TimedOut` with what was recorded.
    package func wait(_ what: String, timeout: Duration = .seconds(20),
                      until condition: @escaping @Sendable ([Message]) -> Bool) async throws {
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = self.state.withLock { s -> Bool in
                            if condition(s.messages) || Task.isCancelled { return true }
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
                throw TimedOut(what: what, messages: self.messages)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
