import CLibUV
import Wire

/// Sending: the `send` family queues frames into the `OutboundQueue`; the loop has it write them once per
/// iteration, and the connection tracks writability against the water marks.
extension FramedConnection {
    /// Bytes queued and not yet written.
    public var outboundBytes: Int { outbound.queuedBytes }

    /// Queues one frame. Dropped (returns false) once the connection is closing or closed.
    @discardableResult
    public func send(_ frame: Frame) -> Bool {
        guard state == .open || state == .connecting else { return false }
        outbound.pending.write(frame)
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
        outbound.pending.write(contentsOf: frames)
        didEnqueue()
        return true
    }

    /// Queues a received batch (e.g. an echo) straight from its shared buffer.
    @discardableResult
    public func send(contentsOf frames: FrameBatch) -> Bool {
        guard state == .open || state == .connecting else { return false }
        outbound.pending.write(contentsOf: frames)
        didEnqueue()
        return true
    }

    /// Queues one frame from raw payload bytes (no intermediate array).
    @discardableResult
    public func send(type: UInt8, payload: UnsafeRawBufferPointer) -> Bool {
        guard state == .open || state == .connecting else { return false }
        outbound.pending.append(type: type, payload: payload)
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
        outbound.pending.append(raw: bytes)
        didEnqueue()
        return true
    }

    /// Queues many frames with one access to the outbound buffer: the fastest way to send small frames one by
    /// one (a per-frame `send` pays a dynamic exclusivity check and reference counting on every call).
    /// Do not call other `send` methods of this connection inside `body` (that is an exclusivity violation).
    /// Returns nil, without calling `body`, once the connection is closing or closed.
    @discardableResult
    public func withOutboundBuffer<R>(_ body: (inout OutboundBuffer) throws -> R) rethrows -> R? {
        guard state == .open || state == .connecting else { return nil }
        defer { didEnqueue() }
        return try body(&outbound.pending)
    }

    @inline(__always)
    func didEnqueue() {
        heartbeat.sentSinceTick = true
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
        guard state == .open || state == .closing, !outbound.writeInFlight else { return }
        let outcome = outbound.write(to: stream) { request, status in
            guard let request, let handle = request.pointee.handle, let data = handle.pointee.data else { return }
            Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue().onWriteCompleted(status: status)
        }
        switch outcome {
        case .empty:
            if state == .closing { finishGracefulClose() }
        case .drained:
            updateWritability()
            if state == .closing { finishGracefulClose() }
        case .writing:
            updateWritability()
        case .failed(let error):
            abort(.ioError(error))
        }
    }

    func onWriteCompleted(status: Int32) {
        outbound.writeCompleted()
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
