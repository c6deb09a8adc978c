import Foundation
import Testing

/// The `flowmatrix` binary's contract with its users: findings, help, usage errors and exit codes.
@Suite("flowmatrix command line", .timeLimit(.minutes(2)))
struct CommandLineTests {
    @Test("validate reports every finding of a broken folder in one run with codes and exit 1; clean files exit 0 saying what was checked")
    func validateFolder() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let broken = ws.root.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data(#"{"id": "a", "title": "A", "steps": []}"#.utf8).write(to: broken.appendingPathComponent("a.json"))
        try Data(#"{"id": "b", "title": "B", "steps": [{"verb": "swipe", "target": "list", "arg": "sideways"}]}"#.utf8)
            .write(to: broken.appendingPathComponent("b.json"))
        try Data("{\"id\": \"c\",\n \"title\": }".utf8).write(to: broken.appendingPathComponent("c.json"))
        try Data(#"{"id": "a", "title": "again", "steps": [{"verb": "fly", "target": "x"}]}"#.utf8)
            .write(to: broken.appendingPathComponent("d.json"))
        let (status, output) = try await ws.run(["validate", "broken"], label: "validate")
        #expect(status == 1)
        for code in ["FS005", "FS009", "FS001", "FS006"] { #expect(output.contains(code), "\(code) in \(output)") }
        #expect(output.contains("broken/c.json:2:"), "malformed JSON names its line: \(output)")

        let (jsonStatus, both) = try await ws.run(["validate", "--json", "broken/b.json"], label: "json")
        #expect(jsonStatus == 1)
        // stdout is one JSON document; what was checked goes to stderr.
        let json = try Data(contentsOf: ws.root.appendingPathComponent("json.out"))
        #expect(both.hasSuffix("checked 1 scenario file, 0 matrices: 1 finding\n"))
        let findings = try JSONSerialization.jsonObject(with: json) as? [[String: Any]]
        #expect(findings?.first?["code"] as? String == "FS009")
        #expect(findings?.first.map { Set($0.keys).isSuperset(of: ["file", "code", "path", "message"]) } == true)

        try ws.scenario("good", ["pass"])
        let (goodStatus, goodOutput) = try await ws.run(["validate", "corpus"], label: "good")
        #expect(goodStatus == 0)
        #expect(goodOutput == "checked 1 scenario file, 0 matrices: 0 findings\n")
    }

    @Test("usage errors exit 64 with the usage line; help exits 0")
    func usage() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await ws.run(["validate"], label: "missing")
        #expect(status == 64)
        #expect(output.contains("Usage: flowmatrix validate"))
        let (flagStatus, _) = try await ws.run(["run", "m.json", "--workers", "zero"], label: "flag")
        #expect(flagStatus == 64)
        let (helpStatus, help) = try await ws.run(["help", "run"], label: "help")
        #expect(helpStatus == 0)
        #expect(help.contains("OVERVIEW:") && help.contains("USAGE:") && help.contains("OPTIONS:"))
        let (versionStatus, _) = try await ws.run(["--version"], label: "version")
        #expect(versionStatus == 0)
    }

    @Test("a matrix with findings does not start a run: findings printed, exit 65")
    func badMatrix() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        try Data(#"{"name": "bad", "corpus": "corpus", "registry": "test", "axes": {"locale": ["en", "xx-!!"], "window": ["9x"]}}"#.utf8)
            .write(to: ws.root.appendingPathComponent("bad.json"))
        let (status, output) = try await ws.run(["run", "bad.json"], label: "run")
        #expect(status == 65)
        #expect(output.contains("MX"))
        let runID = FileManager.default.fileExists(atPath: ws.journalPath) ? try ws.latestRunID() : nil
        #expect(runID == nil, "no run was journaled")
    }

    @Test("plan --json prints configurations, jobs and counts, values as strings")
    func planJSON() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        try ws.scenario("two", ["pass"])
        let matrix = try ws.matrix(locales: ["en", "de", "ar"])
        let (status, output) = try await ws.run(["plan", "--json", matrix], label: "plan")
        #expect(status == 0, "\(output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let configurations = try #require(object["configurations"] as? [[String: String]])
        let jobs = try #require(object["jobs"] as? [[String: Any]])
        #expect(configurations.count == 3)
        #expect(Set(configurations.compactMap { $0["locale"] }) == ["en", "de", "ar"])
        #expect(jobs.count == 6)
        #expect(jobs.allSatisfy { ($0["id"] as? String)?.count == 16 && $0["scenario"] != nil && $0["configuration"] != nil })
        #expect(object["counts"] is [String: Any])
    }

    @Test("serve refuses a non-loopback address without a token")
    func serveNeedsToken() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix()
        let (status, output) = try await ws.run(["serve", matrix, "--listen", "0.0.0.0:0"], label: "serve")
        #expect(status == 64)
        #expect(output.contains("needs --token-file"))
    }
}
