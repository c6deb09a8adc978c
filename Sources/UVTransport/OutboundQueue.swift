import CLibUV
import Wire

/// A connection's writing side: the frames queued since the last write (`pending`), the bytes of the one write in
/// flight, and the write request libuv fills. A write tries `uv_try_write` first and hands the rest to `uv_write`,
/// so many small frames become one system call.
///
/// It owns no socket and calls no handler: the connection asks it to write and acts on the outcome (writability,
/// closing). Its owner calls `free()` exactly once (the connection's `deinit`, after the handle closed).
struct OutboundQueue {
    /// What one write did.
    enum WriteOutcome {
        /// Nothing was queued.
        case empty
        /// Everything queued was written at once.
        case drained
        /// The rest is being written by `uv_write`; `writeCompleted` follows from its callback.
        case writing
        /// The socket failed.
        case failed(UVError)
    }

    /// Frames queued and not yet handed to the socket.
    var pending: OutboundBuffer
    private var inflight: OutboundBuffer
    private var inflightOffset = 0
    /// True from a `uv_write` until its callback.
    private(set) var writeInFlight = false
    private let writeRequest: UnsafeMutablePointer<uv_write_t>

    init() {
        pending = OutboundBuffer(capacity: 64 << 10)
        inflight = OutboundBuffer(capacity: 64 << 10)
        writeRequest = .allocate(capacity: 1)
    }

    func free() {
        pending.free()
        inflight.free()
        writeRequest.deallocate()
    }

    /// Bytes queued and not yet written.
    var queuedBytes: Int { pending.total + inflight.total - inflightOffset }

    /// Writes what is pending to `stream`: as much as `uv_try_write` takes, the rest with `uv_write`, whose
    /// `completion` must call `writeCompleted`. Call it only while no write is in flight.
    mutating func write(to stream: UnsafeMutablePointer<uv_stream_t>, completion: uv_write_cb) -> WriteOutcome {
        let total = pending.total
        guard total > 0 else { return .empty }
        var buffers = pending.buffers(skipping: 0)
        let written = Int(uv_try_write(stream, &buffers, UInt32(buffers.count)))
        if written == total {
            pending.clear()
            return .drained
        }
        if written != Int(cuv_eagain()), let error = uvError(written, "uv_try_write") { return .failed(error) }
        let offset = max(0, written)
        swap(&pending, &inflight)
        pending.clear()
        inflightOffset = offset
        var rest = inflight.buffers(skipping: offset)
        if let error = uvError(uv_write(writeRequest, stream, &rest, UInt32(rest.count), completion), "uv_write") {
            return .failed(error)
        }
        writeInFlight = true
        return .writing
    }

    /// The write in flight finished (successfully or not): its bytes are gone.
    mutating func writeCompleted() {
        writeInFlight = false
        inflight.clear()
        inflightOffset = 0
    }
}
