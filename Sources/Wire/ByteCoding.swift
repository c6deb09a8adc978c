/// Appends protocol primitives (docs/PROTOCOL.md, "Primitive encodings") to a byte array.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer that appends to `bytes`, which it takes over (no copy); `takeBytes()` gives them back.
    init(appendingTo bytes: inout [UInt8]) {
        self.bytes = []
        swap(&self.bytes, &bytes)
    }

    /// Gives the bytes back to their owner (no copy).
    mutating func takeBytes(into owner: inout [UInt8]) {
        swap(&bytes, &owner)
        bytes = []
    }

    /// Overwrites four bytes at `offset` with `value`, big-endian (a length known only after the payload).
    mutating func patchU32BE(_ value: UInt32, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    public mutating func writeU8(_ value: UInt8) { bytes.append(value) }

    /// Unsigned LEB128, shortest form (1–10 bytes).
    public mutating func writeVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func writeU64BE(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    public mutating func writeBool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// A varint byte count, then the bytes.
    public mutating func writeBytes<C: Collection>(_ value: C) where C.Element == UInt8 {
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A varint byte count, then the UTF-8 bytes.
    public mutating func writeString(_ value: String) {
        // Native strings are contiguous UTF-8: write them in place (no copy, no reference counting).
        if value.utf8.withContiguousStorageIfAvailable({ writeBytes($0) }) != nil { return }
        var copy = value
        copy.withUTF8 { writeBytes($0) }
    }

    /// Exactly 32 bytes with no length prefix (SHA-256 digests, nonces, MACs).
    public mutating func writeFixed32(_ value: Bytes32) { bytes.append(contentsOf: value.bytes) }

    public mutating func writeList<T>(_ items: [T], _ body: (inout ByteWriter, T) -> Void) {
        writeVarint(UInt64(items.count))
        for item in items { body(&self, item) }
    }
}

/// Reads protocol primitives from a payload; every failure is a `WireError`, never a trap.
///
/// The reader never allocates more than the bytes that remain: element counts are checked against the
/// remaining length before anything is reserved.
public struct ByteReader {
    @usableFromInline let base: UnsafeRawBufferPointer
    @usableFromInline var position: Int

    public init(_ bytes: UnsafeRawBufferPointer) {
        base = bytes
        position = 0
    }

    public var remaining: Int { base.count - position }

    public mutating func readU8(_ field: StaticString) throws -> UInt8 {
        guard position < base.count else { throw WireError(.truncated, "payload ends before \(field)") }
        defer { position += 1 }
        return base[position]
    }

    public mutating func readVarint(_ field: StaticString) throws -> UInt64 {
        // Most varints (counts, attempts, indexes, small durations) are one byte.
        if position < base.count, base[position] < 0x80 {
            defer { position += 1 }
            return UInt64(base[position])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var count = 0
        while true {
            guard position < base.count else { throw WireError(.truncated, "payload ends inside varint \(field)") }
            let byte = base[position]
            position += 1
            count += 1
            if count == 10 && byte > 0x01 {
                throw WireError(.badVarint, "varint \(field) overflows 64 bits")
            }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && count > 1 {
                    throw WireError(.badVarint, "varint \(field) is not in its shortest form")
                }
                return result
            }
            shift += 7
        }
    }

    /// A varint that must fit `T` (e.g. UInt32 slots, UInt16 versions).
    public mutating func readVarint<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type, _ field: StaticString) throws -> T {
        let value = try readVarint(field)
        guard let narrowed = T(exactly: value) else {
            throw WireError(.invalidValue, "\(field) = \(value) does not fit \(T.bitWidth) bits")
        }
        return narrowed
    }

    public mutating func readU64BE(_ field: StaticString) throws -> UInt64 {
        guard remaining >= 8 else { throw WireError(.truncated, "payload ends inside \(field)") }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(base[position + i]) }
        position += 8
        return value
    }

    public mutating func readBool(_ field: StaticString) throws -> Bool {
        switch try readU8(field) {
        case 0: return false
        case 1: return true
        case let other: throw WireError(.invalidValue, "\(field) must be 0 or 1, not \(other)")
        }
    }

    /// A length checked against the remaining bytes (before anything is allocated).
    mutating func readLength(_ field: StaticString) throws -> Int {
        let count = try readVarint(field)
        guard count <= UInt64(remaining) else {
            throw WireError(.countExceedsFrame, "\(field) claims \(count) bytes but only \(remaining) remain")
        }
        return Int(count)
    }

    public mutating func readBytes(_ field: StaticString) throws -> [UInt8] {
        let count = try readLength(field)
        defer { position += count }
        return Array(UnsafeRawBufferPointer(rebasing: base[position..<position + count]))
    }

    public mutating func readString(_ field: StaticString) throws -> String {
        let count = try readLength(field)
        let bytes = UnsafeRawBufferPointer(rebasing: base[position..<position + count]).assumingMemoryBound(to: UInt8.self)
        // `String(decoding:)` replaces invalid sequences with U+FFFD; the bytes survive unchanged only when they
        // were valid UTF-8. (This also avoids the unspecialised generic `String(validating:)`.)
        let text = String(decoding: bytes, as: UTF8.self)
        var isASCII = true
        for byte in bytes where byte >= 0x80 {
            isASCII = false
            break
        }
        guard isASCII || text.utf8.elementsEqual(bytes) else {
            throw WireError(.invalidUTF8, "\(field) is not valid UTF-8")
        }
        position += count
        return text
    }

    public mutating func readFixed32(_ field: StaticString) throws -> Bytes32 {
        guard remaining >= 32 else { throw WireError(.truncated, "payload ends inside 32-byte \(field)") }
        defer { position += 32 }
        return Bytes32(unchecked: Array(UnsafeRawBufferPointer(rebasing: base[position..<position + 32])))
    }

    /// A varint element count, then the elements. Each element takes at least `minimumElementSize` bytes,
    /// so a count the remaining bytes cannot hold is refused before any allocation.
    public mutating func readList<T>(
        _ field: StaticString, minimumElementSize: Int = 1, _ element: (inout ByteReader) throws -> T
    ) throws -> [T] {
        let count = try readVarint(field)
        guard count <= UInt64(remaining / max(1, minimumElementSize)) else {
            throw WireError(.countExceedsFrame, "\(field) claims \(count) elements but only \(remaining) bytes remain")
        }
        var items: [T] = []
        items.reserveCapacity(Int(count))
        for _ in 0..<Int(count) { items.append(try element(&self)) }
        return items
    }

    public func expectEnd(_ message: @autoclosure () -> String) throws {
        guard remaining == 0 else { throw WireError(.trailingBytes, "\(remaining) bytes after the last field of \(message())") }
    }
}


/// Exactly 32 bytes: a SHA-256 digest, a nonce or an HMAC-SHA256 tag. The type makes a wrong length
/// impossible to encode.
public struct Bytes32: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless `bytes` holds exactly 32 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Nil unless `hex` is 64 hex digits.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        var i = 0
        while i < 64 {
            guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        self.init(unchecked: out)
    }

    /// 32 zero bytes.
    public static let zero = Bytes32(unchecked: [UInt8](repeating: 0, count: 32))

    public var hex: String {
        let table = Array("0123456789abcdef".utf8)
        var chars: [UInt8] = []
        chars.reserveCapacity(64)
        for b in bytes {
            chars.append(table[Int(b >> 4)])
            chars.append(table[Int(b & 0x0f)])
        }
        return String(decoding: chars, as: UTF8.self)
    }
    public var description: String { hex }
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}
