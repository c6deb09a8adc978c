import Foundation
import Synchronization

extension Process {
    /// Waits until this started process has exited, without blocking a thread: a continuation resumed from its
    /// `terminationHandler` (chained after any handler already set), or after `timeout`.
    ///
    /// Async code must not call `waitUntilExit()`: it blocks a thread of the cooperative pool, which may have as few
    /// threads as the machine has cores, and every other task waits with it.
    /// - Returns: true when it exited (its `terminationStatus` is then final), false when `timeout` passed first (it
    ///   is left running).
    public func exited(timeout: Duration) async -> Bool {
        let waiter = ExitWaiter()
        let previous = terminationHandler
        terminationHandler = { process in
            previous?(process)
            waiter.finish(exited: true)
        }
        // It may have ended before the handler was set (then the handler never runs).
        if !isRunning { waiter.finish(exited: true) }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            waiter.finish(exited: false)
        }
        defer { timer.cancel() }
        return await waiter.wait()
    }

    /// Ends this started process: SIGTERM, then SIGKILL when it has not exited within `grace`; waits (without
    /// blocking a thread) until it has gone.
    public func stop(grace: Duration = .seconds(1)) async {
        guard isRunning else { return }
        terminate()
        if await exited(timeout: grace) { return }
        kill(processIdentifier, SIGKILL)
        _ = await exited(timeout: .seconds(10))
    }
}

/// One wait for one exit: `finish` resumes the waiter once, whichever of the exit and the timeout comes first.
private final class ExitWaiter: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Bool, Never>?)
        case finished(Bool)
    }

    private let state = Mutex(State.waiting(nil))

    func finish(exited: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .finished(exited)
            return waiter
        }
        waiter?.resume(returning: exited)
    }

    func wait() async -> Bool {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state -> Bool? in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .finished(let exited):
                    return exited
                }
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}
