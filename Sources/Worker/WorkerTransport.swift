import UVTransport
import Wire

/// What a worker session needs of its connection: a way to send encoded frames, the protocol version agreed, and a
/// repeating timer for its watchdog. `AsyncFramedClient` is the production one; the test kit has an in-memory one.
package protocol WorkerTransport: Sendable {
    /// The version agreed in the handshake (1 when there was none, as with a session tested alone).
    var protocolVersion: UInt16 { get }
    /// Sends the frames `produce` returns when the transport runs it (once, on its own thread).
    /// - Returns: false when the connection is gone (`produce` is then never called).
    func send(encodedFrames produce: @escaping @Sendable () -> [UInt8]) -> Bool
    /// Calls `work` every `interval` until the returned timer is cancelled.
    func scheduleRepeating(every interval: Duration, _ work: @escaping @Sendable () -> Void) -> any WorkerTimer
}

/// A repeating timer that a `WorkerTransport` started.
package protocol WorkerTimer: Sendable {
    func cancel()
}

extension ScheduledTimer: WorkerTimer {}

extension AsyncFramedClient: WorkerTransport {
    package var protocolVersion: UInt16 { welcome?.version ?? 1 }

    package func scheduleRepeating(every interval: Duration, _ work: @escaping @Sendable () -> Void) -> any WorkerTimer {
        loop.scheduleRepeating(every: interval, work)
    }
}
