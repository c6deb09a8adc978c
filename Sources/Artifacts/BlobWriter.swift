import FlowCrypto
import Foundation

/// Streams one blob into a ``BlobStore``: chunks in order, hashed incrementally and written to a temporary
/// file as they come (memory stays bounded by one chunk), then `commit(expectedSHA256:)` verifies the hash
/// before the blob becomes visible.
///
/// Not thread-safe: one writer per stream (concurrent streams use one writer each). A writer dropped without
/// commit removes its temporary.
public final class BlobWriter {
    /// Small chunks are gathered up to this many bytes before a `write`; larger chunks are written directly.
    public static let bufferCapacity = 64 * 1024

    private let store: BlobStore
    private let temporaryPath: String
    private var fd: Int32
    private var digest: SHA256?
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    private var done = false
    /// Bytes on disk (written), and how far writeback has been started.
    private var written = 0
    private var writebackStarted = 0
    /// Start writeback every this many bytes, so the fsync at commit has little left to wait for.
    private static let writebackInterval = 1 << 20

    /// Compressed bytes appended so far.
    public private(set) var bytesAppended = 0
    /// The most bytes the writer held in memory at once (its gather buffer, or a chunk being written).
    public private(set) var bufferedHighWaterMark = 0

    init(store: BlobStore) throws {
        self.store = store
        temporaryPath = store.temporaryPath + "/" + UUID().uuidString.lowercased() + ".partial"
        let path = temporaryPath
        fd = try SystemFunnel.retrying("create \(path)") {
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        digest = SHA256()
        buffer = .allocate(byteCount: Self.bufferCapacity, alignment: 16)
    }

    deinit {
        if !done { discard() }
        buffer.deallocate()
    }

    /// Appends the next chunk.
    public func append(_ chunk: UnsafeRawBufferPointer) throws {
        guard !done else {
            throw ArtifactError(code: .misuse, message: "append after commit or abort", operation: "blob append")
        }
        guard !chunk.isEmpty else { return }
        digest?.update(chunk)
        bytesAppended += chunk.count
        if buffered + chunk.count <= buffer.count {
            UnsafeMutableRawBufferPointer(rebasing: buffer[buffered..<buffered + chunk.count]).copyMemory(from: chunk)
            buffered += chunk.count
            bufferedHighWaterMark = max(bufferedHighWaterMark, buffered)
            if buffered == buffer.count { try drain() }
        } else {
            try drain()
            bufferedHighWaterMark = max(bufferedHighWaterMark, chunk.count)
            try BlobStore.writeAll(fd, chunk, temporaryPath)
            didWrite(chunk.count)
        }
    }

    private func didWrite(_ count: Int) {
        written += count
        guard store.syncToDisk, written - writebackStarted >= Self.writebackInterval else { return }
        // POSIX_FADV_DONTNEED starts writeback of the dirty range on Linux (and later drops it from the page
        // cache), overlapping the disk with receiving. Advisory: if it fails, the fsync at commit does it all.
        _ = posix_fadvise(fd, off_t(writebackStarted), off_t(written - writebackStarted), Int32(POSIX_FADV_DONTNEED))
        writebackStarted = written
    }

    /// Appends the next chunk.
    public func append(_ chunk: some Collection<UInt8>) throws {
        if let done: Void = try chunk.withContiguousStorageIfAvailable({ try append(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        try Array(chunk).withUnsafeBytes { try append($0) }
    }

    private func drain() throws {
        guard buffered > 0 else { return }
        try BlobStore.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]), temporaryPath)
        didWrite(buffered)
        buffered = 0
    }

    /// Verifies the content hashes to `expectedSHA256`, then makes the blob visible (fsync, rename, fsync dir).
    /// A mismatch deletes the temporary and throws `.hashMismatch`: nothing becomes visible. When the store
    /// already has the content, the temporary is discarded and `stored` is false.
    public func commit(expectedSHA256: String) throws -> BlobCommit {
        guard !done, let digest = digest.take() else {
            throw ArtifactError(code: .misuse, message: "commit after commit or abort", operation: "blob commit")
        }
        let expected: String
        do {
            expected = try BlobStore.validated(expectedSHA256, "blob commit")
            try drain()
        } catch {
            discard()
            throw error
        }
        let actual = Hex.encode(digest.finalize())
        guard actual == expected else {
            discard()
            throw ArtifactError(
                code: .hashMismatch,
                message: "the \(bytesAppended) bytes received hash to \(actual), not \(expected)",
                operation: "blob commit"
            )
        }
        do {
            if store.syncToDisk { try SystemFunnel.retrying("fsync \(temporaryPath)") { fsync(fd) } }
            close(fd)
            fd = -1
            let shard = store.shardPath(actual)
            try BlobStore.makeDirectory(shard)
            let final = store.blobPath(actual)
            var info = stat()
            if stat(final, &info) == 0 {
                discard()
                // Refresh the existing blob's time: a gc running before the journal references it again must
                // see it as recent (inside its grace period).
                if utimensat(AT_FDCWD, final, nil, 0) != 0, errno != ENOENT {
                    try SystemFunnel.fail("touch \(final)")
                }
                return BlobCommit(sha256: actual, size: bytesAppended, stored: false)
            }
            // rename replaces atomically: a racing writer of the same content leaves one identical file.
            try SystemFunnel.check(rename(temporaryPath, final), "rename \(temporaryPath) to \(final)")
            done = true
            if store.syncToDisk { try BlobStore.syncDirectory(shard) }
            return BlobCommit(sha256: actual, size: bytesAppended, stored: true)
        } catch {
            if !done { discard() }
            throw error
        }
    }

    /// Abandons the blob and removes the temporary.
    public func abort() {
        guard !done else { return }
        discard()
    }

    private func discard() {
        done = true
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(temporaryPath)
    }
}
