import CLibUV
import Synchronization
import Wire

/// A TCP listener that accepts framed connections; loop-confined.
final class Listener {
    let loop: EventLoop
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    let settings: ConnectionSettings
    let handshake: ServerHandshakeSettings?
    let makeHandler: () -> any FramedConnectionHandler
    private(set) var isClosed = false
    private(set) var accepted: Set<ConnectionID> = []
    /// Accepted connections whose peer has not authenticated yet.
    private(set) var pendingHandshakes: Set<ConnectionID> = [] {
        didSet { pendingCount.value.store(pendingHandshakes.count, ordering: .relaxed) }
    }
    /// `pendingHandshakes.count`, readable from any thread.
    let pendingCount = PendingCount()
    /// Pending handshakes closed to make room for a newer connection.
    private(set) var evictedHandshakes = 0

    init(
        loop: EventLoop, settings: ConnectionSettings, handshake: ServerHandshakeSettings?,
        makeHandler: @escaping () -> any FramedConnectionHandler
    ) throws {
        self.loop = loop
        self.settings = settings
        self.handshake = handshake
        self.makeHandler = makeHandler
        tcp = try makeTCPHandle(on: loop)
        loop.handleOpened()
        tcp.pointee.data = Unmanaged.passRetained(self).toOpaque()
        loop.registry.listeners[ObjectIdentifier(self)] = self
    }

    /// Binds and listens; returns the bound port.
    func listen(host: String, port: Int) throws -> Int {
        try listenTCP(tcp, host: host, port: port, backlog: 1024) { server, status in
            guard let server, let data = server.pointee.data else { return }
            Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue().onConnection(status: status)
        }
    }

    private func onConnection(status: Int32) {
        guard status >= 0, !isClosed else { return }
        let connection: FramedConnection
        do {
            connection = try FramedConnection(loop: loop, settings: settings)
        } catch {
            return
        }
        // A connection the peer reset before it was accepted: nobody to tell, nothing to serve.
        guard uvError(uv_accept(cuv_tcp_as_stream(tcp), cuv_tcp_as_stream(connection.tcp)), "uv_accept") == nil else {
            connection.abort(.closedLocally)
            return
        }
        connection.listener = self
        if let handshake {
            // Unauthenticated peers are bounded in number and in frame size (docs/PROTOCOL.md, "Bounds"). At the bound
            // the oldest pending peer makes room: a flood of silent connections cannot lock out a worker that answers
            // its CHALLENGE at once, it only shortens how long each silent one is kept.
            guard pendingHandshakes.count < handshake.maximumPendingHandshakes || evictOldestPending() else {
                connection.abort(.closedLocally)
                return
            }
            pendingHandshakes.insert(connection.id)
            connection.setMaxFrameSize(min(settings.maxFrameSize, handshake.unauthenticatedMaxFrameSize))
        }
        accepted.insert(connection.id)
        let inner = makeHandler()
        if let handshake {
            connection.handler = ServerHandshakeHandler(
                settings: handshake, inner: inner, maxFrameSize: settings.maxFrameSize)
        } else {
            connection.handler = inner
        }
        connection.didOpen()
    }

    func connectionClosed(_ id: ConnectionID) {
        accepted.remove(id)
        pendingHandshakes.remove(id)
    }

    /// Closes the connection that has been in its handshake longest (the lowest id: ids grow as connections are
    /// accepted). - Returns: false when none is pending.
    private func evictOldestPending() -> Bool {
        guard let oldest = pendingHandshakes.min(by: { $0.rawValue < $1.rawValue }) else { return false }
        pendingHandshakes.remove(oldest)
        evictedHandshakes += 1
        loop.registry.connections[oldest]?.abort(.closedLocally)
        return true
    }

    /// The peer on `id` passed the handshake: it no longer counts against `maximumPendingHandshakes`.
    func authenticated(_ id: ConnectionID) { pendingHandshakes.remove(id) }

    /// Stops accepting; with `closingConnections`, also closes every accepted connection gracefully.
    func close(closingConnections: Bool = false) {
        if closingConnections {
            for id in accepted { loop.registry.connections[id]?.close(graceful: true) }
        }
        guard !isClosed else { return }
        isClosed = true
        loop.registry.listeners[ObjectIdentifier(self)] = nil
        uv_close(cuv_tcp_as_handle(tcp)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            let listener = Unmanaged<Listener>.fromOpaque(data).takeRetainedValue()
            listener.loop.handleClosed()
            listener.tcp.deallocate()
        }
    }
}

/// Forwards every event to the application's handler and reports the first open (or a close before it).
final class OpenNotifier: FramedConnectionHandler {
    private let inner: any FramedConnectionHandler
    private var continuation: CheckedContinuation<LoopBound<FramedConnection>, any Error>?

    init(inner: any FramedConnectionHandler, continuation: CheckedContinuation<LoopBound<FramedConnection>, any Error>) {
        self.inner = inner
        self.continuation = continuation
    }

    func fail(_ error: any Error) {
        continuation?.resume(throwing: error)
        continuation = nil
    }

    func onOpen(_ connection: FramedConnection) {
        inner.onOpen(connection)
        continuation?.resume(returning: LoopBound(connection, loop: connection.loop))
        continuation = nil
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) { inner.onFrames(connection, frames) }

    func onWritabilityChanged(_ connection: FramedConnection) { inner.onWritabilityChanged(connection) }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        fail(ConnectionClosedError(reason: reason))
        inner.onClose(connection, reason)
    }
}

/// Parses a numeric IPv4 / IPv6 host (or `localhost`).
func resolve(host: String, port: Int) throws -> sockaddr_storage {
    guard (0...65535).contains(port) else { throw TransportError(.badAddress, "port \(port) is out of range") }
    let numeric = host == "localhost" ? "127.0.0.1" : host
    var storage = sockaddr_storage()
    let result = withUnsafeMutablePointer(to: &storage) { cuv_parse_address(numeric, Int32(port), $0) }
    guard result == 0 else {
        throw TransportError(.badAddress, "'\(host)' is not a numeric IPv4 or IPv6 address")
    }
    return storage
}

/// A listening TCP server of framed connections. The value crosses threads; the listener stays on its loop.
public struct TCPServer: Sendable {
    public let loop: EventLoop
    /// The bound port (the ephemeral port chosen when asked for port 0).
    public let port: Int
    public let host: String
    private let listener: LoopBound<Listener>
    private let pending: PendingCount

    /// Connections accepted whose peer has not authenticated yet (readable from any thread).
    public var pendingHandshakeCount: Int { pending.value.load(ordering: .relaxed) }

    /// Listens from the loop thread, synchronously.
    /// - Parameters:
    ///   - handshake: when set, each connection first runs `ServerHandshake` with a deadline; the handler's
    ///     `onOpen` runs only for authenticated peers, and unauthenticated peers can send only HELLO.
    ///   - handlerFactory: makes one handler per accepted connection, on the loop thread.
    public static func listenInLoop(
        on loop: EventLoop, host: String, port: Int, settings: ConnectionSettings = ConnectionSettings(),
        handshake: ServerHandshakeSettings? = nil, handlerFactory: @escaping () -> any FramedConnectionHandler
    ) throws -> TCPServer {
        loop.preconditionInLoop()
        guard !loop.registry.shuttingDown else { throw TransportError(.loopShutDown, "the event loop is shut down") }
        let listener = try Listener(loop: loop, settings: settings, handshake: handshake, makeHandler: handlerFactory)
        do {
            let bound = try listener.listen(host: host, port: port)
            return TCPServer(loop: loop, port: bound, host: host, listener: LoopBound(listener, loop: loop),
                             pending: listener.pendingCount)
        } catch {
            listener.close()
            throw error
        }
    }

    /// Listens from any thread.
    public static func listen(
        on loop: EventLoop, host: String, port: Int, settings: ConnectionSettings = ConnectionSettings(),
        handshake: ServerHandshakeSettings? = nil,
        handlerFactory: @escaping @Sendable () -> any FramedConnectionHandler
    ) async throws -> TCPServer {
        loop.start()
        return try await withCheckedThrowingContinuation { continuation in
            let accepted = loop.execute {
                do {
                    continuation.resume(returning: try listenInLoop(
                        on: loop, host: host, port: port, settings: settings, handshake: handshake,
                        handlerFactory: handlerFactory))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if !accepted { continuation.resume(throwing: TransportError(.loopShutDown, "the event loop is shut down")) }
        }
    }

    /// Stops accepting new connections (from any thread); with `closingConnections`, also closes the accepted
    /// ones gracefully.
    public func close(closingConnections: Bool = false) {
        let listener = self.listener
        if loop.inLoopThread {
            listener.value.close(closingConnections: closingConnections)
        } else {
            loop.execute { listener.value.close(closingConnections: closingConnections) }
        }
    }
}

/// Outbound TCP connections.
public enum TCPClient {
    /// Connects from any thread and returns once the handler's `onOpen` ran (with `handshake`: once the server
    /// proved the token). The handler is made on the loop thread.
    /// - Throws: `ConnectionClosedError` with the reason when the connection closes before it opens,
    ///   `TransportError`, `UVError`.
    public static func connect(
        on loop: EventLoop, host: String, port: Int, settings: ConnectionSettings = ConnectionSettings(),
        handshake: ClientHandshakeSettings? = nil,
        handlerFactory: @escaping @Sendable () -> any FramedConnectionHandler
    ) async throws -> LoopBound<FramedConnection> {
        loop.start()
        return try await withCheckedThrowingContinuation { continuation in
            let accepted = loop.execute {
                let notifier = OpenNotifier(inner: handlerFactory(), continuation: continuation)
                do {
                    _ = try connectInLoop(
                        on: loop, host: host, port: port, settings: settings, handshake: handshake, handler: notifier)
                } catch {
                    notifier.fail(error)
                }
            }
            if !accepted { continuation.resume(throwing: TransportError(.loopShutDown, "the event loop is shut down")) }
        }
    }

    /// Connects from the loop thread. The handler's `onOpen` runs once connected (and, with `handshake`, once
    /// the server proved the token); a failure arrives as `onClose(.connectFailed)` or `.protocolError`.
    public static func connectInLoop(
        on loop: EventLoop, host: String, port: Int, settings: ConnectionSettings = ConnectionSettings(),
        handshake: ClientHandshakeSettings? = nil, handler: any FramedConnectionHandler
    ) throws -> FramedConnection {
        loop.preconditionInLoop()
        guard !loop.registry.shuttingDown else { throw TransportError(.loopShutDown, "the event loop is shut down") }
        var address = try resolve(host: host, port: port)
        let connection = try FramedConnection(loop: loop, settings: settings)
        connection.handler = handshake.map { ClientHandshakeHandler(settings: $0, inner: handler) } ?? handler
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        let result = withUnsafePointer(to: &address) { a in
            uv_tcp_connect(request, connection.tcp, cuv_storage_as_sockaddr(a)) { request, status in
                guard let request else { return }
                defer { request.deallocate() }
                guard let handle = request.pointee.handle, let data = handle.pointee.data else { return }
                let connection = Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue()
                if let error = uvError(status, "connect \(connection.id)") {
                    connection.abort(.connectFailed(error))
                } else {
                    connection.didOpen()
                }
            }
        }
        if let error = uvError(result, "uv_tcp_connect") {
            request.deallocate()
            connection.abort(.connectFailed(error))
        }
        return connection
    }
}

/// A counter the listener writes on its loop and anyone may read.
final class PendingCount: Sendable {
    let value = Atomic<Int>(0)
}

/// A TCP handle initialised on `loop` (freed again if libuv refuses it). The caller owns it from here: it counts it
/// with `loop.handleOpened()` and frees it in its close callback.
func makeTCPHandle(on loop: EventLoop) throws -> UnsafeMutablePointer<uv_tcp_t> {
    let tcp = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    do {
        try uvCheck(uv_tcp_init(loop.uvLoop, tcp), "uv_tcp_init")
    } catch {
        tcp.deallocate()
        throw error
    }
    return tcp
}

/// Binds `tcp` to `host:port`, listens with `backlog` calling `callback` per connection, and returns the bound port
/// (the one the system chose for port 0). The protocol's listener and the live view's HTTP listener share it.
func listenTCP(
    _ tcp: UnsafeMutablePointer<uv_tcp_t>, host: String, port: Int, backlog: Int32, _ callback: uv_connection_cb
) throws -> Int {
    var address = try resolve(host: host, port: port)
    _ = try withUnsafePointer(to: &address) { a in
        try uvCheck(uv_tcp_bind(tcp, cuv_storage_as_sockaddr(a), 0), "bind \(host):\(port)")
    }
    try uvCheck(uv_listen(cuv_tcp_as_stream(tcp), backlog, callback), "listen \(host):\(port)")
    var bound = sockaddr_storage()
    var length = cuv_sockaddr_storage_size()
    let result = withUnsafeMutablePointer(to: &bound) { b in
        uv_tcp_getsockname(tcp, cuv_storage_as_mutable_sockaddr(b), &length)
    }
    try uvCheck(result, "getsockname")
    return Int(withUnsafePointer(to: &bound) { cuv_sockaddr_port($0) })
}
