import Testing
import Wire

@Suite("named steps: a step past the declared ones carries its name in its message")
struct NamedStepTests {
    @Test("a name and a message round-trip; the separator cannot be forged from inside the name")
    func roundTrip() throws {
        let text = NamedStep.message(name: "test:suite.test_a", message: "boom\nline two")
        let split = try #require(NamedStep.split(text))
        #expect(split.name == "test:suite.test_a")
        #expect(split.message == "boom\nline two")
        let forged = try #require(NamedStep.split(NamedStep.message(name: "a\u{1E}b", message: "m")))
        #expect(forged.name == "ab" && forged.message == "m")
        #expect(try #require(NamedStep.split(NamedStep.message(name: "t", message: ""))).message == "")
    }

    @Test("an ordinary message names no step", arguments: ["", "exited with status 1", "\u{1E}no end"])
    func plain(_ message: String) {
        #expect(NamedStep.split(message) == nil)
    }
}
