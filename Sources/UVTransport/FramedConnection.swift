import CLibUV
import Wire

/// A connection's identity, stable for its lifetime and unique within its loop; crosses threads freely.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public var description: String { "#\(rawValue)" }
}

/// Tunables of a framed connection, with their defaults.
public struct ConnectionSettings: Sendable {
    /// The largest frame accepted (length field: type byte + payload). Default 16 MiB.
    public var maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    /// Above this many queued outbound bytes the connection turns unwritable. Default 1 MiB.
    public var outboundHighWater: Int = 1 << 20
    /// At or below this many queued outbound bytes an unwritable connection turns writable again. Default 256 KiB.
    public var outboundLowWater: Int = 256 << 10
    /// The hard limit of queued outbound bytes: a sender that ignores writability past it is closed with
    /// `WireError.Code.overloaded`, so a peer that never reads cannot grow memory without bound. Default 64 MiB.
    public var maxOutboundBytes: Int = 64 << 20
    /// Bytes read per `read` call. Default 256 KiB.
    public var readBufferSize: Int = 256 << 10
    /// How long a graceful close waits for queued output to drain before it resets the connection. Default 5 s.
    public var closeLinger: Duration = .seconds(5)
    /// Stop reading while the connection is unwritable (a peer that does not read our answers cannot make us
    /// buffer more of its requests). Default false.
    public var pauseReadingWhileUnwritable = false

    public init() {}
}

/// Why a connection closed.
public enum CloseReason: Sendable, Hashable, CustomStringConvertible {
    /// `close(graceful:)` was called on this side.
    case closedLocally
    /// The peer closed its side (EOF).
    case peerClosed
    /// The connection never opened.
    case connectFailed(UVError)
    /// A socket error (reset by peer, broken pipe…).
    case ioError(UVError)
    /// A protocol failure: malformed frame, failed or late handshake, heartbeat timeout, overload.
    case protocolError(WireError)
    /// The event loop shut down.
    case loopShutdown

    public var description: String {
        switch self {
        case .closedLocally: "closed locally"
        case .peerClosed: "closed by the peer"
        case .connectFailed(let e): "connect failed: \(e)"
        case .ioError(let e): "I/O error: \(e)"
        case .protocolError(let e): "protocol error: \(e)"
        case .loopShutdown: "event loop shut down"
        }
    }
}

/// Receives a connection's events, always on the loop thread, with whole read batches.
///
/// Implementation requirements: do not block (the loop serves every connection); keep per-frame work small;
/// to hand work to Swift tasks, hop once per batch, not once per frame. `onClose` is called exactly once,
/// after which the connection drops its reference to the handler.
public protocol FramedConnectionHandler: AnyObject {
    /// The connection is open (for servers with a handshake: authenticated) and may send.
    func onOpen(_ connection: FramedConnection)
    /// Every frame that one read produced, in order.
    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch)
    /// `connection.isWritable` changed (outbound queue crossed a water mark).
    func onWritabilityChanged(_ connection: FramedConnection)
    /// The connection closed; its handle is freed.
    func onClose(_ connection: FramedConnection, _ reason: CloseReason)
}

extension FramedConnectionHandler {
    public func onWritabilityChanged(_ connection: FramedConnection) {}
}

/// Bytes waiting to be written: raw memory, so `uv_write` can keep a pointer until its callback, plus large
/// payloads attached by reference (written with `writev`, never copied).
///
/// A struct (not a class) so the per-frame append is an in-place access, not a reference-count round trip;
/// its owner calls `free()` exactly once (the connection's `deinit`). Applications reach it only inside
/// `FramedConnection.withOutboundBuffer`, as an `inout` parameter, so it is never copied.
public struct OutboundBuffer {
    /// Payloads at least this large are attached instead of copied.
    static let attachThreshold = 64 << 10

    private(set) var base: UnsafeMutableRawPointer
    /// Raw bytes in `base`.
    var count = 0
    private var capacity: Int
    /// Large payloads, each logically inserted at raw offset `at`; kept alive here until written.
    private(set) var attachments: [(at: Int, payload: ArraySlice<UInt8>)] = []
    private(set) var attachedBytes = 0

    /// Every byte queued, raw and attached.
    var total: Int { count + attachedBytes }

    mutating func clear() {
        count = 0
        if !attachments.isEmpty {
            attachments.removeAll(keepingCapacity: true)
            attachedBytes = 0
        }
    }

    /// Queues a frame whose (large) payload is written from its own storage.
    mutating func appendAttached(type: UInt8, payload: ArraySlice<UInt8>) {
        append(type: type, payloadLength: payload.count)
        attachments.append((count, payload))
        attachedBytes += payload.count
    }

    private mutating func append(type: UInt8, payloadLength: Int) {
        reserve(5)
        let p = base + count
        p.storeBytes(of: UInt32(truncatingIfNeeded: payloadLength + 1).bigEndian, as: UInt32.self)
        p.storeBytes(of: type, toByteOffset: 4, as: UInt8.self)
        count += 5
    }

    /// The queued bytes from byte `skip` on, as `uv_buf_t`s in stream order.
    ///
    /// Attached payload pointers stay valid until `clear()`: the slices are held in `attachments`, never
    /// mutated, so their storage neither moves nor is freed while a write uses it.
    func buffers(skipping skip: Int) -> [uv_buf_t] {
        var out: [uv_buf_t] = []
        out.reserveCapacity(attachments.count * 2 + 1)
        var toSkip = skip
        func add(_ pointer: UnsafeRawPointer, _ length: Int) {
            if toSkip >= length {
                toSkip -= length
                return
            }
            let start = UnsafeMutableRawPointer(mutating: pointer) + toSkip
            out.append(uv_buf_init(start.assumingMemoryBound(to: CChar.self), UInt32(length - toSkip)))
            toSkip = 0
        }
        var rawStart = 0
        for attachment in attachments {
            if attachment.at > rawStart { add(base + rawStart, attachment.at - rawStart) }
            rawStart = attachment.at
            attachment.payload.withUnsafeBytes { raw in
                if let pointer = raw.baseAddress, raw.count > 0 { add(pointer, raw.count) }
            }
        }
        if count > rawStart { add(base + rawStart, count - rawStart) }
        return out
    }

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(byteCount: self.capacity, alignment: 16)
    }

    func free() { base.deallocate() }

    /// Appends one frame: header, then the payload bytes.
    @inline(__always)
    public mutating func write(type: UInt8, payload: UnsafeRawBufferPointer) { append(type: type, payload: payload) }

    /// Appends one frame (large payloads are attached, not copied).
    public mutating func write(_ frame: Frame) {
        if frame.payload.count >= OutboundBuffer.attachThreshold {
            appendAttached(type: frame.type, payload: frame.payload)
        } else {
            frame.payload.withUnsafeBytes { append(type: frame.type, payload: $0) }
        }
    }

    /// Appends one message.
    public mutating func write(_ message: Message) { write(message.frame()) }

    /// Bytes queued in this buffer.
    public var queuedBytes: Int { total }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        let needed = count + extra
        guard needed > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(type: UInt8, payload: UnsafeRawBufferPointer) {
        let length = payload.count + 1
        reserve(length + 4)
        let p = base + count
        p.storeBytes(of: UInt32(truncatingIfNeeded: length).bigEndian, as: UInt32.self)
        p.storeBytes(of: type, toByteOffset: 4, as: UInt8.self)
        if let source = payload.baseAddress, payload.count > 0 {
            (p + 5).copyMemory(from: source, byteCount: payload.count)
        }
        count += length + 4
    }

    mutating func append(raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        reserve(raw.count)
        (base + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }
}

/// A framed TCP connection, confined to its loop thread (every public method checks it).
///
/// Sends are queued and written once per loop iteration (or on `flush()`), `uv_try_write` first and `uv_write`
/// for the rest, so many small frames become one system call. Reads arrive as batches through the handler.
public final class FramedConnection {
    public enum State: Sendable, Hashable { case connecting, open, closing, closed }

    public let id: ConnectionID
    public let loop: EventLoop
    public let settings: ConnectionSettings
    /// The peer's numeric address, `host:port` (IPv6 in brackets); nil before the connection opens.
    public private(set) var remoteAddress: String?
    public private(set) var state: State = .connecting
    /// The authenticated peer's HELLO (servers with a handshake), set before `onOpen`.
    public internal(set) var authenticatedPeer: Hello?
    /// The server's WELCOME (clients with a handshake), set before `onOpen`.
    public internal(set) var welcome: Welcome?
    /// False while the outbound queue is above the high water mark.
    public private(set) var isWritable = true
    /// True while reading is paused (by `pauseReading()` or back-pressure).
    public var isReadingPaused: Bool { userPaused || pausedForWritability }
    /// Why the connection closed (or is closing), once known.
    public private(set) var closeReason: CloseReason?

    var handler: (any FramedConnectionHandler)?
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    private var stream: UnsafeMutablePointer<uv_stream_t> { cuv_tcp_as_stream(tcp) }
    private var decoder: FrameDecoder
    private var inbound = ByteBuffer()
    private let readBuffer: UnsafeMutableRawPointer
    private var pending: OutboundBuffer
    private var inflight: OutboundBuffer
    private var inflightOffset = 0
    private var writeInFlight = false
    private let writeRequest: UnsafeMutablePointer<uv_write_t>
    private var shutdownRequest: UnsafeMutablePointer<uv_shutdown_t>?
    private var reading = false
    private var userPaused = false
    private var pausedForWritability = false
    var markedDirty = false
    /// A large frame body being read straight into its payload array (no intermediate copy).
    private var largeBody: (type: UInt8, payload: [UInt8], filled: Int)?
    /// Bodies at least this large are read directly into their own array.
    static let directReadThreshold = 256 << 10
    private var lastFrameWasLarge = false
    private var lingerTimer: ScheduledTimer?
    private var heartbeatTimer: ScheduledTimer?
    private var sentSinceTick = false
    private var receivedSinceTick = false
    private var silentTicks = 0
    /// The listener that accepted this connection (weak: both may close in one loop iteration).
    weak var listener: Listener?

    /// Changes the largest frame accepted from now on (see `FrameDecoder.setMaxFrameSize`).
    func setMaxFrameSize(_ size: Int) { decoder.setMaxFrameSize(size) }

    init(loop: EventLoop, settings: ConnectionSettings) throws {
        self.loop = loop
        self.settings = settings
        id = loop.registry.makeConnectionID()
        decoder = FrameDecoder(maxFrameSize: settings.maxFrameSize)
        readBuffer = .allocate(byteCount: max(4096, settings.readBufferSize), alignment: 16)
        pending = OutboundBuffer(capacity: 64 << 10)
        inflight = OutboundBuffer(capacity: 64 << 10)
        writeRequest = .allocate(capacity: 1)
        tcp = .allocate(capacity: 1)
        let result = uv_tcp_init(loop.uvLoop, tcp)
        guard result == 0 else {
            tcp.deallocate()
            writeRequest.deallocate()
            readBuffer.deallocate()
            throw UVError(code: result, operation: "uv_tcp_init")
        }
        loop.handleOpened()
        tcp.pointee.data = Unmanaged.passRetained(self).toOpaque()
        loop.registry.connections[id] = self
    }

    deinit {
        readBuffer.deallocate()
        pending.free()
        inflight.free()
    }

    // MARK: Sending

    /// Bytes queued and not yet written.
    public var outboundBytes: Int { pending.total + inflight.total - inflightOffset }

    /// Queues one frame. Dropped (returns false) once the connection is closing or closed.
    @discardableResult
    public func send(_ frame: Frame) -> Bool {
        guard state == .open || state == .connecting else { return false }
        if frame.payload.count >= OutboundBuffer.attachThreshold {
            pending.appendAttached(type: frame.type, payload: frame.payload)
        } else {
            frame.payload.withUnsafeBytes { pending.append(type: frame.type, payload: $0) }
        }
        didEnqueue()
        return true
    }

    /// Queues many frames with one bookkeeping pass.
    @discardableResult
    public func send(contentsOf frames: [Frame]) -> Bool { send(contentsOf: frames[...]) }

    /// Queues many frames with one bookkeeping pass.
    @discardableResult
    public func send(contentsOf frames: ArraySlice<Frame>) -> Bool {
        guard state == .open || state == .connecting else { return false }
        var bytes = 0
        for frame in frames { bytes &+= min(frame.payload.count, OutboundBuffer.attachThreshold) &+ Frame.headerSize }
        // One access to the store for the whole batch.
        withPending { store in
            store.reserve(bytes)
            frames.withUnsafeBufferPointer { p in
                for i in p.indices {
                    if p[i].payload.count >= OutboundBuffer.attachThreshold {
                        store.appendAttached(type: p[i].type, payload: p[i].payload)
                    } else {
                        p[i].payload.withUnsafeBytes { store.append(type: p[i].type, payload: $0) }
                    }
                }
            }
        }
        didEnqueue()
        return true
    }

    /// Queues a received batch (e.g. an echo) straight from its shared buffer.
    @discardableResult
    public func send(contentsOf frames: FrameBatch) -> Bool {
        guard state == .open || state == .connecting else { return false }
        withPending { store in
            for i in frames.indices {
                let type = frames.type(at: i)
                frames.withPayload(at: i) { store.append(type: type, payload: $0) }
            }
        }
        didEnqueue()
        return true
    }

    /// Queues one frame from raw payload bytes (no intermediate array).
    @discardableResult
    public func send(type: UInt8, payload: UnsafeRawBufferPointer) -> Bool {
        guard state == .open || state == .connecting else { return false }
        pending.append(type: type, payload: payload)
        didEnqueue()
        return true
    }

    /// Queues one message.
    @discardableResult
    public func send(_ message: Message) -> Bool { send(message.frame()) }

    /// Queues already-framed bytes (whole frames, as `Frame.encode(into:)` writes them).
    @discardableResult
    public func send(encodedFrames bytes: UnsafeRawBufferPointer) -> Bool {
        guard state == .open || state == .connecting else { return false }
        pending.append(raw: bytes)
        didEnqueue()
        return true
    }

    @inline(__always)
    private func withPending<R>(_ body: (inout OutboundBuffer) -> R) -> R { body(&pending) }

    /// Queues many frames with one access to the outbound buffer: the fastest way to send small frames one by
    /// one (a per-frame `send` pays a dynamic exclusivity check and reference counting on every call).
    /// Do not call other `send` methods of this connection inside `body` (that is an exclusivity violation).
    /// Returns nil, without calling `body`, once the connection is closing or closed.
    @discardableResult
    public func withOutboundBuffer<R>(_ body: (inout OutboundBuffer) throws -> R) rethrows -> R? {
        guard state == .open || state == .connecting else { return nil }
        defer { didEnqueue() }
        return try body(&pending)
    }

    @inline(__always)
    private func didEnqueue() {
        sentSinceTick = true
        if !markedDirty {
            markedDirty = true
            loop.registry.dirty.append(self)
        }
        if isWritable, outboundBytes > settings.outboundHighWater { updateWritability() }
    }

    /// Writes queued frames now instead of at the end of this loop iteration.
    public func flush() {
        loop.preconditionInLoop()
        flushFromLoop()
    }

    func flushFromLoop() {
        markedDirty = false
        guard state == .open || state == .closing, !writeInFlight else { return }
        let total = pending.total
        guard total > 0 else {
            if state == .closing { finishGracefulClose() }
            return
        }
        var buffers = pending.buffers(skipping: 0)
        let written = Int(uv_try_write(stream, &buffers, UInt32(buffers.count)))
        if written == total {
            pending.clear()
            updateWritability()
            if state == .closing { finishGracefulClose() }
            return
        }
        if written < 0 && written != Int(cuv_eagain()) {
            abort(.ioError(UVError(code: Int32(written), operation: "uv_try_write")))
            return
        }
        let offset = max(0, written)
        swap(&pending, &inflight)
        pending.clear()
        inflightOffset = offset
        var rest = inflight.buffers(skipping: offset)
        let result = uv_write(writeRequest, stream, &rest, UInt32(rest.count)) { request, status in
            guard let request, let handle = request.pointee.handle, let data = handle.pointee.data else { return }
            Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue().onWriteCompleted(status: status)
        }
        if result < 0 {
            abort(.ioError(UVError(code: result, operation: "uv_write")))
            return
        }
        writeInFlight = true
        updateWritability()
    }

    private func onWriteCompleted(status: Int32) {
        writeInFlight = false
        inflight.clear()
        inflightOffset = 0
        if status < 0 {
            if status != cuv_ecanceled() { abort(.ioError(UVError(code: status, operation: "write"))) }
            return
        }
        flushFromLoop()
        updateWritability()
    }

    private func updateWritability() {
        let queued = outboundBytes
        if queued > settings.maxOutboundBytes {
            abort(.protocolError(WireError(
                .overloaded, "outbound queue \(queued) bytes exceeds the limit \(settings.maxOutboundBytes)")))
            return
        }
        if isWritable, queued > settings.outboundHighWater {
            isWritable = false
            if settings.pauseReadingWhileUnwritable { pausedForWritability = true; updateReading() }
            if state == .open { handler?.onWritabilityChanged(self) }
        } else if !isWritable, queued <= settings.outboundLowWater {
            isWritable = true
            if pausedForWritability { pausedForWritability = false; updateReading() }
            if state == .open { handler?.onWritabilityChanged(self) }
        }
    }

    // MARK: Reading

    /// Stops reading from the socket (frames already read are still delivered).
    public func pauseReading() {
        loop.preconditionInLoop()
        userPaused = true
        updateReading()
    }

    /// Resumes reading after `pauseReading()`.
    public func resumeReading() {
        loop.preconditionInLoop()
        userPaused = false
        updateReading()
    }

    private func updateReading() {
        let wanted = state == .open && !userPaused && !pausedForWritability
        if wanted && !reading {
            let result = uv_read_start(stream, { handle, _, buf in
                guard let handle, let buf, let data = handle.pointee.data else { return }
                let connection = Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue()
                buf.pointee = uv_buf_init(
                    connection.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(connection.readSize))
            }, { stream, nread, _ in
                guard let stream, let data = stream.pointee.data else { return }
                Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue().onRead(nread)
            })
            if result < 0 {
                abort(.ioError(UVError(code: result, operation: "uv_read_start")))
                return
            }
            reading = true
        } else if !wanted && reading {
            uv_read_stop(stream)
            reading = false
        }
    }

    /// How much the next libuv read may take: while a large body is pending, never past its end (and little,
    /// since the rest is read directly into the body).
    private var readSize: Int {
        let size = max(4096, settings.readBufferSize)
        guard let body = largeBody else {
            // Right after a large frame, expect another: read little, so its body goes the direct way.
            return lastFrameWasLarge ? min(size, 64 << 10) : size
        }
        return min(64 << 10, size, body.payload.count - body.filled)
    }

    private func onRead(_ nread: Int) {
        if nread > 0 {
            onBytes(UnsafeRawBufferPointer(start: readBuffer, count: nread))
        } else if nread == Int(cuv_eof()) {
            // A peer that closes mid-frame still just closed.
            abort(.peerClosed)
        } else if nread < 0 {
            abort(.ioError(UVError(code: Int32(nread), operation: "read")))
        }
        // nread == 0 is EAGAIN, not EOF: nothing to do.
    }

    private func onBytes(_ bytes: UnsafeRawBufferPointer) {
        receivedSinceTick = true
        if largeBody != nil { return continueLargeBody(with: bytes) }
        inbound.discardReadBytes()
        inbound.append(bytes)
        let (frames, failure) = decoder.decodeBatch(buffer: &inbound)
        if !frames.isEmpty, state == .open { handler?.onFrames(self, frames) }
        if let failure { return fail(failure) }
        if state == .open, case .body(_, let length) = decoder.state, length >= FramedConnection.directReadThreshold {
            startLargeBody()
        } else {
            lastFrameWasLarge = false
        }
    }

    /// Moves a pending large body out of the decoder into its own array and reads the rest straight into it.
    private func startLargeBody() {
        guard let (type, length) = decoder.detachBody() else { return }
        let have = min(inbound.readableBytes, length)
        let start = inbound.readerIndex
        let payload = inbound.storage.withUnsafeBufferPointer { source in
            // The bytes after `have` are written by `recv` before the frame is delivered.
            [UInt8](unsafeUninitializedCapacity: length) { target, initialized in
                if have > 0, let from = source.baseAddress, let to = target.baseAddress {
                    to.update(from: from + start, count: have)
                }
                initialized = length
            }
        }
        inbound.moveReaderIndex(forwardBy: have)
        largeBody = (type, payload, have)
        continueLargeBody(with: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    private func continueLargeBody(with bytes: UnsafeRawBufferPointer) {
        guard var body = largeBody else { return }
        largeBody = nil  // so the payload array is uniquely referenced while it is filled
        let length = body.payload.count
        var failure: CloseReason?
        body.payload.withUnsafeMutableBytes { target in
            guard let base = target.baseAddress else { return }
            if let source = bytes.baseAddress, bytes.count > 0 {
                let n = min(bytes.count, length - body.filled)
                (base + body.filled).copyMemory(from: source, byteCount: n)
                body.filled += n
            }
            while body.filled < length {
                let n = cuv_recv_nonblocking(stream, base + body.filled, length - body.filled)
                if n > 0 {
                    body.filled += n
                } else if n == 0 {
                    failure = .peerClosed
                    return
                } else if n == cuv_eagain_errno() {
                    return
                } else {
                    failure = .ioError(UVError(code: Int32(truncatingIfNeeded: n), operation: "recv"))
                    return
                }
            }
        }
        if let failure { return abort(failure) }
        if body.filled < length {
            largeBody = body
            return
        }
        lastFrameWasLarge = true
        if state == .open { handler?.onFrames(self, FrameBatch(CollectionOfOne(Frame(type: body.type, payload: body.payload)))) }
    }

    // MARK: Heartbeats

    /// Sends HEARTBEAT when nothing else was sent during an `interval`, and closes with `.heartbeatTimeout`
    /// after `missLimit` intervals without receiving anything.
    public func startHeartbeat(interval: Duration, missLimit: Int = 3) {
        loop.preconditionInLoop()
        heartbeatTimer?.cancel()
        guard state == .open else { return }
        silentTicks = 0
        receivedSinceTick = false
        heartbeatTimer = loop.scheduleRepeatingInLoop(every: interval) { [weak self] in
            self?.onHeartbeatTick(missLimit: missLimit)
        }
    }

    private func onHeartbeatTick(missLimit: Int) {
        guard state == .open else { return }
        if receivedSinceTick {
            silentTicks = 0
        } else {
            silentTicks += 1
            if silentTicks >= missLimit {
                fail(WireError(.heartbeatTimeout, "nothing received for \(missLimit) heartbeat intervals"))
                return
            }
        }
        receivedSinceTick = false
        if !sentSinceTick { send(Frame(type: MessageType.heartbeat.rawValue)) }
        sentSinceTick = false
    }

    // MARK: Opening and closing

    func didOpen() {
        guard state == .connecting else { return }
        state = .open
        uv_tcp_nodelay(tcp, 1)
        remoteAddress = peerAddress()
        updateReading()
        handler?.onOpen(self)
        if pending.total > 0, !markedDirty {
            markedDirty = true
            loop.registry.dirty.append(self)
        }
    }

    private func peerAddress() -> String? {
        var storage = sockaddr_storage()
        var length = cuv_sockaddr_storage_size()
        let result = withUnsafeMutablePointer(to: &storage) { s in
            uv_tcp_getpeername(tcp, cuv_storage_as_mutable_sockaddr(s), &length)
        }
        guard result == 0 else { return nil }
        return formatAddress(storage)
    }

    /// Sends ERROR(code, message) and closes gracefully with `.protocolError`.
    public func fail(_ error: WireError) {
        loop.preconditionInLoop()
        guard state == .open || state == .connecting else { return }
        send(.error(ErrorMessage(error)))
        beginGracefulClose(reason: .protocolError(error))
    }

    /// Writes what is queued (e.g. a REJECT or ERROR), then closes gracefully with `reason`.
    func closeAfterSending(_ reason: CloseReason) {
        beginGracefulClose(reason: reason)
    }

    /// Closes the connection. Graceful: stop reading, write what is queued, send FIN, then close (reset after
    /// `settings.closeLinger`). Abortive: reset now, dropping queued output.
    public func close(graceful: Bool = true) {
        loop.preconditionInLoop()
        if graceful {
            beginGracefulClose(reason: .closedLocally)
        } else {
            abort(.closedLocally)
        }
    }

    private func beginGracefulClose(reason: CloseReason) {
        guard state == .open || state == .connecting else { return }
        if state == .connecting { return abort(reason) }
        closeReason = reason
        state = .closing
        updateReading()
        lingerTimer = loop.scheduleInLoop(after: settings.closeLinger) { [weak self] in
            self?.abort(.protocolError(WireError(.overloaded, "output did not drain within the close linger")))
        }
        if !markedDirty {
            markedDirty = true
            loop.registry.dirty.append(self)
        }
    }

    private func finishGracefulClose() {
        guard state == .closing, shutdownRequest == nil, !writeInFlight, pending.total == 0 else { return }
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        shutdownRequest = request
        let result = uv_shutdown(request, stream) { request, _ in
            guard let request, let handle = request.pointee.handle, let data = handle.pointee.data else { return }
            Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue().closeHandle(reset: false)
        }
        if result < 0 { closeHandle(reset: false) }
    }

    /// Closes the handle now (RST when `reset`); `onClose` follows from the close callback.
    func abort(_ reason: CloseReason) {
        if closeReason == nil { closeReason = reason }
        closeHandle(reset: true)
    }

    private func closeHandle(reset: Bool) {
        guard state != .closed else { return }
        let wasConnected = state == .open || state == .closing
        state = .closed
        if reading {
            uv_read_stop(stream)
            reading = false
        }
        lingerTimer?.cancel()
        heartbeatTimer?.cancel()
        let callback: uv_close_cb = { handle in
            guard let handle, let data = handle.pointee.data else { return }
            Unmanaged<FramedConnection>.fromOpaque(data).takeRetainedValue().didClose()
        }
        if reset, wasConnected, shutdownRequest == nil, uv_tcp_close_reset(tcp, callback) == 0 { return }
        uv_close(cuv_tcp_as_handle(tcp), callback)
    }

    private func didClose() {
        loop.handleClosed()
        loop.registry.connections[id] = nil
        listener?.connectionClosed(id)
        let reason = closeReason ?? .closedLocally
        let handler = self.handler
        self.handler = nil
        handler?.onClose(self, reason)
        tcp.deallocate()
        writeRequest.deallocate()
        shutdownRequest?.deallocate()
        shutdownRequest = nil
        lingerTimer = nil
        heartbeatTimer = nil
    }
}

/// `host:port`, IPv6 hosts in brackets.
func formatAddress(_ storage: sockaddr_storage) -> String? {
    var copy = storage
    var name = [CChar](repeating: 0, count: 64)
    let (result, port, family) = withUnsafePointer(to: &copy) { s in
        (cuv_sockaddr_name(s, &name, name.count), cuv_sockaddr_port(s), cuv_sockaddr_family(s))
    }
    guard result == 0 else { return nil }
    let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return family == cuv_af_inet6() ? "[\(host)]:\(port)" : "\(host):\(port)"
}
