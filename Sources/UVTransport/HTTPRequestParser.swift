/// Bounds of the HTTP/1.1 server, with documented defaults (docs/REPORTS.md, "Live view").
public struct HTTPLimits: Sendable, Hashable {
    /// The longest request line (`GET /target HTTP/1.1`), in bytes (default 8 KiB): longer is 414.
    public var maximumRequestLine = 8 << 10
    /// All header lines together, in bytes (default 16 KiB): more is 431.
    public var maximumHeaderBytes = 16 << 10
    /// Header fields (default 64): more is 431.
    public var maximumHeaders = 64
    /// Time from accepting a connection to a complete request head (default 10 s); then the connection closes.
    public var requestTimeout: Duration = .seconds(10)
    /// Connections open at once (default 64); more are closed as they are accepted.
    public var maximumConnections = 64
    /// Bytes queued toward one client beyond which a streaming response closes that client (default 1 MiB): a slow
    /// reader is dropped, never waited for.
    public var maximumOutboundBytes = 1 << 20

    public init() {}
}

/// One request head: only GET and HEAD are accepted, without a body.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET` or `HEAD`.
    public var method: String
    /// The path, up to `?`, as sent (not decoded).
    public var path: String
    /// The query's `name=value` pairs, percent-decoded (the last of a repeated name wins).
    public var query: [String: String]
    /// Header fields by lower-cased name; repeated fields joined with `, ` (`; ` for `cookie`).
    public var headers: [String: String]

    public var isHead: Bool { method == "HEAD" }

    /// The value of cookie `name`, if the request carries it.
    public func cookie(_ name: String) -> String? {
        guard let header = headers["cookie"] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingSpaces == name { return String(pair[1].trimmingSpaces) }
        }
        return nil
    }
}

/// Why a request was refused: the status to answer with and a sentence for the body.
public struct HTTPFailure: Error, Sendable, Hashable {
    public var status: Int
    public var reason: String

    public init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}

/// An incremental parser of one HTTP/1.1 request head, hardened like the protocol's frame decoder: every size is
/// bounded, every byte is checked, and any input ends in a request, a wait for more bytes, or a failure with a
/// status — never a crash. A pure value: feed it bytes as they arrive.
public struct HTTPRequestParser: Sendable {
    /// What feeding bytes gave.
    public enum Result: Sendable, Hashable {
        /// The head is not complete yet.
        case needMore
        case request(HTTPRequest)
        case failure(HTTPFailure)
    }

    public let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// Where the next unparsed line starts.
    private var lineStart = 0
    private var requestLine: (method: String, target: String)?
    /// HTTP/1.1 requires a Host field; HTTP/1.0 does not.
    private var requiresHost = true
    private var headers: [String: String] = [:]
    private var headerCount = 0
    private var headerBytes = 0
    private var finished: Result?

    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// Adds bytes and parses every complete line. Once it returned a request or a failure it returns the same.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Result {
        if let finished { return finished }
        buffer.append(contentsOf: bytes)
        let result = parseLines()
        if result != .needMore { finished = result }
        return result
    }

    private mutating func parseLines() -> Result {
        while true {
            guard let newline = buffer[lineStart...].firstIndex(of: 0x0A) else {
                let pending = buffer.count - lineStart
                if requestLine == nil, pending > limits.maximumRequestLine {
                    return .failure(HTTPFailure(414, "the request line is longer than \(limits.maximumRequestLine) bytes"))
                }
                if requestLine != nil, headerBytes + pending > limits.maximumHeaderBytes {
                    return .failure(HTTPFailure(431, "the header fields are longer than \(limits.maximumHeaderBytes) bytes"))
                }
                return .needMore
            }
            var end = newline
            if end > lineStart, buffer[end - 1] == 0x0D { end -= 1 }
            let line = buffer[lineStart..<end]
            lineStart = newline + 1
            if requestLine == nil {
                // RFC 9112 §2.2: a server should ignore at least one empty line before the request line.
                if line.isEmpty && lineStart <= 2 { continue }
                if line.count > limits.maximumRequestLine {
                    return .failure(HTTPFailure(414, "the request line is longer than \(limits.maximumRequestLine) bytes"))
                }
                switch Self.parseRequestLine(line) {
                case .success(let parsed):
                    requestLine = parsed
                    requiresHost = line.suffix(3).elementsEqual(Array("1.1".utf8))
                case .failure(let failure): return .failure(failure)
                }
                continue
            }
            if line.isEmpty { return finish() }
            headerBytes += line.count + 2
            if headerBytes > limits.maximumHeaderBytes {
                return .failure(HTTPFailure(431, "the header fields are longer than \(limits.maximumHeaderBytes) bytes"))
            }
            headerCount += 1
            if headerCount > limits.maximumHeaders {
                return .failure(HTTPFailure(431, "more than \(limits.maximumHeaders) header fields"))
            }
            if let failure = addHeader(line) { return .failure(failure) }
        }
    }

    private static func parseRequestLine(_ line: ArraySlice<UInt8>) -> Swift.Result<(method: String, target: String), HTTPFailure> {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            return .failure(HTTPFailure(400, "a request line is METHOD SP target SP HTTP/1.1"))
        }
        let version = parts[2]
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)), version[version.startIndex + 6] == 0x2E,
              isDigit(version[version.startIndex + 5]), isDigit(version[version.startIndex + 7])
        else { return .failure(HTTPFailure(400, "the request line does not end in an HTTP version")) }
        guard version.elementsEqual(Array("HTTP/1.1".utf8)) || version.elementsEqual(Array("HTTP/1.0".utf8)) else {
            return .failure(HTTPFailure(505, "only HTTP/1.0 and HTTP/1.1 are served"))
        }
        let target = parts[1]
        // origin-form only: a path starting with '/', visible ASCII.
        guard target.first == 0x2F, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(HTTPFailure(400, "the request target must be a path of visible ASCII starting with '/'"))
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        guard method == "GET" || method == "HEAD" else {
            return .failure(HTTPFailure(405, "only GET and HEAD are served"))
        }
        return .success((method, String(decoding: target, as: UTF8.self)))
    }

    private mutating func addHeader(_ line: ArraySlice<UInt8>) -> HTTPFailure? {
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
              line[line.startIndex..<colon].allSatisfy(Self.isTokenByte)
        else { return HTTPFailure(400, "a header field is name: value (no folding, no space before the colon)") }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        // Control characters (other than tab) are never part of a field value.
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
            return HTTPFailure(400, "a header field value has a control character")
        }
        let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
        let text = String(decoding: value, as: UTF8.self)
        if let old = headers[name] {
            guard name != "host", name != "content-length" else { return HTTPFailure(400, "a repeated \(name) field") }
            headers[name] = old + (name == "cookie" ? "; " : ", ") + text
        } else {
            headers[name] = text
        }
        return nil
    }

    private func finish() -> Result {
        guard let (method, target) = requestLine else { return .failure(HTTPFailure(400, "no request line")) }
        if headers["transfer-encoding"] != nil {
            return .failure(HTTPFailure(400, "a GET or HEAD request has no body (Transfer-Encoding)"))
        }
        if let length = headers["content-length"] {
            guard !length.isEmpty, length.utf8.allSatisfy(Self.isDigit) else {
                return .failure(HTTPFailure(400, "Content-Length is not a number"))
            }
            guard length.utf8.allSatisfy({ $0 == 0x30 }) else {
                return .failure(HTTPFailure(413, "a GET or HEAD request has no body"))
            }
        }
        if buffer.count > lineStart { return .failure(HTTPFailure(400, "bytes after the request head")) }
        guard headers["host"] != nil || !requiresHost else {
            return .failure(HTTPFailure(400, "an HTTP/1.1 request needs a Host field"))
        }
        let (path, queryText) = Self.split(target)
        guard let query = Self.parseQuery(queryText) else {
            return .failure(HTTPFailure(400, "the query has a malformed percent escape"))
        }
        return .request(HTTPRequest(method: method, path: path, query: query, headers: headers))
    }

    static func split(_ target: String) -> (path: String, query: Substring) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), target[target.index(after: mark)...])
    }

    /// `a=1&b=%2F` as a dictionary; nil when an escape is malformed or decodes to invalid UTF-8.
    static func parseQuery(_ text: Substring) -> [String: String]? {
        var out: [String: String] = [:]
        for part in text.split(separator: "&") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(pair[0]) else { return nil }
            guard let value = pair.count == 2 ? percentDecoded(pair[1]) : "" else { return nil }
            out[name] = value
        }
        return out
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case 0x25:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case 0x2B: bytes.append(0x20)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// RFC 9110 tchar: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
