import CLibUV
import Wire

/// Reading: starting and stopping libuv's reads (paused by the user or by back-pressure), and delivering what the
/// `FrameReader` makes of them to the handler.
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
                    connection.reader.buffer.assumingMemoryBound(to: CChar.self), UInt32(connection.reader.readSize))
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

    func onRead(_ nread: Int) {
        if nread > 0 {
            onBytes(UnsafeRawBufferPointer(start: reader.buffer, count: nread))
        } else if nread == Int(cuv_eof()) {
            // A peer that closes mid-frame still just closed.
            abort(.peerClosed)
        } else if let error = uvError(nread, "read") {
            abort(.ioError(error))
        }
        // nread == 0 is EAGAIN, not EOF: nothing to do.
    }

    func onBytes(_ bytes: UnsafeRawBufferPointer) {
        heartbeat.receivedSinceTick = true
        if reader.isFillingLargeBody { return continueLargeBody(with: bytes) }
        let (frames, failure) = reader.decode(bytes)
        if !frames.isEmpty, state == .open { handler?.onFrames(self, frames) }
        if let failure { return fail(failure) }
        if reader.largeBodyPending(open: state == .open) {
            reader.startLargeBody()
            continueLargeBody(with: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    func continueLargeBody(with bytes: UnsafeRawBufferPointer) {
        switch reader.fillLargeBody(with: bytes, from: stream) {
        case .incomplete:
            break
        case .failed(let reason):
            abort(reason)
        case .frame(let frame):
            if state == .open { handler?.onFrames(self, FrameBatch(CollectionOfOne(frame))) }
        }
    }
}
