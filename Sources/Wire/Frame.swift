/// One frame: `u32 big-endian length | u8 type | payload`, where length counts the type byte and the payload.
///
/// The payload is a slice so that a whole read batch can share one buffer: decoding a batch allocates
/// once, not once per frame.
public struct Frame: Sendable, Hashable {
    /// The size of the length field plus the type byte.
    public static let headerSize = 5

    public var type: UInt8
    public var payload: ArraySlice<UInt8>

    @inlinable
    public init(type: UInt8, payload: ArraySlice<UInt8>) {
        self.type = type
        self.payload = payload
    }

    @inlinable
    public init(type: UInt8, payload: [UInt8] = []) {
        self.type = type
        self.payload = payload[...]
    }

    /// The message type, when the type byte is one this version defines.
    public var messageType: MessageType? { MessageType(rawValue: type) }

    /// Header plus payload: the bytes this frame takes on the wire.
    @inlinable
    public var encodedSize: Int { Frame.headerSize + payload.count }

    /// Appends the frame's wire bytes.
    @inlinable
    public func encode(into bytes: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: payload.count + 1)
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
        bytes.append(type)
        bytes.append(contentsOf: payload)
    }

    /// The frame's wire bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedSize)
        encode(into: &out)
        return out
    }
}

/// A growable byte buffer with a reader index: bytes are appended at the end and consumed from the front.
public struct ByteBuffer: Sendable {
    public private(set) var storage: [UInt8]
    public private(set) var readerIndex: Int

    public init(_ bytes: [UInt8] = []) {
        storage = bytes
        readerIndex = 0
    }

    /// Bytes appended but not yet consumed.
    @inlinable
    public var readableBytes: Int { storage.count - readerIndex }

    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        storage.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes.bindMemory(to: UInt8.self))
    }

    /// Drops consumed bytes. Cheap when little is left; when a large partial frame is pending it waits until
    /// the consumed prefix is at least as large as the live remainder, so big frames are not moved on every read.
    public mutating func discardReadBytes() {
        guard readerIndex > 0 else { return }
        if readerIndex == storage.count {
            storage.removeAll(keepingCapacity: true)
            readerIndex = 0
        } else if readableBytes <= 4096 || readerIndex >= readableBytes {
            storage.removeSubrange(0..<readerIndex)
            readerIndex = 0
        }
    }

    /// Consumes `count` readable bytes (clamped to what is readable).
    public mutating func moveReaderIndex(forwardBy count: Int) { readerIndex += max(0, min(count, readableBytes)) }
}

/// The incremental frame decoder: one frame per call, an explicit header/body state and a hard size limit.
///
/// Feed bytes into a `ByteBuffer` and call `decode(buffer:)` until it returns nil (more bytes needed).
/// Oversized or empty lengths throw as soon as the four length bytes arrive, before any body is buffered.
/// After an error the decoder stays failed and rethrows it.
public struct FrameDecoder: Sendable {
    /// The default maximum frame size (length field value): 16 MiB.
    public static let defaultMaxFrameSize = 16 << 20

    public enum State: Sendable, Hashable {
        /// Waiting for the 5 header bytes (length and type).
        case header
        /// The header is consumed; waiting for `length - 1` payload bytes.
        case body(type: UInt8, payloadLength: Int)
        /// A malformed frame was seen; the stream cannot be resynchronised.
        case failed(WireError)
    }

    public private(set) var state: State = .header
    /// The largest accepted length field (type byte + payload).
    public private(set) var maxFrameSize: Int

    public init(maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) {
        self.maxFrameSize = max(1, min(maxFrameSize, Int(UInt32.max)))
    }

    /// Changes the limit for frames whose length has not been read yet (a server raises it once the peer
    /// authenticated).
    public mutating func setMaxFrameSize(_ size: Int) {
        maxFrameSize = max(1, min(size, Int(UInt32.max)))
    }

    /// Decodes the next frame from `buffer`, consuming its bytes; nil when more bytes are needed.
    /// - Throws: `WireError` `.frameTooLarge` or `.emptyFrame`; the decoder then stays failed.
    public mutating func decode(buffer: inout ByteBuffer) throws -> Frame? {
        switch state {
        case .failed(let error):
            throw error
        case .header:
            let available = buffer.readableBytes
            guard available >= 4 else { return nil }
            let length = buffer.storage.withUnsafeBufferPointer { Self.length(in: $0, at: buffer.readerIndex) }
            if length == 0 {
                let error = WireError(.emptyFrame, "frame length 0: a frame holds at least its type byte")
                state = .failed(error)
                throw error
            }
            if length > maxFrameSize {
                let error = WireError(.frameTooLarge, "frame length \(length) exceeds the maximum \(maxFrameSize)")
                state = .failed(error)
                throw error
            }
            guard available >= Frame.headerSize else { return nil }
            let type = buffer.storage[buffer.readerIndex + 4]
            buffer.moveReaderIndex(forwardBy: Frame.headerSize)
            state = .body(type: type, payloadLength: length - 1)
            return try decode(buffer: &buffer)
        case .body(let type, let payloadLength):
            guard buffer.readableBytes >= payloadLength else { return nil }
            let start = buffer.readerIndex
            buffer.moveReaderIndex(forwardBy: payloadLength)
            state = .header
            return Frame(type: type, payload: buffer.storage[start..<start + payloadLength])
        }
    }

    /// The big-endian frame length at `index` (4 bytes must be readable there).
    @inline(__always)
    static func length(in p: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        Int(p[index]) << 24 | Int(p[index + 1]) << 16 | Int(p[index + 2]) << 8 | Int(p[index + 3])
    }

    /// The one walk over frame headers: calls `frame(type, payloadStart, payloadCount)` for every whole frame with a
    /// valid length from `index` on, and returns the index after the last one. It stops at a partial frame or a bad
    /// length (0, or over `limit`), which the single-step `decode(buffer:)` then handles.
    @inline(__always)
    static func walkWholeFrames(
        _ p: UnsafeBufferPointer<UInt8>, from start: Int, end: Int, limit: Int, _ frame: (UInt8, Int, Int) -> Void
    ) -> Int {
        var index = start
        while end - index >= Frame.headerSize {
            let length = length(in: p, at: index)
            if length == 0 || length > limit { break }
            guard end - index - 4 >= length else { break }
            frame(p[index + 4], index + Frame.headerSize, length - 1)
            index += 4 + length
        }
        return index
    }

    /// For a transport that reads a large body itself (straight into the payload's final array): when the
    /// decoder has consumed a header and waits for its body, returns the frame's type and payload length and goes
    /// back to `.header`. The caller then owns exactly `payloadLength` bytes of the stream.
    public mutating func detachBody() -> (type: UInt8, payloadLength: Int)? {
        guard case .body(let type, let length) = state else { return nil }
        state = .header
        return (type, length)
    }

    /// Decodes every complete frame in `buffer` into `frames` (one call per read batch).
    ///
    /// Same result as calling `decode(buffer:)` until it returns nil, but the headers of whole frames are walked
    /// in one pass over the bytes; the frames share the buffer's storage (no copy per frame).
    /// - Returns: the number of frames appended.
    @discardableResult
    public mutating func decodeAll(buffer: inout ByteBuffer, into frames: inout [Frame]) throws -> Int {
        var count = 0
        // Finish a frame whose header an earlier call consumed.
        if case .body = state {
            guard let frame = try decode(buffer: &buffer) else { return 0 }
            frames.append(frame)
            count += 1
        }
        guard case .header = state else {
            if case .failed(let error) = state { throw error }
            return count
        }
        let storage = buffer.storage
        let end = storage.count
        let limit = maxFrameSize
        var index = buffer.readerIndex
        frames.reserveCapacity(frames.count + min(16384, (end - index) / 16 + 1))
        storage.withUnsafeBufferPointer { p in
            index = Self.walkWholeFrames(p, from: index, end: end, limit: limit) { type, start, payloadCount in
                frames.append(Frame(type: type, payload: storage[start..<start + payloadCount]))
                count += 1
            }
        }
        buffer.moveReaderIndex(forwardBy: index - buffer.readerIndex)
        // The rest (a partial frame or a bad length) takes the single-step path, which owns the errors.
        while let frame = try decode(buffer: &buffer) {
            frames.append(frame)
            count += 1
        }
        return count
    }
}

/// The frames of one read: a random-access collection of `Frame` that shares one byte buffer and keeps
/// no reference count per frame. Reading `type(at:)` or `withPayload(at:_:)` costs nothing extra; subscripting
/// makes a `Frame` (one retain of the shared buffer).
public struct FrameBatch: RandomAccessCollection, Sendable, CustomStringConvertible {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var type: UInt8
        @usableFromInline var start: Int
        @usableFromInline var count: Int
        @usableFromInline init(type: UInt8, start: Int, count: Int) {
            self.type = type
            self.start = start
            self.count = count
        }
    }

    @usableFromInline
    enum Representation: Sendable {
        case shared(storage: [UInt8], entries: ArraySlice<Entry>)
        case frames(ArraySlice<Frame>)
    }

    @usableFromInline let representation: Representation

    @usableFromInline
    init(storage: [UInt8], entries: ArraySlice<Entry>) { representation = .shared(storage: storage, entries: entries) }

    /// A batch of arbitrary frames.
    public init<S: Sequence>(_ frames: S) where S.Element == Frame { representation = .frames(ArraySlice(frames)) }

    /// An empty batch.
    public init() { representation = .frames([]) }

    @inlinable public var startIndex: Int {
        switch representation {
        case .shared(_, let entries): entries.startIndex
        case .frames(let frames): frames.startIndex
        }
    }

    @inlinable public var endIndex: Int {
        switch representation {
        case .shared(_, let entries): entries.endIndex
        case .frames(let frames): frames.endIndex
        }
    }

    @inlinable public subscript(position: Int) -> Frame {
        switch representation {
        case .shared(let storage, let entries):
            let e = entries[position]
            return Frame(type: e.type, payload: storage[e.start..<e.start + e.count])
        case .frames(let frames):
            return frames[position]
        }
    }

    /// The type byte of the frame at `position`.
    @inlinable public func type(at position: Int) -> UInt8 {
        switch representation {
        case .shared(_, let entries): entries[position].type
        case .frames(let frames): frames[position].type
        }
    }

    /// Calls `body` with the payload bytes of the frame at `position` (no copy, no reference count).
    @inlinable public func withPayload<R>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch representation {
        case .shared(let storage, let entries):
            let e = entries[position]
            return try storage.withUnsafeBytes { raw in
                try body(UnsafeRawBufferPointer(rebasing: raw[e.start..<e.start + e.count]))
            }
        case .frames(let frames):
            return try frames[position].payload.withUnsafeBytes(body)
        }
    }

    /// The frames from `position` on, as a batch sharing the same buffer.
    public func suffix(from position: Int) -> FrameBatch {
        switch representation {
        case .shared(let storage, let entries): FrameBatch(storage: storage, entries: entries[position...])
        case .frames(let frames): FrameBatch(frames[position...])
        }
    }

    public var description: String { "FrameBatch(\(count) frames)" }
}

extension FrameDecoder {
    /// Decodes every complete frame in `buffer` into one batch that shares the buffer's storage: no copy and no
    /// reference count per frame. On malformed input it returns the frames before the error and the error (the
    /// decoder then stays failed).
    public mutating func decodeBatch(buffer: inout ByteBuffer) -> (frames: FrameBatch, error: WireError?) {
        var entries: [FrameBatch.Entry] = []
        if case .failed(let error) = state { return (FrameBatch(), error) }
        if case .body(let type, let length) = state {
            guard buffer.readableBytes >= length else { return (FrameBatch(), nil) }
            entries.append(FrameBatch.Entry(type: type, start: buffer.readerIndex, count: length))
            buffer.moveReaderIndex(forwardBy: length)
            state = .header
        }
        let storage = buffer.storage
        let end = storage.count
        let limit = maxFrameSize
        var index = buffer.readerIndex
        entries.reserveCapacity(entries.count + min(16384, (end - index) / 16 + 1))
        storage.withUnsafeBufferPointer { p in
            index = Self.walkWholeFrames(p, from: index, end: end, limit: limit) { type, start, payloadCount in
                entries.append(FrameBatch.Entry(type: type, start: start, count: payloadCount))
            }
        }
        buffer.moveReaderIndex(forwardBy: index - buffer.readerIndex)
        // The rest (a partial frame or a bad length) takes the single-step path, which owns the state and errors.
        var failure: WireError?
        do {
            while let frame = try decode(buffer: &buffer) {
                entries.append(FrameBatch.Entry(type: frame.type, start: frame.payload.startIndex, count: frame.payload.count))
            }
        } catch let error as WireError {
            failure = error
        } catch {
            failure = WireError(.internalError, "\(error)")
        }
        return (FrameBatch(storage: storage, entries: entries[...]), failure)
    }
}
