import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A blocking loopback client that sends raw bytes and reads an answer to the end, for the static server's tests.
/// Every read is bounded (`SO_RCVTIMEO`), so a test never hangs on a server that does not answer.
struct RawHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// An answer: status line, header fields by lower-cased name, body.
    struct Response {
        var status: String
        var headers: [String: String]
        var body: [UInt8]
    }

    let fd: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: Int, readTimeoutSeconds: Int = 20) throws {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port) failed")
        }
        self.fd = fd
    }

    /// Sends all of `bytes`; false when the server closed first.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Darwin)
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            #else
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #endif
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads until the server closes, then closes this end.
    func readResponse() throws -> Response {
        defer { close(fd) }
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 { throw Failure(description: "read failed or timed out (errno \(errno))") }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) })
        else { throw Failure(description: "no complete head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Response(status: lines[0], headers: headers, body: Array(bytes[(end + 4)...]))
    }

    /// One request, one answer.
    static func fetch(port: Int, _ request: String) throws -> Response {
        let client = try RawHTTPClient(port: port)
        client.send(Array(request.utf8))
        return try client.readResponse()
    }
}
