import Foundation
import UVTransport

/// What a `StaticFileServer` answers, on its loop thread: a file under the root (200, streamed), or 404, or 400 for a
/// path that does not decode. Loop-confined: created and used on the loop thread only.
final class StaticFileResponder: HTTPHandler {
    let root: URL
    /// Open files of the answers still being written, by connection.
    private var streams: [UInt64: FileStream] = [:]
    /// Bytes read from a file per write: the most a stream holds in memory at once.
    static let partSize = 64 << 10

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "ico": "image/x-icon",
        "svg": "image/svg+xml", "woff2": "font/woff2", "txt": "text/plain; charset=utf-8",
    ]

    init(root: URL) { self.root = root }

    /// Where a request path leads under `root`.
    enum Resolution: Equatable {
        case file(URL)
        case notFound(String)
        case badRequest(String)
    }

    /// Resolves a request path (as sent, before any `?`): percent-decoded, `/` at the end means `index.html`, and
    /// anything that leaves `root` (`..`, encoded or not), names a directory or holds a NUL is not found.
    static func resolve(_ rawPath: String, in root: URL) -> Resolution {
        guard var path = rawPath.removingPercentEncoding else {
            return .badRequest("the path has a malformed percent escape")
        }
        if path.hasSuffix("/") { path += "index.html" }
        guard !path.contains("\0") else { return .notFound(path) }
        let file = root.appendingPathComponent(String(path.drop(while: { $0 == "/" }))).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard file.path.hasPrefix(root.path + "/"),
              FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else { return .notFound(path) }
        return .file(file)
    }

    func onRequest(_ request: HTTPRequest, on connection: HTTPConnection) {
        switch Self.resolve(request.path, in: root) {
        case .badRequest(let reason):
            connection.respond(status: 400, body: Array((reason + "\n").utf8), contentType: "text/plain; charset=utf-8",
                               headOnly: request.isHead)
        case .notFound(let path):
            connection.respond(status: 404, body: Array("not found: \(path)\n".utf8),
                               contentType: "text/plain; charset=utf-8", headOnly: request.isHead)
        case .file(let file):
            guard let handle = FileHandle(forReadingAtPath: file.path),
                  let size = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil
            else {
                return connection.respond(status: 404, body: Array("not readable: \(request.path)\n".utf8),
                                          contentType: "text/plain; charset=utf-8", headOnly: request.isHead)
            }
            connection.startStream(headers: [("Content-Length", String(size))],
                                   contentType: Self.types[file.pathExtension.lowercased()] ?? "application/octet-stream")
            if request.isHead || size == 0 {
                try? handle.close()
                return connection.endStream()
            }
            streams[connection.id] = FileStream(handle: handle, remaining: Int(size))
            pump(connection)
        }
    }

    func onWritable(_ connection: HTTPConnection) { pump(connection) }

    func onClose(_ connection: HTTPConnection) {
        if let stream = streams.removeValue(forKey: connection.id) { try? stream.handle.close() }
    }

    /// Writes the next parts of a file while the socket takes them at once; the rest waits for `onWritable`.
    private func pump(_ connection: HTTPConnection) {
        guard let stream = streams[connection.id] else { return }
        while !connection.isClosed, connection.bufferedBytes == 0 {
            guard stream.remaining > 0 else {
                onClose(connection)
                return connection.endStream()
            }
            // A file that shrank or cannot be read ends the answer short: the client sees a cut body, not a wrong one.
            guard let part = try? stream.handle.read(upToCount: min(Self.partSize, stream.remaining)), !part.isEmpty
            else { return connection.close() }
            stream.remaining -= part.count
            guard connection.write([UInt8](part)) else { return }
        }
    }

    /// A file being sent and how many of its bytes are still due (its size when the answer started).
    private final class FileStream {
        let handle: FileHandle
        var remaining: Int
        init(handle: FileHandle, remaining: Int) {
            self.handle = handle
            self.remaining = remaining
        }
    }
}
