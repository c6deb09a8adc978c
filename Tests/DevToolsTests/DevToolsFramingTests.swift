import DevTools
import Testing

@Suite("DevTools framing and message decoding")
struct DevToolsFramingTests {
    static let stream: [UInt8] =
        Array(#"{"id":1,"result":{"a":1}}"#.utf8) + [0]
        + Array(#"{"method":"Page.loadEventFired","sessionId":"S1","params":{"timestamp":2.5}}"#.utf8) + [0]
        + Array(#"{"id":2,"error":{"code":-32000,"message":"No such thing"},"sessionId":"S1"}"#.utf8) + [0]

    static let expected: [DevToolsMessage] = [
        .response(id: 1, sessionID: nil, result: ["a": 1]),
        .event(method: "Page.loadEventFired", sessionID: "S1", params: ["timestamp": 2.5]),
        .failure(id: 2, sessionID: "S1", code: -32000, message: "No such thing"),
    ]

    static func decodeAll(_ chunks: [[UInt8]]) throws -> [DevToolsMessage] {
        var decoder = DevToolsFrameDecoder()
        var out: [DevToolsMessage] = []
        for chunk in chunks {
            decoder.append(chunk)
            while let message = try decoder.next() { out.append(try DevToolsMessage.decode(message)) }
        }
        return out
    }

    @Test("messages decode the same fed byte by byte, all at once and message by message")
    func chunkings() throws {
        #expect(try Self.decodeAll(Self.stream.map { [$0] }) == Self.expected)
        #expect(try Self.decodeAll([Self.stream]) == Self.expected)
        let perMessage = Self.stream.split(separator: 0).map { Array($0) + [0] }
        #expect(try Self.decodeAll(perMessage) == Self.expected)
    }

    @Test(
        "malformed messages are errors with a code, never a crash",
        arguments: [
            "not json", "[1,2]", #"{"id":"seven","result":{}}"#, #"{"sessionId":5,"method":"X"}"#, #"{"foo":1}"#, "",
        ])
    func malformed(_ text: String) {
        #expect(throws: DevToolsError.self) { try DevToolsMessage.decode(Array(text.utf8)) }
        do {
            _ = try DevToolsMessage.decode(Array(text.utf8))
        } catch {
            #expect(error.code == .malformedMessage)
        }
    }

    @Test("a message past the size limit without a separator is an error and the decoder recovers")
    func oversized() throws {
        var decoder = DevToolsFrameDecoder(maxMessageSize: 16)
        decoder.append(Array(repeating: UInt8(ascii: "x"), count: 40))
        #expect(throws: DevToolsError.self) { _ = try decoder.next() }
        decoder.append(Array(#"{"id":3,"result":{}}"#.utf8) + [0])
        let next = try #require(try decoder.next())
        #expect(try DevToolsMessage.decode(next) == .response(id: 3, sessionID: nil, result: [:]))
    }

    @Test("commands encode as one JSON object and a NUL, strings escaped")
    func encode() throws {
        let bytes = DevToolsMessage.encodeCommand(
            id: 7, method: "Runtime.evaluate",
            params: ["expression": "a\"b\n\u{1}"], sessionID: "S")
        #expect(bytes.last == 0)
        let parsed = try JSONValue.parse(bytes.dropLast())
        #expect(parsed["id"]?.int == 7)
        #expect(parsed["sessionId"]?.string == "S")
        #expect(parsed["params"]?["expression"]?.string == "a\"b\n\u{1}")
    }
}
