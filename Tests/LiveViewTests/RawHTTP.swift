import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client for the tests: raw bytes in, everything until the server closes (or a bound) out. No
/// cookie jar, no redirects: the tests see exactly what the server sends.
struct RawHTTP {
    let fd: Int32

    /// Connects to 127.0.0.1:`port` with a receive timeout, so no read can block a test for long.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        #if canImport(Darwin)
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { sendBytes(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads until the server closes, `limit` bytes, or the receive timeout.
    func readAll(limit: Int = 1 << 24) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < limit {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    func shut() { close(fd) }

    /// One request (`GET path` with these header lines), the whole answer as text.
    static func get(port: Int, _ path: String, headers: [String] = [], host: String? = nil) throws -> String {
        let client = try RawHTTP(port: port)
        defer { client.shut() }
        let lines = ["GET \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")"] + headers
        client.send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        return String(decoding: client.readAll(), as: UTF8.self)
    }
}

/// `send(2)` without SIGPIPE (Linux: MSG_NOSIGNAL; Darwin has no such flag, and the server side ignores SIGPIPE).
func sendBytes(_ fd: Int32, _ base: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
        return Darwin.send(fd, base, count, 0)
    #else
        return Glibc.send(fd, base, count, Int32(MSG_NOSIGNAL))
    #endif
}

extension String {
    /// The status code of an HTTP answer's first line (0 when there is none).
    var httpStatus: Int {
        let parts = split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
    }
}
