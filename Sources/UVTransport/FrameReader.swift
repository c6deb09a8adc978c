import CLibUV
import Wire

/// A connection's reading side: the buffer libuv reads into, the decoder that cuts what was read into frame
/// batches, and a large frame's body, read straight into its own array with `recv` (no intermediate copy).
///
/// It owns no socket and calls no handler: the connection hands it what libuv read (or the stream, for a large
/// body) and delivers what it answers. Its owner calls `free()` exactly once (the connection's `deinit`).
struct FrameReader {
    /// What filling a large body produced.
    enum BodyProgress {
        /// More of the body is still to come (or no large body was pending).
        case incomplete
        /// The peer closed, or the socket failed, before the body was whole.
        case failed(CloseReason)
        /// The body is whole: its frame, to deliver alone.
        case frame(Frame)
    }

    /// Bodies at least this large are read directly into their own array.
    static let directReadThreshold = 256 << 10

    /// libuv reads into this buffer (`readSize` bytes at most).
    let buffer: UnsafeMutableRawPointer
    private let bufferSize: Int
    private var decoder: FrameDecoder
    private var inbound = ByteBuffer()
    /// A large frame body being read straight into its payload array.
    private var largeBody: (type: UInt8, payload: [UInt8], filled: Int)?
    private var lastFrameWasLarge = false

    init(settings: ConnectionSettings) {
        decoder = FrameDecoder(maxFrameSize: settings.maxFrameSize)
        bufferSize = max(4096, settings.readBufferSize)
        buffer = .allocate(byteCount: bufferSize, alignment: 16)
    }

    func free() { buffer.deallocate() }

    /// Changes the largest frame accepted from now on (see `FrameDecoder.setMaxFrameSize`).
    mutating func setMaxFrameSize(_ size: Int) { decoder.setMaxFrameSize(size) }

    /// True while a large body is being filled: what is read next belongs to it.
    var isFillingLargeBody: Bool { largeBody != nil }

    /// How much the next libuv read may take: while a large body is pending, never past its end (and little,
    /// since the rest is read directly into the body).
    var readSize: Int {
        guard let body = largeBody else {
            // Right after a large frame, expect another: read little, so its body goes the direct way.
            return lastFrameWasLarge ? min(bufferSize, 64 << 10) : bufferSize
        }
        return min(64 << 10, bufferSize, body.payload.count - body.filled)
    }

    /// Decodes what one read produced: the whole frames, then the failure that stopped decoding, if any.
    mutating func decode(_ bytes: UnsafeRawBufferPointer) -> (frames: FrameBatch, error: WireError?) {
        inbound.discardReadBytes()
        inbound.append(bytes)
        return decoder.decodeBatch(buffer: &inbound)
    }

    /// After a batch: true when the connection is `open` and the decoder waits for a body large enough to read
    /// directly (the caller then calls `startLargeBody`); otherwise notes that the last frame was small.
    mutating func largeBodyPending(open: Bool) -> Bool {
        if open, case .body(_, let length) = decoder.state, length >= FrameReader.directReadThreshold { return true }
        lastFrameWasLarge = false
        return false
    }

    /// Moves the pending large body out of the decoder into its own array, with the bytes already read.
    mutating func startLargeBody() {
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
    }

    /// Adds `bytes` (what libuv read) to the large body, then reads what the socket has of the rest with `recv`.
    mutating func fillLargeBody(with bytes: UnsafeRawBufferPointer, from stream: UnsafeMutablePointer<uv_stream_t>)
        -> BodyProgress
    {
        guard var body = largeBody else { return .incomplete }
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
        if let failure { return .failed(failure) }
        if body.filled < length {
            largeBody = body
            return .incomplete
        }
        lastFrameWasLarge = true
        return .frame(Frame(type: body.type, payload: body.payload))
    }
}
