import FlowCrypto
import Foundation
import Gzip

/// The outcome of committing a blob.
public struct BlobCommit: Sendable, Hashable {
    public var sha256: String
    /// Compressed bytes.
    public var size: Int
    /// False when the store already had this content (the new copy was discarded).
    public var stored: Bool

    public init(sha256: String, size: Int, stored: Bool) {
        self.sha256 = sha256
        self.size = size
        self.stored = stored
    }
}

/// What a garbage collection removed.
public struct GCResult: Sendable, Hashable {
    /// Blobs removed.
    public var removed: Int
    /// Bytes freed by removing blobs and stale temporaries.
    public var bytesFreed: Int
    /// Abandoned temporary files removed (ingests that never committed).
    public var temporariesRemoved: Int
    /// Blobs kept.
    public var kept: Int

    public init(removed: Int, bytesFreed: Int, temporariesRemoved: Int, kept: Int) {
        self.removed = removed
        self.bytesFreed = bytesFreed
        self.temporariesRemoved = temporariesRemoved
        self.kept = kept
    }
}

/// A content-addressed store of gzip blobs: `<root>/blobs/<first 2 hex>/<sha256>.gz`, each a valid `.gz`.
///
/// A blob's name is the SHA-256 of its compressed bytes, so identical content is stored once. Blobs arrive
/// through a ``BlobWriter`` (streamed chunks, hash verified before the blob becomes visible). Temporaries live
/// in `<root>/blobs/tmp/` (same file system, so the final `rename` is atomic).
///
/// A value type holding paths only; safe to share across threads. Concurrent writers of the same content
/// both succeed and leave one file.
public struct BlobStore: Sendable {
    public let root: URL
    /// `fsync` each blob and its directory on commit (default true). Off only for throwaway stores.
    public let syncToDisk: Bool

    let blobsPath: String
    let temporaryPath: String

    /// Opens the store at `root`, creating it, `blobs/` and `blobs/tmp/` if needed.
    public init(root: URL, syncToDisk: Bool = true) throws {
        self.root = root
        self.syncToDisk = syncToDisk
        blobsPath = root.appendingPathComponent("blobs").path
        temporaryPath = blobsPath + "/tmp"
        // The root's missing parents too (`.flowmatrix` inside a fresh workspace).
        var missing: [String] = []
        var path = root.standardizedFileURL.path
        while !path.isEmpty, path != "/", access(path, F_OK) != 0 {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() + [blobsPath, temporaryPath] {
            try Self.makeDirectory(path)
        }
    }

    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        try SystemFunnel.fail("create directory \(path)")
    }

    /// Whether `text` is a 64-character lowercase hex SHA-256.
    public static func isValidHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func validated(_ sha256: String, _ operation: String) throws -> String {
        // Hashes are stored lowercase: no new string for them (a report looks up tens of thousands).
        if isValidHash(sha256) { return sha256 }
        let lower = sha256.lowercased()
        guard isValidHash(lower) else {
            throw ArtifactError(code: .invalidHash, message: "'\(sha256)' is not a hex SHA-256", operation: operation)
        }
        return lower
    }

    func shardPath(_ sha256: String) -> String { blobsPath + "/" + sha256.prefix(2) }
    func blobPath(_ sha256: String) -> String { shardPath(sha256) + "/" + sha256 + ".gz" }

    /// The file of a blob (whether or not it exists).
    /// - Throws: ``ArtifactError/Code/invalidHash``.
    public func url(for sha256: String) throws -> URL {
        URL(fileURLWithPath: blobPath(try Self.validated(sha256, "locate blob")))
    }

    /// Whether the store holds the blob (false for text that is not a SHA-256).
    public func contains(_ sha256: String) -> Bool {
        let sha = sha256.lowercased()
        guard Self.isValidHash(sha) else { return false }
        var info = stat()
        return stat(blobPath(sha), &info) == 0
    }

    /// A writer for one streamed blob.
    public func makeWriter() throws -> BlobWriter {
        try BlobWriter(store: self)
    }

    /// Stores a worker's compressed artifact (one-shot ``BlobWriter``), verifying its hash.
    @discardableResult
    public func store(_ artifact: CompressedArtifact) throws -> BlobCommit {
        let writer = try makeWriter()
        try writer.append(artifact.compressed)
        return try writer.commit(expectedSHA256: artifact.sha256)
    }

    /// Every blob hash in the store.
    public func allHashes() throws -> [String] {
        var hashes: [String] = []
        try forEachBlob { sha, _, _ in hashes.append(sha) }
        return hashes.sorted()
    }

    // MARK: - Reading

    /// Opens a stored blob for reading: its descriptor (the caller closes it), its hash in lowercase and its path.
    /// - Throws: `.invalidHash`, `.notFound`, or the system's error.
    func openBlob(_ sha256: String) throws -> (fd: Int32, sha: String, path: String) {
        let sha = try Self.validated(sha256, "read blob")
        let path = blobPath(sha)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd == -1, errno == ENOENT { throw Self.notFound(sha) }
        try SystemFunnel.check(fd, "open \(path)")
        return (fd, sha, path)
    }

    /// The error of a read of blob `sha` that the store does not hold.
    static func notFound(_ sha: String) -> ArtifactError {
        ArtifactError(code: .notFound, message: "no blob \(sha) in the store", operation: "read blob")
    }

    /// Throws `.hashMismatch` unless the bytes `digest` read hash to `sha`.
    static func verify(_ digest: consuming SHA256, _ sha: String) throws {
        let bytes = digest.finalize()
        guard !Hex.matches(bytes, lowercaseHex: sha) else { return }
        throw ArtifactError(code: .hashMismatch, message: "blob \(sha) is corrupt on disk (hashes to \(Hex.encode(bytes)))",
                            operation: "read blob")
    }

    /// Streams a blob's compressed bytes to `body`, verifying its hash at the end.
    /// - Throws: `.notFound`, or `.hashMismatch` when the file on disk is corrupt.
    func readCompressed(_ sha256: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let (fd, sha, path) = try openBlob(sha256)
        defer { close(fd) }
        var digest = SHA256()
        // Most blobs are a few kilobytes: a buffer of the file's size (at most 256 KiB) stays below the allocator's
        // mmap threshold, where a fixed 256 KiB buffer cost a map, page faults and an unmap per blob (60,000 of them
        // in a large report).
        var info = stat()
        let known = fstat(fd, &info) == 0
        let size = known ? Int(info.st_size) : 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(max(size, 4096), 256 * 1024), alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        // A blob is never written again once stored: once its size is read, no read is needed to see the end (a
        // report reads tens of thousands of blobs). A file that changed anyway fails the hash check below.
        while !known || total < max(size, 1) {
            let n = try SystemFunnel.retrying("read \(path)") { systemRead(fd, buffer) }
            if n == 0 { break }
            total += n
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            digest.update(chunk)
            try body(chunk)
        }
        try Self.verify(digest, sha)
    }

    /// The compressed bytes of a blob (a `.gz` file), verified.
    public func compressedBytes(_ sha256: String, maxSize: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        try appendCompressed(sha256, maxSize: maxSize, to: &out)
        return out
    }

    /// Appends the compressed bytes of a blob (a `.gz` file), verified, to `out`, read straight into its storage: a
    /// report copies tens of thousands of blobs, and a buffer per blob was a measurable share of its time.
    /// - Returns: how many bytes were appended. On an error `out` is left as it was.
    /// - Throws: `.notFound`, `.tooLarge` (more than `maxSize` bytes), or `.hashMismatch` when the file is corrupt.
    @discardableResult
    public func appendCompressed(_ sha256: String, maxSize: Int, to out: inout [UInt8]) throws -> Int {
        let (fd, sha, path) = try openBlob(sha256)
        defer { close(fd) }
        var info = stat()
        return try Self.append(fd: fd, sha: sha, path: { path }, size: fstat(fd, &info) == 0 ? Int(info.st_size) : nil,
                               maxSize: maxSize, to: &out)
    }

    /// Reads the open blob `fd` to its end into `out`, straight into its storage, and checks that it hashes to `sha`.
    /// - Parameter size: the file's size when known (its `stat`, or the size the journal recorded): a read that stops
    ///   there is the end, so no further read is made to see it (a report reads tens of thousands of blobs). A file
    ///   longer than that is read to its end; either way the hash decides.
    /// - Returns: how many bytes were appended. On an error `out` is left as it was.
    /// - Parameter path: the file's path, for an error's message.
    static func append(fd: Int32, sha: String, path: () -> String, size: Int?, maxSize: Int, to out: inout [UInt8]) throws
        -> Int
    {
        let start = out.count
        var expected = size
        var reads = 0
        do {
            while true {
                let have = out.count - start
                if let expected, reads > 0, have == expected { break }
                // One byte beyond the known size: a longer file shows itself in the same read.
                let want = expected.map { min(max($0 - have, 0) + 1, 1 << 20) } ?? 64 << 10
                out.append(contentsOf: repeatElement(0, count: want))
                let at = start + have
                let n = try out.withUnsafeMutableBytes { raw in
                    try SystemFunnel.retrying("read \(path())") { systemRead(fd, UnsafeMutableRawBufferPointer(rebasing: raw[at...])) }
                }
                out.removeLast(want - n)
                reads += 1
                if n == 0 { break }
                if let known = expected, out.count - start > known { expected = nil }
                guard out.count - start <= maxSize else {
                    throw ArtifactError(code: .tooLarge, message: "blob is larger than \(maxSize) bytes", operation: "read blob")
                }
            }
            var digest = SHA256()
            out.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            try verify(digest, sha)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
        return out.count - start
    }

    /// Streams a blob's decompressed content to `sink` in pieces (valid only during each call).
    /// - Parameter maxSize: the most decompressed bytes accepted (a zip bomb stops there with `.tooLarge`).
    /// - Returns: the decompressed size.
    @discardableResult
    public func read(_ sha256: String, maxSize: Int, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        try ArtifactError.convertingGzip {
            let decompressor = try GzipDecompressor(maxOutputSize: maxSize)
            try readCompressed(sha256) { chunk in
                try decompressor.decompress(chunk, into: sink)
            }
            try decompressor.finish()
            return decompressor.totalOut
        }
    }

    /// The decompressed content of a blob.
    /// - Parameter maxSize: the most decompressed bytes accepted (a zip bomb stops there with `.tooLarge`).
    public func read(_ sha256: String, maxSize: Int) throws -> [UInt8] {
        try ArtifactError.convertingGzip {
            let decompressor = try GzipDecompressor(maxOutputSize: maxSize)
            var out: [UInt8] = []
            try readCompressed(sha256) { chunk in
                try decompressor.decompress(chunk) { out.append(contentsOf: $0) }
            }
            try decompressor.finish()
            return out
        }
    }

    /// Decompresses a blob into the file at `destination` (replaced if present), streaming.
    /// - Returns: the decompressed size.
    @discardableResult
    public func extract(_ sha256: String, to destination: URL, maxSize: Int) throws -> Int {
        let path = destination.path
        let fd = try SystemFunnel.retrying("create \(path)") {
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(path) }
        }
        let size = try ArtifactError.convertingGzip {
            let decompressor = try GzipDecompressor(maxOutputSize: maxSize)
            try readCompressed(sha256) { chunk in
                try decompressor.decompress(chunk) { try Self.writeAll(fd, $0, path) }
            }
            try decompressor.finish()
            return decompressor.totalOut
        }
        ok = true
        return size
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = try SystemFunnel.retrying("write \(path)") {
                write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            offset += n
        }
    }

    static func syncDirectory(_ path: String) throws {
        let fd = try SystemFunnel.retrying("open directory \(path)") { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        try SystemFunnel.retrying("fsync \(path)") { fsync(fd) }
    }

    // MARK: - Garbage collection

    private func forEachBlob(_ body: (_ sha: String, _ path: String, _ info: stat) throws -> Void) throws {
        for shard in try Self.entries(blobsPath) where shard.utf8.count == 2 {
            let shardPath = blobsPath + "/" + shard
            for name in try Self.entries(shardPath) where name.hasSuffix(".gz") {
                let sha = String(name.dropLast(3))
                guard Self.isValidHash(sha), sha.hasPrefix(shard) else { continue }
                var info = stat()
                let path = shardPath + "/" + name
                if stat(path, &info) == 0 { try body(sha, path, info) }
            }
        }
    }

    private static func entries(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return [] }
            try SystemFunnel.fail("list \(directory)")
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func modified(_ info: stat) -> Date {
        Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Deletes blobs that no journal row references, and temporaries of abandoned ingests.
    ///
    /// Files modified within `gracePeriod` before `now` are kept: a blob just committed by a run in progress
    /// may not be referenced yet, and a temporary may still be written.
    /// - Parameters:
    ///   - referenced: hashes to keep (from `JournalReader.referencedBlobs()`).
    ///   - now: the current wall time (passed in; the store reads no clock).
    ///   - gracePeriod: seconds.
    public func gc(referenced: Set<String>, now: Date, gracePeriod: TimeInterval) throws -> GCResult {
        var result = GCResult(removed: 0, bytesFreed: 0, temporariesRemoved: 0, kept: 0)
        let cutoff = now.addingTimeInterval(-gracePeriod)
        let keep = Set(referenced.map { $0.lowercased() })
        try forEachBlob { sha, path, info in
            if keep.contains(sha) || Self.modified(info) > cutoff {
                result.kept += 1
                return
            }
            if unlink(path) == 0 {
                result.removed += 1
                result.bytesFreed += Int(info.st_size)
            } else if errno != ENOENT {
                try SystemFunnel.fail("remove \(path)")
            }
        }
        for name in try Self.entries(temporaryPath) {
            let path = temporaryPath + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, Self.modified(info) <= cutoff else { continue }
            if unlink(path) == 0 {
                result.temporariesRemoved += 1
                result.bytesFreed += Int(info.st_size)
            } else if errno != ENOENT {
                try SystemFunnel.fail("remove \(path)")
            }
        }
        return result
    }
}
