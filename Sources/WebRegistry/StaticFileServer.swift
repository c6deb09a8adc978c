import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A tiny HTTP/1.1 server for a folder of static files on 127.0.0.1 (GET and HEAD, one request per connection), so a
/// sample site is served over HTTP — the browser's network emulation (latency, throughput, offline) applies to
/// HTTP requests, not to `file://` loads. An accept thread, and a thread per connection.
public final class StaticFileServer: Sendable {
    public let root: URL
    public let port: Int
    private let listener: Mutex<Int32?>

    /// Serves `root` on an ephemeral port of 127.0.0.1.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw ServerError("bind/listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = Mutex(fd)
        let thread = Thread { [self] in acceptLoop(fd) }
        thread.name = "flowmatrix.static-files"
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>/`
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// Stops accepting connections.
    public func stop() {
        listener.withLock { fd in
            if let open = fd {
                shutdown(open, Int32(SHUT_RDWR))
                close(open)
            }
            fd = nil
        }
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    private func acceptLoop(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            #if canImport(Darwin)
                var on: Int32 = 1
                setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let root = self.root
            let thread = Thread { Self.serve(client, root: root) }
            thread.start()
        }
    }

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "json": "application/json", "png": "image/png", "svg": "image/svg+xml", "txt": "text/plain; charset=utf-8",
    ]

    private static func serve(_ fd: Int32, root: URL) {
        defer { close(fd) }
        var request = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while request.count < 65536 {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return }
            request += chunk[0..<n]
            if request.count >= 4,
                request.suffix(4) == [13, 10, 13, 10] || String(decoding: request, as: UTF8.self).contains("\r\n\r\n")
            {
                break
            }
        }
        let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET" || parts[0] == "HEAD" else {
            return respond(
                fd, status: "405 Method Not Allowed", type: "text/plain", body: Array("GET only\n".utf8), head: false)
        }
        var path = String(parts[1].split(separator: "?", maxSplits: 1).first ?? "/").removingPercentEncoding ?? "/"
        if path.hasSuffix("/") { path += "index.html" }
        let file = root.appendingPathComponent(String(path.drop(while: { $0 == "/" }))).standardizedFileURL
        guard file.path.hasPrefix(root.path + "/"), let data = FileManager.default.contents(atPath: file.path) else {
            return respond(
                fd, status: "404 Not Found", type: "text/plain", body: Array("not found: \(path)\n".utf8),
                head: parts[0] == "HEAD")
        }
        respond(
            fd, status: "200 OK", type: types[file.pathExtension.lowercased()] ?? "application/octet-stream",
            body: [UInt8](data), head: parts[0] == "HEAD")
    }

    private static func respond(_ fd: Int32, status: String, type: String, body: [UInt8], head: Bool) {
        let header =
            "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        var bytes = Array(header.utf8)
        if !head { bytes += body }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Darwin)
                let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            #else
                let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #endif
            if n <= 0 { return }
            offset += n
        }
    }
}
