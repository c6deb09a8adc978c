import Foundation
import Synchronization

/// Reads many blobs of a store from one thread (a report copies tens of thousands): the store's shard folders stay
/// open, so each blob is opened by its file name alone (`openat`) instead of walking its whole path, and a blob whose
/// size the caller knows (the journal records it) is read without asking the file system for it.
///
/// Threads may share one: a report's reader threads do, for the whole report (a folder is opened once).
public final class BlobReader: Sendable {
    public let store: BlobStore
    /// The open shard folders (`blobs/<first 2 hex>`), by the value of their two hex digits; -1: not opened yet.
    private let shards = Mutex([Int32](repeating: -1, count: 256))

    public init(store: BlobStore) {
        self.store = store
    }

    deinit {
        shards.withLock { for fd in $0 where fd >= 0 { close(fd) } }
    }

    /// Appends the compressed bytes of a blob, verified, to `out` (``BlobStore/appendCompressed(_:maxSize:to:)``).
    /// - Parameter size: the blob's compressed size when known (nil: the file system is asked).
    /// - Returns: how many bytes were appended. On an error `out` is left as it was.
    /// - Throws: `.invalidHash`, `.notFound`, `.tooLarge`, or `.hashMismatch` when the file is corrupt.
    @discardableResult
    public func appendCompressed(_ sha256: String, size: Int?, maxSize: Int, to out: inout [UInt8]) throws -> Int {
        let sha = try BlobStore.validated(sha256, "read blob")
        var digits = sha.utf8.makeIterator()
        let shard = Int(Self.hexValue(digits.next() ?? 0x30) << 4 | Self.hexValue(digits.next() ?? 0x30))
        let folder = shards.withLock { shards in
            if shards[shard] < 0 { shards[shard] = open(store.shardPath(sha), O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            return shards[shard]
        }
        // No shard folder (yet): the blob by its path, which says why it cannot be read.
        guard folder >= 0 else { return try store.appendCompressed(sha, maxSize: maxSize, to: &out) }
        let fd = openat(folder, sha + ".gz", O_RDONLY | O_CLOEXEC)
        if fd == -1, errno == ENOENT { throw BlobStore.notFound(sha) }
        try SystemFunnel.check(fd, "open \(store.blobPath(sha))")
        defer { close(fd) }
        var known = size.flatMap { $0 >= 0 ? $0 : nil }
        if known == nil {
            var info = stat()
            if fstat(fd, &info) == 0 { known = Int(info.st_size) }
        }
        return try BlobStore.append(fd: fd, sha: sha, path: { store.blobPath(sha) }, size: known, maxSize: maxSize, to: &out)
    }

    /// The value of a lowercase hex digit (the hash is validated).
    private static func hexValue(_ digit: UInt8) -> UInt8 { digit <= 0x39 ? digit - 0x30 : digit - 0x57 }
}
