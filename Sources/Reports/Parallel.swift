import Foundation
import Synchronization

/// Runs the parts of a report that do not depend on each other on two threads (a 100,000-job report is CPU work;
/// the machine has more than one core), and the bounded queue that hands jobs from one stage of the journal pass
/// to the next.
enum Parallel {
    /// Runs `first` on the calling thread and `second` on a new thread, and returns when both have returned.
    /// Errors are rethrown after both finished (the first one's first).
    ///
    /// The two closures may capture non-`Sendable` state: the caller must give them disjoint state, or state they
    /// only read (this is what `ReportWriter` does: each writer object belongs to one closure).
    static func both<A, B>(_ first: () throws -> A, _ second: () throws -> B) throws -> (A, B) {
        try withoutActuallyEscaping(second) { second in
            let task = ThreadTask(second)
            let finished = DispatchSemaphore(value: 0)
            // Foundation's Thread rather than pthread_create: the same code on Linux and Darwin.
            let thread = Thread {
                task.run()
                finished.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
            let a = Result { try first() }
            finished.wait()
            guard let b = task.result else { throw ReportError(code: .output, message: "a report thread did not finish") }
            return (try a.get(), try b.get())
        }
    }

    /// A closure run on its own thread by ``both(_:_:)``.
    ///
    /// `@unchecked Sendable` because the closure it carries is not `Sendable`. It is safe: ``both(_:_:)`` starts the
    /// thread, which alone calls `body` and writes `result`; the caller reads `result` only after waiting for the
    /// thread's signal, which orders the thread's writes before that read. `body` is dropped on the thread before it
    /// signals, so the non-escaping closure does not outlive `withoutActuallyEscaping`.
    private final class ThreadTask<T>: @unchecked Sendable {
        private var body: (() throws -> T)?
        private(set) var result: Result<T, any Error>?

        init(_ body: @escaping () throws -> T) { self.body = body }

        func run() {
            guard let body else { return }
            result = Result { try body() }
            self.body = nil
        }
    }

    /// A value one thread makes and others wait for (the run's index, which later stages of the pass need).
    final class Promise<Value: Sendable>: Sendable {
        private let state = Mutex<Result<Value, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        /// Sets the value (or the error that stops the waiters); only the first call counts.
        func fulfill(_ result: Result<Value, any Error>) {
            state.withLock { if $0 == nil { $0 = result } }
            done.signal()
        }

        /// Waits for ``fulfill(_:)``.
        /// - Throws: the error it was fulfilled with.
        func wait() throws -> Value {
            done.wait()
            done.signal()  // the next waiter
            guard let result = state.withLock({ $0 }) else {
                throw ReportError(code: .output, message: "a report stage was woken without a value")
            }
            return try result.get()
        }
    }

    /// A first-in first-out queue of at most `capacity` batches between one producer thread and one consumer
    /// thread: the producer waits while it is full, so memory holds at most `capacity` batches whatever the run's
    /// size. ``close()`` ends it: the consumer then drains what is left and gets nil.
    final class Channel<Element: Sendable>: Sendable {
        private struct State {
            var items: [[Element]] = []
            var head = 0
            var closed = false
            var cancelled = false
        }

        private let state = Mutex(State())
        /// Free places, and batches ready.
        private let free: DispatchSemaphore
        private let ready = DispatchSemaphore(value: 0)

        init(capacity: Int) { free = DispatchSemaphore(value: capacity) }

        /// Adds a batch, waiting for room. Returns false when the consumer gave up (``cancel()``).
        @discardableResult
        func send(_ batch: [Element]) -> Bool {
            free.wait()
            let accepted = state.withLock { s in
                guard !s.cancelled else { return false }
                s.items.append(batch)
                return true
            }
            ready.signal()
            return accepted
        }

        /// No more batches will come.
        func close() {
            state.withLock { $0.closed = true }
            ready.signal()
        }

        /// The consumer stops taking batches (after an error): the producer's sends return false and do not wait.
        func cancel() {
            state.withLock { $0.cancelled = true }
            free.signal()
        }

        /// The next batch, waiting for one; nil once the queue is closed and empty.
        func receive() -> [Element]? {
            while true {
                ready.wait()
                let next: [Element]?? = state.withLock { s in
                    if s.head < s.items.count {
                        let batch = s.items[s.head]
                        s.items[s.head] = []
                        s.head += 1
                        if s.head > 64 {
                            s.items.removeFirst(s.head)
                            s.head = 0
                        }
                        return .some(batch)
                    }
                    return s.closed ? .some(nil) : nil
                }
                if let next {
                    if next != nil { free.signal() } else { ready.signal() }
                    return next
                }
            }
        }
    }
}
