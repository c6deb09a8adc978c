import CZlib

/// gzip (RFC 1952) over zlib: valid `.gz` files that `gzip -t` accepts.
public enum GzipCodec {
    /// The default compression level: 1, the fastest (artifacts are compressed on workers, per step).
    public static let defaultLevel = 1

    /// Compresses `bytes` into one gzip member.
    public static func compress(_ bytes: some Collection<UInt8>, level: Int = defaultLevel) throws -> [UInt8] {
        let compressor = try GzipCompressor(level: level)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 3 + 64)
        let append: (UnsafeRawBufferPointer) -> Void = { out.append(contentsOf: $0) }
        if let done: Void = try bytes.withContiguousStorageIfAvailable({
            try compressor.compress(UnsafeRawBufferPointer($0), into: append)
        }) {
            _ = done
        } else {
            try Array(bytes).withUnsafeBytes { try compressor.compress($0, into: append) }
        }
        try compressor.finish(into: append)
        return out
    }

    /// Compresses `bytes` into a zlib (RFC 1950) stream, e.g. for a PNG's IDAT.
    public static func zlib(_ bytes: UnsafeRawBufferPointer, level: Int = defaultLevel) throws -> [UInt8] {
        let compressor = try GzipCompressor(level: level, format: .zlib)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 + 64)
        let append: (UnsafeRawBufferPointer) -> Void = { out.append(contentsOf: $0) }
        try compressor.compress(bytes, into: append)
        try compressor.finish(into: append)
        return out
    }

    /// The CRC-32 (ISO 3309, as in gzip and PNG) of `bytes`, continuing from `crc`.
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return UInt32(CZlib.crc32(UInt(crc), base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count)))
    }

    /// Decompresses gzip data (one or more members).
    /// - Parameter maxOutputSize: the most decompressed bytes accepted; more throws ``GzipError/Code/tooLarge``.
    public static func decompress(_ bytes: [UInt8], maxOutputSize: Int) throws -> [UInt8] {
        let decompressor = try GzipDecompressor(maxOutputSize: maxOutputSize)
        var out: [UInt8] = []
        try bytes.withUnsafeBytes { raw in
            try decompressor.decompress(raw) { out.append(contentsOf: $0) }
        }
        try decompressor.finish()
        return out
    }

    /// Decompresses one zlib (RFC 1950) stream, e.g. a PNG's concatenated IDAT data.
    /// - Parameter maxOutputSize: the most decompressed bytes accepted; more throws ``GzipError/Code/tooLarge``.
    /// - Throws: ``GzipError`` `.zlib(Z_DATA_ERROR)` for corrupt data, `.truncated` when the stream ends early.
    public static func inflateZlib(_ bytes: UnsafeRawBufferPointer, maxOutputSize: Int, into out: inout [UInt8]) throws {
        let decompressor = try GzipDecompressor(maxOutputSize: maxOutputSize, format: .zlib)
        try decompressor.decompress(bytes) { out.append(contentsOf: $0) }
        try decompressor.finish()
    }
}

/// Streaming gzip compression: feed chunks, receive compressed chunks through a closure, then `finish`.
///
/// Not thread-safe: one compressor per stream.
public final class GzipCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer
    private var finished = false

    /// - Parameters:
    ///   - level: 0 (store) … 9 (smallest); default 1 (fastest).
    ///   - outputBufferSize: bytes handed to the closure at most per call.
    /// The container around the deflate stream.
    public enum Format: Sendable {
        /// gzip (RFC 1952): `.gz` files. The default.
        case gzip
        /// zlib (RFC 1950): what PNG's IDAT chunks hold.
        case zlib
    }

    public init(level: Int = GzipCodec.defaultLevel, outputBufferSize: Int = 256 * 1024, format: Format = .gzip) throws {
        guard (0...9).contains(level) else {
            throw GzipError(
                code: .misuse, message: "compression level \(level) is not in 0…9", operation: "gzip init")
        }
        (stream, output) = ZStreamMemory.allocate(outputBufferSize: outputBufferSize)
        do {
            // memLevel 9: zlib's fastest (more memory for the hash table, ~256 KiB).
            try GzipFunnel.check(
                czlib_deflate_init2(stream, Int32(level), format == .gzip ? czlib_gzip_window_bits() : 15, 9,
                                    Z_DEFAULT_STRATEGY),
                stream, "deflateInit2 (level \(level))"
            )
        } catch {
            ZStreamMemory.release(stream, output)
            throw error
        }
    }

    deinit {
        deflateEnd(stream)
        ZStreamMemory.release(stream, output)
    }

    /// Uncompressed bytes consumed so far.
    public var totalIn: Int { Int(stream.pointee.total_in) }
    /// Compressed bytes produced so far.
    public var totalOut: Int { Int(stream.pointee.total_out) }

    /// Compresses `input`; compressed bytes (if any are ready) go to `sink`, valid only during the call.
    public func compress(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !finished else {
            throw GzipError(code: .misuse, message: "compress after finish", operation: "gzip compress")
        }
        var remaining = input
        // avail_in is 32-bit: feed huge inputs in slices.
        while !remaining.isEmpty {
            let slice = UnsafeRawBufferPointer(rebasing: remaining.prefix(1 << 30))
            try run(slice, flush: Z_NO_FLUSH, sink)
            remaining = UnsafeRawBufferPointer(rebasing: remaining.dropFirst(slice.count))
        }
    }

    /// Writes the rest of the stream and the gzip trailer to `sink`.
    public func finish(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !finished else { return }
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, sink)
        finished = true
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32, _ sink: (UnsafeRawBufferPointer) throws -> Void)
        throws
    {
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = UInt32(output.count)
            let rc = try GzipFunnel.check(deflate(stream, flush), stream, "deflate")
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<produced])) }
            if flush == Z_FINISH {
                if rc == Z_STREAM_END { return }
            } else if stream.pointee.avail_out != 0 {
                return
            }
        }
    }
}

/// Streaming gzip decompression with a cap on the output size (a zip bomb cannot exhaust memory).
///
/// Accepts concatenated members, as `gzip -d` does. Not thread-safe: one decompressor per stream.
public final class GzipDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer
    private let maxOutputSize: Int
    private var produced = 0
    private var memberEnded = false
    private var sawInput = false
    private let format: GzipCompressor.Format

    /// - Parameters:
    ///   - maxOutputSize: the most decompressed bytes accepted in total.
    ///   - format: `.gzip` (members, concatenated or not; the default) or `.zlib` (one stream, as in a PNG).
    public init(maxOutputSize: Int, outputBufferSize: Int = 256 * 1024, format: GzipCompressor.Format = .gzip) throws {
        self.maxOutputSize = maxOutputSize
        self.format = format
        (stream, output) = ZStreamMemory.allocate(outputBufferSize: outputBufferSize)
        do {
            let bits = format == .gzip ? czlib_gzip_window_bits() : 15
            try GzipFunnel.check(czlib_inflate_init2(stream, bits), stream, "inflateInit2")
        } catch {
            ZStreamMemory.release(stream, output)
            throw error
        }
    }

    deinit {
        inflateEnd(stream)
        ZStreamMemory.release(stream, output)
    }

    /// Decompressed bytes produced so far.
    public var totalOut: Int { produced }

    /// Decompresses `input`; decompressed bytes go to `sink`, valid only during the call.
    /// - Throws: ``GzipError`` `.zlib(Z_DATA_ERROR)` for corrupt data, `.tooLarge` past the cap.
    public func decompress(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var remaining = input
        while !remaining.isEmpty {
            let slice = UnsafeRawBufferPointer(rebasing: remaining.prefix(1 << 30))
            try run(slice, sink)
            remaining = UnsafeRawBufferPointer(rebasing: remaining.dropFirst(slice.count))
        }
    }

    /// Checks that the data ended with a complete gzip member.
    /// - Throws: ``GzipError/Code/truncated`` otherwise.
    public func finish() throws {
        guard sawInput, memberEnded else {
            throw GzipError(
                code: .truncated, message: "the \(format == .gzip ? "gzip" : "zlib") stream ends before its trailer", operation: "inflate")
        }
    }

    private func run(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        sawInput = true
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = UInt32(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            if memberEnded {
                guard stream.pointee.avail_in > 0 else { return }
                // A zlib stream is one stream: what follows its end is not more data.
                guard format == .gzip else { return }
                // Another member follows (concatenated .gz files decompress as one).
                try GzipFunnel.check(inflateReset(stream), stream, "inflateReset")
                memberEnded = false
            }
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = UInt32(output.count)
            let rc = try GzipFunnel.check(inflate(stream, Z_NO_FLUSH), stream, "inflate")
            let count = output.count - Int(stream.pointee.avail_out)
            if count > 0 {
                guard count <= maxOutputSize - produced else {
                    throw GzipError(
                        code: .tooLarge,
                        message: "decompressed data exceeds the cap of \(maxOutputSize) bytes",
                        operation: "inflate"
                    )
                }
                produced += count
                try sink(UnsafeRawBufferPointer(rebasing: output[0..<count]))
            }
            if rc == Z_STREAM_END {
                memberEnded = true
                continue
            }
            if rc == Z_BUF_ERROR || (stream.pointee.avail_out != 0 && stream.pointee.avail_in == 0) {
                return  // needs more input
            }
        }
    }
}

/// A z_stream and its output buffer: allocated together, released together (after deflateEnd/inflateEnd).
enum ZStreamMemory {
    static func allocate(outputBufferSize: Int) -> (UnsafeMutablePointer<z_stream>, UnsafeMutableRawBufferPointer) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        return (stream, .allocate(byteCount: max(1024, outputBufferSize), alignment: 16))
    }

    static func release(_ stream: UnsafeMutablePointer<z_stream>, _ output: UnsafeMutableRawBufferPointer) {
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }
}
