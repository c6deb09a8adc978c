import FlowSpec
import Foundation
import Testing

/// Numeric step arguments are range-checked and strictly decimal; bad input is a rule-coded finding, never a trap.
@Suite("Step arguments and hostile scenario input")
struct StepArgumentTests {
    /// Validates one scenario written inline and returns its findings as `CODE path`.
    static func findings(_ json: String) throws -> [String] {
        let root = try JSONParser.parse(json)
        return Scenario.validated(from: root, file: "inline.json").findings.sortedForDisplay().map { "\($0.code) \($0.path)" }
    }

    static func step(_ verb: String, _ arg: String) -> String {
        #"{"id": "s", "title": "S", "steps": [{"verb": "\#(verb)", "target": "list", "arg": \#(arg)}]}"#
    }

    @Test("timeouts out of range are FS018, for wait and assert, plain or timeout=", arguments: [
        ("wait", #""99999999999""#), ("wait", #""86400.5""#), ("wait", #""1000000000000000000000000""#),
        ("assert", #""99999999999""#), ("assert", #""text=Hi; timeout=99999999999""#),
    ])
    func outOfRange(verb: String, arg: String) throws {
        #expect(try Self.findings(Self.step(verb, arg)) == ["FS018 $.steps[0].arg"])
    }

    @Test("hex, exponents, inf, nan and words are not timeouts: FS010", arguments: [
        ("wait", #""0x10""#), ("wait", #""1e3""#), ("wait", #""inf""#), ("wait", #""nan""#), ("wait", #""5s""#),
        ("wait", #""1.2.3""#), ("wait", #"".""#), ("assert", #""timeout=0x10""#), ("assert", #""0x10""#),
    ])
    func notDecimal(verb: String, arg: String) throws {
        #expect(try Self.findings(Self.step(verb, arg)) == ["FS010 $.steps[0].arg"])
    }

    @Test("the edges of the range are accepted", arguments: ["86400", "0.001", "+5", ".5", "5.", " 7 "])
    func accepted(text: String) {
        if case .failure(let problem) = StepArguments.parseSeconds(text) { Issue.record("\(text): \(problem)") }
    }

    @Test("parseSeconds never traps and sorts each problem", arguments: [
        ("99999999999", StepArguments.TimeoutProblem.outOfRange("99999999999")),
        ("1" + String(repeating: "9", count: 400), .outOfRange("1" + String(repeating: "9", count: 400))),
        ("-0", .notPositive("-0")), ("-3", .notPositive("-3")), ("0x10", .notNumeric("0x10")),
    ])
    func problems(text: String, problem: StepArguments.TimeoutProblem) {
        #expect(StepArguments.parseSeconds(text) == .failure(problem))
    }

    @Test("\"arg\": null is FS003 for every verb (leave arg out for the default)", arguments: ["wait", "assert", "tap"])
    func nullArgument(verb: String) throws {
        #expect(try Self.findings(Self.step(verb, "null")) == ["FS003 $.steps[0].arg"])
    }

    @Test("a member named twice is FS019, at the top and inside a step")
    func duplicateMembers() throws {
        let json = """
            {"id": "s", "title": "S", "steps": [{"verb": "tap", "target": "a", "target": "b"}],
             "steps": [{"verb": "open", "target": "home"}]}
            """
        #expect(try Self.findings(json) == ["FS019 $.steps[0].target", "FS019 $.steps"])
        let root = try JSONParser.parse(json)
        #expect(root.duplicateMembers().map(\.position.line) == [1, 2])
    }

    @Test("a file named twice (its folder and itself, or a symlink to it) is read once: no FS015 against itself")
    func fileNamedTwice() throws {
        let folder = Fixture.url("twice")
        let load = ScenarioLoader.loadCorpus(paths: [folder, folder.appendingPathComponent("minimal.json"),
                                                     folder.appendingPathComponent("./minimal.json")])
        #expect(load.findings.isEmpty, "\(load.findings)")
        #expect(load.scenarios.count == 1 && load.filesRead == 1)

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fs-twice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let link = scratch.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder.appendingPathComponent("minimal.json"))
        let linked = ScenarioLoader.loadCorpus(paths: [folder, link])
        #expect(linked.findings.isEmpty && linked.scenarios.count == 1)
        // Two different files with one id are still FS015.
        #expect(ScenarioLoader.loadCorpus(paths: [Fixture.url("duplicates")]).findings.map(\.code) == ["FS015"])
    }

    @Test("an empty corpus folder is FS020")
    func emptyCorpus() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fs-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data("not a scenario".utf8).write(to: scratch.appendingPathComponent("README.md"))
        let load = ScenarioLoader.loadCorpus(paths: [scratch])
        #expect(load.findings.map(\.code) == ["FS020"])
        #expect(load.filesRead == 0)
    }
}
