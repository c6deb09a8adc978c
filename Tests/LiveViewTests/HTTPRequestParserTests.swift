import MatrixPlan
import Testing
import UVTransport

@Suite("HTTP request parser")
struct HTTPRequestParserTests {
    static let good = Array("GET /events?token=a%2Fb&x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n".utf8)

    @Test("a request parses the same fed at once and byte by byte")
    func wholeAndByteByByte() throws {
        var whole = HTTPRequestParser()
        guard case .request(let a) = whole.feed(Self.good) else { Issue.record("no request"); return }
        #expect(a.method == "GET" && a.path == "/events")
        #expect(a.query == ["token": "a/b", "x": ""])
        #expect(a.headers["host"] == "127.0.0.1:8080")
        #expect(a.cookie("b") == "2" && a.cookie("a") == "1")
        var split = HTTPRequestParser()
        var last = HTTPRequestParser.Result.needMore
        for (i, byte) in Self.good.enumerated() {
            last = split.feed([byte])
            if i < Self.good.count - 1 { #expect(last == .needMore) }
        }
        #expect(last == .request(a))
    }

    @Test("bad requests get their status", arguments: [
        ("POST / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
        ("GET /?a=%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\u{1}\r\n\r\n", 400),
        ("GARBAGE\r\n\r\n", 400),
    ])
    func refusals(text: String, status: Int) {
        var parser = HTTPRequestParser()
        guard case .failure(let failure) = parser.feed(Array(text.utf8)) else {
            Issue.record("accepted: \(text.debugDescription)")
            return
        }
        #expect(failure.status == status, "\(text.debugDescription): \(failure.reason)")
    }

    @Test("sizes are bounded: request line 414, header bytes and count 431, without waiting for the end")
    func bounds() {
        var limits = HTTPLimits()
        limits.maximumRequestLine = 64
        limits.maximumHeaderBytes = 256
        limits.maximumHeaders = 4
        var long = HTTPRequestParser(limits: limits)
        #expect(long.feed(Array(("GET /" + String(repeating: "a", count: 100)).utf8)) == .failure(HTTPFailure(414, "the request line is longer than 64 bytes")))
        var many = HTTPRequestParser(limits: limits)
        let headers = (0..<5).map { "X-\($0): 1\r\n" }.joined()
        guard case .failure(let f1) = many.feed(Array(("GET / HTTP/1.1\r\n" + headers).utf8)) else { Issue.record("no failure"); return }
        #expect(f1.status == 431)
        var big = HTTPRequestParser(limits: limits)
        guard case .failure(let f2) = big.feed(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 300)).utf8)) else {
            Issue.record("no failure")
            return
        }
        #expect(f2.status == 431)
    }

    @Test("random and mutated bytes never crash the parser and always end in a bounded answer")
    func fuzz() {
        var generator = SplitMix64(seed: 19)
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 600)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = Self.good
                for _ in 0..<Int(generator.next() % 6 + 1) {
                    let at = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[at] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(contentsOf: Array(bytes[at...].prefix(Int(generator.next() % 40))), at: at)
                    }
                }
            }
            var parser = HTTPRequestParser()
            var result = HTTPRequestParser.Result.needMore
            var offset = 0
            while offset < bytes.count, result == .needMore {
                let size = Int(generator.next() % 64) + 1
                result = parser.feed(bytes[offset..<min(bytes.count, offset + size)])
                offset += size
            }
            if case .failure(let failure) = result { #expect([400, 405, 413, 414, 431, 505].contains(failure.status)) }
            if case .request(let request) = result { #expect(request.method == "GET" || request.method == "HEAD") }
        }
    }
}
