import CLibUV
import Wire

/// Sending: the `send` family queues frames into the pending `OutboundBuffer`; the loop writes them once per
/// iteration (`uv_try_write` first, `uv_write` for the rest) and tracks writability against the water marks.
extension FramedConnection {
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
    func didEnqueue() {
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
        if written != Int(cuv_eagain()), let error = uvError(written, "uv_try_write") {
            abort(.ioError(error))
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
        if let error = uvError(result, "uv_write") {
            abort(.ioError(error))
            return
        }
        writeInFlight = true
        updateWritability()
    }

    func onWriteCompleted(status: Int32) {
        writeInFlight = false
        inflight.clear()
        inflightOffset = 0
        if let error = uvError(status, "write") {
            if status != cuv_ecanceled() { abort(.ioError(error)) }
            return
        }
        flushFromLoop()
        updateWritability()
    }

    func updateWritability() {
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
}
