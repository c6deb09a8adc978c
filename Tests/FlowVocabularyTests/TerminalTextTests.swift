import FlowVocabulary
import Testing

@Suite("Terminal text")
struct TerminalTextTests {
    @Test("a multi-line message keeps its lines, indented, and escapes every other control")
    func lines() {
        let stderr = "exit 1\nerror: \u{1B}[2Jdisk full\r\nat \u{202E}main.c:3\n\n"
        #expect(stderr.terminalSafeLines(indent: "  ") == "exit 1\n  error: \\u{1B}[2Jdisk full\n  at \\u{202E}main.c:3")
        #expect("one\rtwo\r".terminalSafeLines(indent: "  ") == "one\\u{D}two\\u{D}")
        #expect("a\u{0}b".terminalSafeLines(indent: " ") == "a\\u{0}b")
        #expect("".terminalSafeLines(indent: " ") == "")
    }

    @Test("a one-line value writes its newline visibly")
    func oneLine() {
        #expect("a\nb\tc".terminalSafe == "a\\u{A}b\tc")
    }
}
