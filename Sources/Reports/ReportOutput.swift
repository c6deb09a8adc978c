import FlowSpec
import Foundation

/// Where a report format writes its text: a file filled front to back through a 1 MiB buffer (a report of 100,000
/// jobs never sits whole in memory), or memory (for callers that want the text).
///
/// A file is written under a temporary name in the `.partial` subfolder of its folder and moved into place by
/// ``finish()``, so a reader never sees half a report, and a write killed on the way leaves nothing among the
/// report's files: ``ReportWriter`` removes `.partial` (and what a killed write of an older version left) when the
/// next report starts, and the empty `.partial` when a report is written.
final class ReportOutput {
    /// Appended to millions of times per report; an output is used by one thread at a time and never hands out
    /// `inout` access to it, so the runtime's exclusivity check per access (a measurable share of a report's CPU)
    /// is turned off for it alone.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private let handle: FileHandle?
    private let destination: URL?
    private let temporary: URL?
    /// The first write error; ``finish()`` throws it.
    private var failure: (any Error)?
    private var finished = false
    private let flushSize: Int

    /// Collects the text in memory; read it with ``text``.
    init() {
        flushSize = 1 << 20
        handle = nil
        destination = nil
        temporary = nil
    }

    /// Writes into `url` (replaced when ``finish()`` succeeds), through a buffer of `bufferSize` bytes (1 MiB).
    /// - Throws: ``ReportError`` `.output` when the temporary file cannot be created.
    init(file url: URL, bufferSize: Int = 1 << 20) throws {
        flushSize = bufferSize
        let temporary = Self.temporaryURL(for: url)
        handle = try Self.createTemporary(temporary, for: url)
        destination = url
        self.temporary = temporary
        buffer.reserveCapacity(bufferSize + bufferSize / 16)
    }

    /// The subfolder of a report folder (and of its `data/` and `blobs/`) that holds files being written.
    static let partialFolder = ".partial"

    /// A fresh temporary name for a file on its way to `url`: in the `.partial` subfolder of `url`'s folder (or
    /// beside `url` when that folder is a `.partial` already, for a scratch file of its own).
    static func temporaryURL(for url: URL) -> URL {
        let parent = url.deletingLastPathComponent()
        let folder = parent.lastPathComponent == partialFolder ? parent : parent.appendingPathComponent(partialFolder)
        return folder.appendingPathComponent("\(url.lastPathComponent).\(UUID().uuidString).tmp")
    }

    /// Creates the empty file `temporary` (on the way to `destination`) and opens it for reading and writing.
    /// - Throws: ``ReportError`` `.output`; nothing is left behind.
    static func createTemporary(_ temporary: URL, for destination: URL) throws -> FileHandle {
        try? FileManager.default.createDirectory(at: temporary.deletingLastPathComponent(), withIntermediateDirectories: true)
        // open(2) itself: FileManager.createFile writes an empty file atomically (a second temporary file, an fsync
        // and a rename), which for the hundreds of files of a large report cost a tenth of a second of waiting. A
        // report is derived data: it is moved into place by rename, never synced.
        let fd = open(temporary.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ReportError(code: .output, message: "cannot write \(destination.path): cannot create"
                              + " \(temporary.lastPathComponent): \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit {
        // Not finished (an error on the way): leave no temporary file behind.
        if !finished, let handle, let temporary {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// Appends UTF-8 text.
    func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if handle != nil && buffer.count >= flushSize { flush() }
    }

    /// Appends `text` between double quotes, as it is: the caller knows it needs no escape.
    func write(quoted text: String) {
        var text = text
        buffer.append(0x22)
        text.withUTF8 { buffer.append(contentsOf: $0) }
        buffer.append(0x22)
        if handle != nil && buffer.count >= flushSize { flush() }
    }

    /// Appends an integer in decimal, without a temporary string.
    func write(int value: Int) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(truncatingIfNeeded: value) + 0x30)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var magnitude = value.magnitude
            var at = digits.count
            repeat {
                at -= 1
                digits[at] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                at -= 1
                digits[at] = 0x2D
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[at...]))
        }
        if handle != nil && buffer.count >= flushSize { flush() }
    }

    /// Appends bytes (UTF-8 text already encoded).
    func write(bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
        if handle != nil && buffer.count >= flushSize { flush() }
    }

    static func += (output: ReportOutput, text: String) { output.write(text) }

    /// Appends `text` as a JSON string — for the page (``JSONText/pageString(_:)``) or plain (``JSONText/string(_:)``)
    /// — or `null`; a string that needs no escape goes straight into the buffer, without a temporary string (a report
    /// writes millions of them).
    func writeJSON(_ text: String?, page: Bool = true) {
        guard var text else { return write(bytes: "null".utf8) }
        let plain = text.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x3C || byte == 0x3E
                || byte == 0x26 || byte == 0xE2 {
                return false
            }
            buffer.append(0x22)
            buffer.append(contentsOf: bytes)
            buffer.append(0x22)
            return true
        }
        guard plain else { return write(page ? JSONText.pageString(text) : JSONText.string(text)) }
        if handle != nil && buffer.count >= flushSize { flush() }
    }

    /// Appends the bytes of the file at `url` (a scratch file of an earlier stage), 1 MiB at a time.
    /// - Throws: ``ReportError`` `.output` when it cannot be read.
    func append(contentsOf url: URL) throws {
        do {
            let file = try FileHandle(forReadingFrom: url)
            defer { try? file.close() }
            while let block = try file.read(upToCount: 1 << 20), !block.isEmpty { write(bytes: block) }
        } catch {
            throw ReportError(code: .output, message: "cannot read \(url.path): \(FileErrorText.reason(error))")
        }
    }

    /// Everything written so far, for an in-memory output, as bytes.
    var bytes: [UInt8] { buffer }

    /// Bytes held (for an in-memory output: everything written since the last ``drain(_:)``).
    var count: Int { buffer.count }

    /// Hands an in-memory output's bytes to `body` and empties it (its capacity kept).
    func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try buffer.withUnsafeBytes(body)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Everything written so far, for an in-memory output.
    var text: String { String(decoding: buffer, as: UTF8.self) }

    private func flush() {
        guard let handle, !buffer.isEmpty, failure == nil else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            failure = error
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, closes and moves the file into place.
    /// - Throws: ``ReportError`` `.output` on any write, close or rename error.
    func finish() throws {
        guard let handle, let destination, let temporary, !finished else { return }
        finished = true
        flush()
        do {
            if let failure { throw failure }
            try handle.close()
            // rename(2) replaces an existing file atomically.
            guard rename(temporary.path, destination.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ReportError(code: .output, message: "cannot write \(destination.path): \(FileErrorText.reason(error))")
        }
    }
}
