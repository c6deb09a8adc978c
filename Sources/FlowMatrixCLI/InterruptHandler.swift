import Dispatch
import Foundation
import Synchronization

/// Ctrl-C handling for long commands: the handler sees how many times SIGINT (or SIGTERM) arrived.
final class InterruptHandler: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let counter = SignalCount()

    private final class SignalCount: Sendable {
        let value = Atomic<Int>(0)
    }

    init(_ onInterrupt: @escaping @Sendable (Int) -> Void) {
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

    var count: Int { counter.value.load(ordering: .relaxed) }

    /// Stops listening and restores the default signal actions.
    func cancel() {
        sources.withLock { all in
            for s in all { s.cancel() }
            all.removeAll()
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
