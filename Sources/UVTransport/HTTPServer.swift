import CLibUV

/// What an HTTP server's application does with requests; called on the loop thread.
public protocol HTTPHandler: AnyObject {
    /// A complete, valid request head (GET or HEAD). Answer with `respond` (the connection then closes), or
    /// `startStream` and `write` for as long as the stream lasts.
    func onRequest(_ request: HTTPRequest, on connection: HTTPConnection)
    /// The connection closed (after a response, by the peer, on an error or a timeout, or at shutdown).
    func onClose(_ connection: HTTPConnection)
    /// A stream's queued bytes, which had to wait for the socket, are all written (`bufferedBytes` is 0): the time
    /// to `write` the next part of a long answer without holding it in memory. Not called when a `write` went out
    /// at once (check `bufferedBytes` after each). The default does nothing.
    func onWritable(_ connection: HTTPConnection)
}

extension HTTPHandler {
    public func onWritable(_ connection: HTTPConnection) {}
}

/// One accepted HTTP connection: one request, then one response (`Connection: close`), or an endless stream
/// (server-sent events). Loop-confined. Output is bounded (``HTTPLimits/maximumOutboundBytes``): a stream whose
/// client does not keep up is closed, so a slow reader never holds memory or time of the loop.
public final class HTTPConnection {
    public let id: UInt64
    let loop: EventLoop
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    private let writeRequest: UnsafeMutablePointer<uv_write_t>
    private let readBuffer: UnsafeMutableRawPointer
    private static let readSize = 16 << 10
    private var parser: HTTPRequestParser
    private weak var server: HTTPListener?
    private var timeout: ScheduledTimer?
    private var pending: [UInt8] = []
    private var inflight: UnsafeMutableRawBufferPointer?
    private var closeAfterFlush = false
    public private(set) var isClosed = false
    /// True once the request was answered with a stream (`startStream`).
    public private(set) var isStreaming = false
    private var answered = false

    /// Bytes accepted by `write` and not yet taken by the kernel.
    public var bufferedBytes: Int { pending.count + (inflight?.count ?? 0) }

    init(loop: EventLoop, id: UInt64, server: HTTPListener) throws {
        self.loop = loop
        self.id = id
        self.server = server
        parser = HTTPRequestParser(limits: server.limits)
        tcp = try makeTCPHandle(on: loop)
        writeRequest = .allocate(capacity: 1)
        readBuffer = .allocate(byteCount: Self.readSize, alignment: 16)
        loop.handleOpened()
        // Released in the close callback (docs/ARCHITECTURE-TRANSPORT.md, "Lifetimes").
        tcp.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    private var stream: UnsafeMutablePointer<uv_stream_t> { cuv_tcp_as_stream(tcp) }

    func start(timeout limit: Duration) {
        uvExpect(uv_tcp_nodelay(tcp, 1), "uv_tcp_nodelay")
        timeout = loop.scheduleInLoop(after: limit) { [weak self] in self?.close() }
        let result = uv_read_start(stream, { handle, _, buf in
            guard let handle, let buf, let data = handle.pointee.data else { return }
            let connection = Unmanaged<HTTPConnection>.fromOpaque(data).takeUnretainedValue()
            buf.pointee = uv_buf_init(connection.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(HTTPConnection.readSize))
        }, { stream, nread, _ in
            guard let stream, let data = stream.pointee.data else { return }
            Unmanaged<HTTPConnection>.fromOpaque(data).takeUnretainedValue().onRead(nread)
        })
        if uvError(result, "uv_read_start") != nil { close() }
    }

    private func onRead(_ nread: Int) {
        guard !isClosed else { return }
        if nread < 0 { return close() }
        // nread == 0 is not EOF (docs/ARCHITECTURE-TRANSPORT.md, "Lifetimes"): nothing to do.
        guard nread > 0, !answered else { return }
        let bytes = UnsafeRawBufferPointer(start: readBuffer, count: nread)
        switch parser.feed(bytes) {
        case .needMore:
            return
        case .failure(let failure):
            timeout?.cancel()
            answered = true
            respond(status: failure.status, headers: failure.status == 405 ? [("Allow", "GET, HEAD")] : [],
                    body: Array((failure.reason + "\n").utf8), contentType: "text/plain; charset=utf-8")
        case .request(let request):
            timeout?.cancel()
            answered = true
            server?.handler?.onRequest(request, on: self)
        }
    }

    /// Answers with a complete response and closes once it is written. `headOnly` sends the head alone (HEAD).
    public func respond(
        status: Int, headers: [(String, String)] = [], body: [UInt8], contentType: String, headOnly: Bool = false
    ) {
        loop.preconditionInLoop()
        guard !isClosed, !isStreaming else { return }
        var head = Self.head(status: status, headers: headers + [("Content-Type", contentType)])
        head += "Content-Length: \(body.count)\r\n\r\n"
        pending.append(contentsOf: head.utf8)
        if !headOnly { pending.append(contentsOf: body) }
        closeAfterFlush = true
        flush()
    }

    /// Answers with a stream (status 200, no length); later bytes go out through `write`.
    public func startStream(headers: [(String, String)], contentType: String) {
        loop.preconditionInLoop()
        guard !isClosed, !isStreaming else { return }
        isStreaming = true
        let head = Self.head(status: 200, headers: headers + [("Content-Type", contentType)]) + "\r\n"
        pending.append(contentsOf: head.utf8)
        flush()
    }

    /// Queues stream bytes. A client with bytes still queued that would go over the bound is closed instead
    /// (a first write into an empty queue is always taken, however large).
    /// - Returns: false when the connection is (now) closed.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        loop.preconditionInLoop()
        guard !isClosed, isStreaming else { return false }
        let limit = server?.limits.maximumOutboundBytes ?? 1 << 20
        if bufferedBytes > 0, bufferedBytes + bytes.count > limit {
            close()
            return false
        }
        pending.append(contentsOf: bytes)
        flush()
        return !isClosed
    }

    /// Ends a stream once what is queued has been written.
    public func endStream() {
        loop.preconditionInLoop()
        guard !isClosed, isStreaming else { return }
        closeAfterFlush = true
        flush()
    }

    static func head(status: Int, headers: [(String, String)]) -> String {
        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nConnection: close\r\nCache-Control: no-store\r\n"
            + "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        for (name, value) in headers {
            // Header text is ours, never a client's: still, no line breaks can get through.
            head += name + ": " + value.filter { $0 != "\r" && $0 != "\n" } + "\r\n"
        }
        return head
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 303: "See Other"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }

    private func flush() {
        guard !isClosed, inflight == nil else { return }
        guard !pending.isEmpty else {
            if closeAfterFlush { close() }
            return
        }
        let written = pending.withUnsafeBytes { raw -> Int in
            var buffer = uv_buf_init(UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: CChar.self)),
                                     UInt32(raw.count))
            return Int(uv_try_write(stream, &buffer, 1))
        }
        if written != Int(cuv_eagain()), uvError(written, "uv_try_write") != nil { return close() }
        let done = max(0, written)
        if done == pending.count {
            pending.removeAll(keepingCapacity: true)
            if closeAfterFlush { close() }
            return
        }
        // The rest lives in its own memory until the write callback (docs/ARCHITECTURE-TRANSPORT.md, "Lifetimes").
        let rest = UnsafeMutableRawBufferPointer.allocate(byteCount: pending.count - done, alignment: 1)
        pending.withUnsafeBytes { raw in rest.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[done...])) }
        pending.removeAll(keepingCapacity: true)
        inflight = rest
        var buffer = uv_buf_init(rest.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(rest.count))
        let result = uv_write(writeRequest, stream, &buffer, 1) { request, status in
            guard let request, let handle = request.pointee.handle, let data = handle.pointee.data else { return }
            Unmanaged<HTTPConnection>.fromOpaque(data).takeUnretainedValue().onWritten(status: status)
        }
        if uvError(result, "uv_write") != nil {
            inflight = nil
            rest.deallocate()
            close()
        }
    }

    private func onWritten(status: Int32) {
        inflight?.deallocate()
        inflight = nil
        if uvError(status, "uv_write") != nil { return close() }
        flush()
        if !isClosed, isStreaming, !closeAfterFlush, bufferedBytes == 0 { server?.handler?.onWritable(self) }
    }

    /// Closes at once (queued output is dropped). From the loop thread; safe to call twice.
    public func close() {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        isClosed = true
        timeout?.cancel()
        timeout = nil
        pending = []
        server?.connectionClosed(self)
        uv_close(cuv_tcp_as_handle(tcp)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            let connection = Unmanaged<HTTPConnection>.fromOpaque(data).takeRetainedValue()
            connection.didClose()
        }
    }

    private func didClose() {
        // A write cancelled by the close has had its callback (with ECANCELED) before this one.
        inflight?.deallocate()
        inflight = nil
        server?.handler?.onClose(self)
        loop.handleClosed()
        tcp.deallocate()
        writeRequest.deallocate()
        readBuffer.deallocate()
    }
}
