import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (and SIGTERM) handling for long commands and the worker: the handler sees how many times SIGINT or
/// SIGTERM arrived. Dispatch signal sources run the handler on a queue, outside the signal context.
package final class InterruptHandler: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let counter = SignalCount()

    private final class SignalCount: Sendable {
        let value = Atomic<Int>(0)
    }

    package init(_ onInterrupt: @escaping @Sendable (Int) -> Void) {
        var made: [any DispatchSourceSignal] = []
        let counter = self.counter
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                let n = counter.value.add(1, ordering: .relaxed).newValue
                onInterrupt(n)
            }
            source.resume()
            made.append(source)
        }
        sources = Mutex(made)
    }

    package var count: Int { counter.value.load(ordering: .relaxed) }

    /// Stops listening and restores the default signal actions.
    package func cancel() {
        sources.withLock { all in
            for s in all { s.cancel() }
            all.removeAll()
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
