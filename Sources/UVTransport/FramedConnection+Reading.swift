import CLibUV
import Wire

/// Reading: libuv reads into one buffer, the decoder cuts it into batches for the handler; a large frame's body
/// is read straight into its own array with `recv` (no intermediate copy), beside libuv's read callback.
extension FramedConnection {
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

    func updateReading() {
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
            if let error = uvError(result, "uv_read_start") {
                abort(.ioError(error))
                return
            }
            reading = true
        } else if !wanted && reading {
            uvExpect(uv_read_stop(stream), "uv_read_stop")
            reading = false
        }
    }

    /// How much the next libuv read may take: while a large body is pending, never past its end (and little,
    /// since the rest is read directly into the body).
    var readSize: Int {
        let size = max(4096, settings.readBufferSize)
        guard let body = largeBody else {
            // Right after a large frame, expect another: read little, so its body goes the direct way.
            return lastFrameWasLarge ? min(size, 64 << 10) : size
        }
        return min(64 << 10, size, body.payload.count - body.filled)
    }

    func onRead(_ nread: Int) {
        if nread > 0 {
            onBytes(UnsafeRawBufferPointer(start: readBuffer, count: nread))
        } else if nread == Int(cuv_eof()) {
            // A peer that closes mid-frame still just closed.
            abort(.peerClosed)
        } else if let error = uvError(nread, "read") {
            abort(.ioError(error))
        }
        // nread == 0 is EAGAIN, not EOF: nothing to do.
    }

    func onBytes(_ bytes: UnsafeRawBufferPointer) {
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
    func startLargeBody() {
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

    func continueLargeBody(with bytes: UnsafeRawBufferPointer) {
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
}
