import CLibUV

/// The listening socket of an ``HTTPServer`` and its open connections; loop-confined.
final class HTTPListener {
    let loop: EventLoop
    let limits: HTTPLimits
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    /// Strong: the application's handler lives as long as the server.
    var handler: (any HTTPHandler)?
    private(set) var connections: [UInt64: HTTPConnection] = [:]
    private var nextID: UInt64 = 0
    private var isClosed = false

    init(loop: EventLoop, limits: HTTPLimits, handler: any HTTPHandler) throws {
        self.loop = loop
        self.limits = limits
        self.handler = handler
        tcp = try makeTCPHandle(on: loop)
        loop.handleOpened()
        tcp.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    func listen(host: String, port: Int) throws -> Int {
        try listenTCP(tcp, host: host, port: port, backlog: 128) { server, status in
            guard let server, let data = server.pointee.data else { return }
            Unmanaged<HTTPListener>.fromOpaque(data).takeUnretainedValue().onConnection(status: status)
        }
    }

    private func onConnection(status: Int32) {
        guard status >= 0, !isClosed else { return }
        nextID += 1
        guard let connection = try? HTTPConnection(loop: loop, id: nextID, server: self) else { return }
        connections[connection.id] = connection
        guard uvError(uv_accept(cuv_tcp_as_stream(tcp), cuv_tcp_as_stream(connection.tcp)), "uv_accept") == nil,
              connections.count <= limits.maximumConnections
        else {
            connection.close()
            return
        }
        connection.start(timeout: limits.requestTimeout)
    }

    func connectionClosed(_ connection: HTTPConnection) {
        connections[connection.id] = nil
    }

    /// Stops listening and closes every connection.
    func close() {
        for connection in Array(connections.values) { connection.close() }
        guard !isClosed else { return }
        isClosed = true
        uv_close(cuv_tcp_as_handle(tcp)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            let listener = Unmanaged<HTTPListener>.fromOpaque(data).takeRetainedValue()
            listener.handler = nil
            listener.loop.handleClosed()
            listener.tcp.deallocate()
        }
    }
}

/// A small HTTP/1.1 server on an `EventLoop` (GET and HEAD, one request per connection, streams for server-sent
/// events), with the bounds of ``HTTPLimits``. The value crosses threads; the listener stays on its loop.
public struct HTTPServer: Sendable {
    public let loop: EventLoop
    /// The bound port (the ephemeral port chosen when asked for port 0).
    public let port: Int
    private let listener: LoopBound<HTTPListener>

    /// Listens from the loop thread; `handler` gets every valid request on that thread.
    /// - Throws: `TransportError` (bad address), `UVError` (port in use).
    public static func listenInLoop(
        on loop: EventLoop, host: String, port: Int, limits: HTTPLimits = HTTPLimits(), handler: any HTTPHandler
    ) throws -> HTTPServer {
        loop.preconditionInLoop()
        guard !loop.registry.shuttingDown else { throw TransportError(.loopShutDown, "the event loop is shut down") }
        let listener = try HTTPListener(loop: loop, limits: limits, handler: handler)
        do {
            let bound = try listener.listen(host: host, port: port)
            return HTTPServer(loop: loop, port: bound, listener: LoopBound(listener, loop: loop))
        } catch {
            listener.close()
            throw error
        }
    }

    /// Open connections (from the loop thread).
    public var connectionCount: Int { listener.value.connections.count }

    /// Stops listening and closes every connection; from the loop thread. Call it before the loop's `shutdown()`.
    public func closeInLoop() { listener.value.close() }
}
