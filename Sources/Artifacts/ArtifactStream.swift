import FlowCrypto
import Gzip

/// An artifact compressed as it is produced (a command's stdout and stderr): memory holds the compressed bytes only,
/// up to `maxCompressedSize`; input past that is counted, not kept, and a closing line says how much was dropped.
///
/// Not thread-safe: one writer (the thread pumping the output) owns it until `finish`.
public final class ArtifactStream {
    public let name: String
    public let mediaType: String
    /// The most compressed bytes kept (default 16 MiB: a gigabyte of typical log output compresses to far less).
    /// Command jobs use 8 MiB (`CommandSettings.maxCompressedOutput`).
    public let maxCompressedSize: Int
    private let compressor: GzipCompressor
    private var compressed: [UInt8] = []
    private var rawSize = 0
    private var dropped = 0

    public init(name: String, mediaType: String = "text/plain", level: Int = GzipCodec.defaultLevel,
                maxCompressedSize: Int = 16 << 20) throws {
        self.name = name
        self.mediaType = mediaType
        self.maxCompressedSize = maxCompressedSize
        compressor = try ArtifactError.convertingGzip { try GzipCompressor(level: level, outputBufferSize: 64 * 1024) }
    }

    /// Bytes written so far (kept or dropped).
    public var bytesWritten: Int { rawSize + dropped }

    /// Compresses `bytes` (dropped, but counted, once the compressed size reached the cap).
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard compressed.count < maxCompressedSize else {
            dropped += bytes.count
            return
        }
        rawSize += bytes.count
        try ArtifactError.convertingGzip { try compressor.compress(bytes) { append($0) } }
    }

    /// Appends compressed bytes; past 1 MiB the buffer grows once to the cap instead of doubling past it.
    private func append(_ chunk: UnsafeRawBufferPointer) {
        if compressed.count + chunk.count > compressed.capacity, compressed.capacity >= 1 << 20 {
            compressed.reserveCapacity(max(compressed.count + chunk.count, maxCompressedSize + 256 << 10))
        }
        compressed.append(contentsOf: chunk)
    }

    /// Ends the stream: the artifact of `step`, or nil when nothing was written.
    public func finish(step: Int) throws -> CompressedArtifact? {
        guard bytesWritten > 0 else { return nil }
        if dropped > 0 {
            let note = Array("\n[flowmatrix: \(dropped) more bytes not kept: the compressed output reached \(maxCompressedSize) bytes]\n".utf8)
            rawSize += note.count
            try ArtifactError.convertingGzip {
                try note.withUnsafeBytes { raw in try compressor.compress(raw) { append($0) } }
            }
        }
        try ArtifactError.convertingGzip { try compressor.finish { append($0) } }
        return CompressedArtifact(name: name, mediaType: mediaType, stepIndex: step, sha256: SHA256.hexHash(compressed),
                                  rawSize: rawSize, compressed: compressed)
    }
}

extension ArtifactSink {
    /// Keeps an artifact compressed elsewhere (an `ArtifactStream`'s).
    /// - Throws: ``ArtifactError`` `.duplicateName` when its step already has an artifact of that name.
    public func attach(_ artifact: CompressedArtifact) throws {
        try keep(artifact)
    }
}
