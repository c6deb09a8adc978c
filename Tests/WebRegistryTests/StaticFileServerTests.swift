import Foundation
import Testing
import WebRegistry

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

@Suite("static file server for the site under test")
struct StaticFileServerTests {
    /// Sends one raw HTTP request line and returns the status line of the answer.
    static func statusLine(port: Int, path: String) throws -> String {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        return String(decoding: response, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
    }

    @Test("serves files under its root and nothing outside it")
    func confinement() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("site"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("hello".utf8).write(to: root.appendingPathComponent("site/index.html"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.txt"))
        let server = try StaticFileServer(root: root.appendingPathComponent("site"))
        defer { server.stop() }
        #expect(try Self.statusLine(port: server.port, path: "/") == "HTTP/1.1 200 OK")
        #expect(try Self.statusLine(port: server.port, path: "/index.html?x=1") == "HTTP/1.1 200 OK")
        #expect(try Self.statusLine(port: server.port, path: "/../secret.txt") == "HTTP/1.1 404 Not Found")
        #expect(try Self.statusLine(port: server.port, path: "/%2e%2e/secret.txt") == "HTTP/1.1 404 Not Found")
        #expect(try Self.statusLine(port: server.port, path: "/missing.css") == "HTTP/1.1 404 Not Found")
    }

    /// A folder with an index, a stylesheet, an 8 MB file of varied bytes and a secret beside it.
    static func makeSite() throws -> (folder: URL, big: Data) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        let site = folder.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site.appendingPathComponent("css"), withIntermediateDirectories: true)
        try Data("<p>hello</p>".utf8).write(to: site.appendingPathComponent("index.html"))
        try Data("p { color: red }".utf8).write(to: site.appendingPathComponent("css/site.css"))
        try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.txt"))
        // A block of a prime length, so a part sent twice or out of order shows.
        let block = Data((0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        var big = Data(capacity: 128 * block.count)
        for _ in 0..<128 { big.append(block) }
        try big.write(to: site.appendingPathComponent("big.bin"))
        return (folder, big)
    }

    @Test("answers content types, lengths and HEAD without a body")
    func contentTypesAndHead() throws {
        let (folder, big) = try Self.makeSite()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try StaticFileServer(root: folder.appendingPathComponent("site"))
        defer { server.stop() }
        let css = try RawHTTPClient.fetch(port: server.port, "GET /css/site.css?v=3 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(css.status == "HTTP/1.1 200 OK")
        #expect(css.headers["content-type"] == "text/css; charset=utf-8")
        #expect(css.body == Array("p { color: red }".utf8))
        let head = try RawHTTPClient.fetch(port: server.port, "HEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(head.status == "HTTP/1.1 200 OK")
        #expect(head.headers["content-length"] == String(big.count))
        #expect(head.headers["content-type"] == "application/octet-stream")
        #expect(head.body.isEmpty)
        let folderWithoutSlash = try RawHTTPClient.fetch(port: server.port, "GET /css HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(folderWithoutSlash.status == "HTTP/1.1 404 Not Found")
    }

    @Test("serves 100 connections open at once, big files streamed whole while others are answered")
    func manyConcurrentRequests() throws {
        let (folder, big) = try Self.makeSite()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try StaticFileServer(root: folder.appendingPathComponent("site"))
        defer { server.stop() }
        // Every connection is open and has sent its request before any answer is read; the big answers fill
        // their sockets and wait, and are read last.
        let paths = (0..<100).map { i in i % 20 == 0 ? "/big.bin" : (i % 2 == 0 ? "/" : "/css/site.css") }
        let clients = try paths.map { path in
            let client = try RawHTTPClient(port: server.port)
            client.send(Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            return (path, client)
        }
        let order = clients.filter { $0.0 != "/big.bin" } + clients.filter { $0.0 == "/big.bin" }
        for (path, client) in order {
            let response = try client.readResponse()
            #expect(response.status == "HTTP/1.1 200 OK", "\(path)")
            let expected = switch path {
            case "/big.bin": big
            case "/": Data("<p>hello</p>".utf8)
            default: Data("p { color: red }".utf8)
            }
            #expect(response.body.count == expected.count, "\(path)")
            #expect(Data(response.body) == expected, "\(path)")
        }
    }

    @Test("refuses hostile requests with a status and keeps serving")
    func hostileRequests() throws {
        let (folder, _) = try Self.makeSite()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try StaticFileServer(root: folder.appendingPathComponent("site"))
        defer { server.stop() }
        let hugeHeader = "GET / HTTP/1.1\r\nHost: x\r\nX-Fill: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
        #expect(try RawHTTPClient.fetch(port: server.port, hugeHeader).status == "HTTP/1.1 431 Request Header Fields Too Large")
        let longLine = "GET /" + String(repeating: "a", count: 9_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(try RawHTTPClient.fetch(port: server.port, longLine).status == "HTTP/1.1 414 URI Too Long")
        let badEscape = try RawHTTPClient.fetch(port: server.port, "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(badEscape.status == "HTTP/1.1 400 Bad Request")
        let nul = try RawHTTPClient.fetch(port: server.port, "GET /index.html%00.png HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(nul.status == "HTTP/1.1 404 Not Found")
        let post = try RawHTTPClient.fetch(port: server.port, "POST / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(post.status == "HTTP/1.1 405 Method Not Allowed")
        #expect(post.headers["allow"] == "GET, HEAD")
        let traversal = try RawHTTPClient.fetch(port: server.port, "GET /css/..%2f..%2fsecret.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(traversal.status == "HTTP/1.1 404 Not Found")
        #expect(try RawHTTPClient.fetch(port: server.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").status == "HTTP/1.1 200 OK")
    }

    @Test("stop closes the listener")
    func stopCloses() throws {
        let (folder, _) = try Self.makeSite()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try StaticFileServer(root: folder.appendingPathComponent("site"))
        let port = server.port
        #expect(try RawHTTPClient.fetch(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").status == "HTTP/1.1 200 OK")
        server.stop()
        server.stop()
        #expect(throws: RawHTTPClient.Failure.self) { try RawHTTPClient(port: port) }
    }
}
