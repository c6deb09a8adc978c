import Synchronization
import Wire

/// The inbound side of an `AsyncFramedClient`: one element per read batch.
///
/// Back-pressure: when `maxBufferedBatches` batches wait unconsumed, the connection stops reading; it resumes
/// once the consumer has taken half of them. The sequence ends when the connection closes.
public struct InboundFrames: AsyncSequence, Sendable {
    public typealias Element = FrameBatch
    let state: InboundState

    public func makeAsyncIterator() -> Iterator { Iterator(state: state) }

    public struct Iterator: AsyncIteratorProtocol {
        let state: InboundState
        public mutating func next() async -> FrameBatch? { await state.next() }
    }
}

/// Shared between the loop (producer) and the consumer task.
final class InboundState: Sendable {
    struct Storage {
        var batches: [FrameBatch] = []
        var head = 0
        var waiter: CheckedContinuation<FrameBatch?, Never>?
        var finished = false
        var paused = false
        var nextWaiterID: UInt64 = 0
        var waiterID: UInt64 = 0
    }

    let storage = Mutex(Storage())
    let maxBuffered: Int
    /// Asks the loop to resume reading (set once the connection exists).
    let resume: Mutex<(@Sendable () -> Void)?> = Mutex(nil)

    init(maxBuffered: Int) { self.maxBuffered = max(1, maxBuffered) }

    /// On the loop: hands over a batch. - Returns: true when reading should pause.
    func push(_ frames: FrameBatch) -> Bool {
        storage.withLock { s -> Bool in
            if let waiter = s.waiter {
                s.waiter = nil
                waiter.resume(returning: frames)
                return false
            }
            s.batches.append(frames)
            if s.batches.count - s.head >= maxBuffered, !s.paused {
                s.paused = true
                return true
            }
            return false
        }
    }

    func finish() {
        storage.withLock { s in
            s.finished = true
            if let waiter = s.waiter {
                s.waiter = nil
                waiter.resume(returning: nil)
            }
        }
    }

    func next() async -> FrameBatch? {
        enum Taken { case value(FrameBatch?), wait }
        let (taken, wantResume): (Taken, Bool) = storage.withLock { s in
            if s.head < s.batches.count {
                let batch = s.batches[s.head]
                s.head += 1
                if s.head == s.batches.count {
                    s.batches.removeAll(keepingCapacity: true)
                    s.head = 0
                }
                var wantResume = false
                if s.paused, s.batches.count - s.head <= maxBuffered / 2 {
                    s.paused = false
                    wantResume = true
                }
                return (.value(batch), wantResume)
            }
            return (s.finished ? .value(nil) : .wait, false)
        }
        if wantResume, let resume = resume.withLock({ $0 }) { resume() }
        if case .value(let batch) = taken { return batch }
        let id = storage.withLock { s -> UInt64 in
            s.nextWaiterID += 1
            return s.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<FrameBatch?, Never>) in
                storage.withLock { s in
                    if s.head < s.batches.count {
                        let batch = s.batches[s.head]
                        s.head += 1
                        continuation.resume(returning: batch)
                    } else if s.finished || Task.isCancelled {
                        continuation.resume(returning: nil)
                    } else {
                        s.waiter = continuation
                        s.waiterID = id
                    }
                }
            }
        } onCancel: {
            storage.withLock { s in
                if s.waiterID == id, let waiter = s.waiter {
                    s.waiter = nil
                    waiter.resume(returning: nil)
                }
            }
        }
    }
}

/// An async façade over one framed connection, for simple clients and tests.
///
/// `inbound` yields one `FrameBatch` per read; `send` hops to the loop once per call (pass arrays to batch).
/// Dropping the last reference closes the connection, and shuts down the loop if the client owns it.
public final class AsyncFramedClient: Sendable {
    public let inbound: InboundFrames
    public let loop: EventLoop
    public let id: ConnectionID
    /// The server's WELCOME when the client ran the handshake.
    public let welcome: Welcome?
    private let ownsLoop: Bool
    private let connection: LoopBound<FramedConnection>
    private let closed: Mutex<ClosedState>

    struct ClosedState {
        var reason: CloseReason?
        var waiters: [CheckedContinuation<CloseReason, Never>] = []
    }

    private init(
        loop: EventLoop, ownsLoop: Bool, connection: LoopBound<FramedConnection>, id: ConnectionID,
        inbound: InboundFrames, welcome: Welcome?
    ) {
        self.loop = loop
        self.ownsLoop = ownsLoop
        self.connection = connection
        self.inbound = inbound
        self.welcome = welcome
        self.id = id
        closed = Mutex(ClosedState())
    }

    /// Connects (and authenticates, with `handshake`).
    /// - Parameters:
    ///   - loop: the loop to run on; nil starts a private loop that `close()` shuts down.
    ///   - maxBufferedBatches: unconsumed batches before reading pauses.
    /// - Throws: `ConnectionClosedError` with the close reason (refused, rejected, timed out), `TransportError`.
    public static func connect(
        host: String, port: Int, settings: ConnectionSettings = ConnectionSettings(),
        handshake: ClientHandshakeSettings? = nil, loop: EventLoop? = nil, maxBufferedBatches: Int = 64
    ) async throws -> AsyncFramedClient {
        let ownsLoop = loop == nil
        let loop = loop ?? EventLoop()
        loop.start()
        let inboundState = InboundState(maxBuffered: maxBufferedBatches)
        let bridge = ClientBridge(inbound: inboundState)
        do {
            let (connection, id, welcome) = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(LoopBound<FramedConnection>, ConnectionID, Welcome?), any Error>) in
                bridge.opened.withLock { $0 = continuation }
                let accepted = loop.execute {
                    do {
                        let handler = ClientBridgeHandler(bridge: bridge)
                        let connection = try TCPClient.connectInLoop(
                            on: loop, host: host, port: port, settings: settings, handshake: handshake,
                            handler: handler)
                        let bound = LoopBound(connection, loop: loop)
                        inboundState.resume.withLock { $0 = { loop.execute { bound.value.resumeReading() } } }
                    } catch {
                        bridge.failOpen(error)
                    }
                }
                if !accepted { bridge.failOpen(TransportError(.loopShutDown, "the event loop is shut down")) }
            }
            let client = AsyncFramedClient(
                loop: loop, ownsLoop: ownsLoop, connection: connection, id: id,
                inbound: InboundFrames(state: inboundState),
                welcome: welcome)
            bridge.client.withLock { $0 = WeakClient(client) }
            if let reason = bridge.closeReasonIfClosed() { client.didClose(reason) }
            return client
        } catch {
            if ownsLoop { loop.shutdown() }
            throw error
        }
    }

    deinit {
        let connection = self.connection
        let loop = self.loop
        loop.execute { connection.value.close(graceful: false) }
        // Without this a dropped client would leak its loop thread (a shutdown on the loop thread itself
        // detaches instead of joining).
        if ownsLoop { loop.shutdown() }
    }

    /// Queues one frame and flushes it (one hop to the loop).
    public func send(_ frame: Frame) { send([frame]) }

    /// Queues frames and flushes them (one hop to the loop for the whole array).
    public func send(_ frames: [Frame]) {
        let connection = self.connection
        loop.execute {
            connection.value.send(contentsOf: frames)
            connection.value.flush()
        }
    }

    /// Queues one message.
    public func send(_ message: Message) { send([message.frame()]) }

    /// On the loop thread, calls `produce` and queues and flushes the whole frames it returns (as
    /// `Message.encodeFrame(into:)` writes them): one hop for everything a coalescing sender gathered until then.
    /// - Returns: false when the loop is shut down and `produce` will never be called.
    @discardableResult
    public func send(encodedFrames produce: @escaping @Sendable () -> [UInt8]) -> Bool {
        let connection = self.connection
        return loop.execute {
            let bytes = produce()
            guard !bytes.isEmpty else { return }
            bytes.withUnsafeBytes { _ = connection.value.send(encodedFrames: $0) }
            connection.value.flush()
        }
    }

    /// Closes the connection and waits until it is closed; shuts down the private loop.
    @discardableResult
    public func close(graceful: Bool = true) async -> CloseReason {
        let connection = self.connection
        loop.execute { connection.value.close(graceful: graceful) }
        let reason = await closeReason()
        if ownsLoop { loop.shutdown() }
        return reason
    }

    /// Waits until the connection closes, and says why.
    public func closeReason() async -> CloseReason {
        await withCheckedContinuation { continuation in
            closed.withLock { state in
                if let reason = state.reason {
                    continuation.resume(returning: reason)
                } else {
                    state.waiters.append(continuation)
                }
            }
        }
    }

    fileprivate func didClose(_ reason: CloseReason) {
        let waiters = closed.withLock { state -> [CheckedContinuation<CloseReason, Never>] in
            guard state.reason == nil else { return [] }
            state.reason = reason
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }
}

private struct WeakClient: Sendable {
    weak var client: AsyncFramedClient?
    init(_ client: AsyncFramedClient) { self.client = client }
}

/// What the loop-side handler shares with the façade.
private final class ClientBridge: Sendable {
    let inbound: InboundState
    let opened = Mutex<CheckedContinuation<(LoopBound<FramedConnection>, ConnectionID, Welcome?), any Error>?>(nil)
    let client = Mutex<WeakClient?>(nil)
    let early = Mutex<CloseReason?>(nil)

    init(inbound: InboundState) { self.inbound = inbound }

    func failOpen(_ error: any Error) {
        opened.withLock { $0.take() }?.resume(throwing: error)
    }

    func closeReasonIfClosed() -> CloseReason? { early.withLock { $0 } }
}

/// The loop-confined handler behind an `AsyncFramedClient`.
private final class ClientBridgeHandler: FramedConnectionHandler {
    let bridge: ClientBridge

    init(bridge: ClientBridge) { self.bridge = bridge }

    func onOpen(_ connection: FramedConnection) {
        let continuation = bridge.opened.withLock { $0.take() }
        continuation?.resume(returning: (LoopBound(connection, loop: connection.loop), connection.id, connection.welcome))
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        if bridge.inbound.push(frames) { connection.pauseReading() }
    }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        bridge.early.withLock { $0 = reason }
        bridge.failOpen(ConnectionClosedError(reason: reason))
        bridge.inbound.finish()
        bridge.client.withLock { $0?.client }?.didClose(reason)
    }
}

/// The connection closed before it opened (connect refused, handshake rejected or timed out).
public struct ConnectionClosedError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: CloseReason
    public var description: String { "connection closed before it opened: \(reason)" }
}
