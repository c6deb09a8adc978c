import CLibUV
import Wire

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

    /// Appends many frames, reserving their bytes once (large payloads are attached, not copied).
    mutating func write(contentsOf frames: ArraySlice<Frame>) {
        var bytes = 0
        for frame in frames { bytes &+= min(frame.payload.count, OutboundBuffer.attachThreshold) &+ Frame.headerSize }
        reserve(bytes)
        frames.withUnsafeBufferPointer { p in
            for i in p.indices {
                if p[i].payload.count >= OutboundBuffer.attachThreshold {
                    appendAttached(type: p[i].type, payload: p[i].payload)
                } else {
                    p[i].payload.withUnsafeBytes { append(type: p[i].type, payload: $0) }
                }
            }
        }
    }

    /// Appends a received batch straight from its shared buffer.
    mutating func write(contentsOf frames: FrameBatch) {
        for i in frames.indices {
            let type = frames.type(at: i)
            frames.withPayload(at: i) { append(type: type, payload: $0) }
        }
    }

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
