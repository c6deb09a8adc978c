import FlowSpec
import Testing

@Suite("Positioned JSON parser")
struct JSONParserTests {
    @Test("values remember their line and column; members keep file order")
    func positions() throws {
        let root = try JSONParser.parse("{\n  \"b\": [1, true],\n  \"a\": \"x\\u00e9\"\n}")
        #expect(root.members?.map(\.key) == ["b", "a"])
        #expect(root["a"]?.string == "xé")
        #expect(root["a"]?.position == SourcePosition(line: 3, column: 8))
        #expect(root["b"]?.array?[1].bool == true)
    }

    @Test("syntax errors carry a position", arguments: [
        ("{\"a\" 1}", 1, 6),
        ("[1,,2]", 1, 4),
        ("{\"a\": 01}", 1, 8),
        ("\"abc", 1, 5),
        ("{}\n x", 2, 2),
    ])
    func errors(text: String, line: Int, column: Int) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            guard let e = error as? JSONSyntaxError else { return false }
            return e.position == SourcePosition(line: line, column: column)
        }
    }

    @Test("deep nesting is refused, not a stack overflow")
    func depthLimit() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
    }

    @Test("surrogate pairs decode; lone surrogates are refused")
    func surrogates() throws {
        #expect(try JSONParser.parse("\"\\ud83d\\ude00\"").string == "😀")
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse("\"\\ud83d\"") }
    }
}
