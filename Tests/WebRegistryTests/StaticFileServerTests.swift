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
}
