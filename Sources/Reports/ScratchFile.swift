#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif
import Foundation

/// A file of scratch data a report spills instead of holding it (the run's job records, rows being sorted): created
/// in a directory and unlinked at once, so it leaves nothing behind however the process ends, and freed when the
/// last reference goes. Written once through a ``Writer``, then read by any number of ``Reader``s, each on its own
/// thread (`pread` shares no position).
final class ScratchFile: Sendable {
    let descriptor: Int32
    /// Bytes written.
    let size: Int

    private init(descriptor: Int32, size: Int) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// A new, already unlinked file in `directory` (the system's temporary directory when nil).
    /// - Throws: ``ReportError`` `.output`.
    static func create(in directory: URL?) throws -> Int32 {
        let folder = directory ?? FileManager.default.temporaryDirectory
        let path = folder.appendingPathComponent(".flowmatrix-scratch-\(UUID().uuidString)").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw ReportError(code: .output, message: "cannot create a scratch file in \(folder.path): \(String(cString: strerror(errno)))")
        }
        unlink(path)
        return fd
    }

    /// Appends through a buffer of ``bufferSize`` bytes.
    final class Writer {
        static let bufferSize = 1 << 18
        private let descriptor: Int32
        private var buffer: [UInt8] = []
        private var written = 0
        private var closed = false

        /// Bytes appended so far (the offset of the next one).
        var offset: Int { written + buffer.count }

        /// - Throws: ``ReportError`` `.output` when the file cannot be created.
        init(in directory: URL?) throws {
            descriptor = try ScratchFile.create(in: directory)
            buffer.reserveCapacity(Self.bufferSize)
        }

        deinit { if !closed { close(descriptor) } }

        func append(_ bytes: UnsafeRawBufferPointer) throws {
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.bufferSize { try flush() }
        }

        func append<T: BitwiseCopyable>(_ value: T) throws {
            try withUnsafeBytes(of: value) { try append($0) }
        }

        func append(_ values: [Int32]) throws {
            try values.withUnsafeBytes { try append($0) }
        }

        private func flush() throws {
            var done = 0
            while done < buffer.count {
                let n = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw ReportError(code: .output, message: "cannot write a scratch file: \(String(cString: strerror(errno)))")
                }
                done += n
            }
            written += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }

        /// The written file, ready to read; the writer is spent.
        func finish() throws -> ScratchFile {
            try flush()
            closed = true
            buffer = []
            return ScratchFile(descriptor: descriptor, size: written)
        }
    }

    /// Reads at any offset through a small cache of pages (a few pages of ``pageSize`` bytes, direct-mapped): a
    /// forward scan reads each page once, and memory stays at a few hundred kilobytes however large the file.
    struct Reader {
        static let pageSize = 1 << 15
        let file: ScratchFile
        private let slots: Int
        private var cache: [UInt8]
        private var tags: [Int]

        /// - Parameter slots: pages cached (8 by default; a reader that only moves forward needs 1).
        init(_ file: ScratchFile, slots: Int = 8) {
            self.file = file
            self.slots = slots
            cache = [UInt8](repeating: 0, count: Self.pageSize * slots)
            tags = [Int](repeating: -1, count: slots)
        }

        /// Copies `count` bytes at `offset` into `destination`. Reading past the end is a programming error.
        /// - Throws: ``ReportError`` `.output` when the system cannot read the file.
        mutating func read(at offset: Int, count: Int, into destination: UnsafeMutableRawPointer) throws {
            precondition(offset >= 0 && offset + count <= file.size, "read past the end of a scratch file")
            var done = 0
            while done < count {
                let position = offset + done
                let page = position / Self.pageSize, within = position % Self.pageSize
                let slot = page % slots
                if tags[slot] != page { try load(page, slot: slot) }
                let n = min(count - done, Self.pageSize - within)
                cache.withUnsafeBytes { bytes in
                    (destination + done).copyMemory(from: bytes.baseAddress! + slot * Self.pageSize + within, byteCount: n)
                }
                done += n
            }
        }

        mutating func load<T: BitwiseCopyable>(_ type: T.Type, at offset: Int) throws -> T {
            try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
                try read(at: offset, count: MemoryLayout<T>.size, into: buffer.baseAddress!)
                return buffer[0]
            }
        }

        private mutating func load(_ page: Int, slot: Int) throws {
            let start = page * Self.pageSize
            let want = min(Self.pageSize, file.size - start)
            var done = 0
            tags[slot] = -1
            try cache.withUnsafeMutableBytes { bytes in
                while done < want {
                    let n = pread(file.descriptor, bytes.baseAddress! + slot * Self.pageSize + done, want - done,
                                  off_t(start + done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else {
                        throw ReportError(code: .output, message: "cannot read a scratch file: \(String(cString: strerror(errno)))")
                    }
                    done += n
                }
            }
            tags[slot] = page
        }
    }
}
