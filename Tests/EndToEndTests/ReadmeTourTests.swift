@testable import FlowMatrixCLI
import Foundation
import Synchronization
import Testing
@testable import flowmatrix_bench

/// README's tour runs as written (issue 27 §6): `scripts/readme-tour.sh --quick` runs every line of it on the built
/// tree; `bench all` skips a suite whose helper is missing; `diff` of runs of two matrices warns and compares only
/// the jobs both have.
@Suite("README tour", .serialized, .timeLimit(.minutes(10)))
struct ReadmeTourTests {
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test("scripts/readme-tour.sh --quick runs every line of README's tour on the built binaries (127.0.0.1 for the fleet hosts)")
    func tour() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let bin = E2EWorkspace.binary.deletingLastPathComponent().path
        let script = Self.repository.appendingPathComponent("scripts/readme-tour.sh").path
        let p = try ws.start(tool: "/bin/bash", [script, "--quick", "--bin", bin], label: "tour")
        // The quick tour takes two to three minutes on a 2-core machine (30 jobs of it in Chromium); give it room when the
        // machine is loaded.
        do {
            try await ws.waitForExit(p, timeout: .seconds(540))
        } catch {
            // SIGTERM lets the script stop what it started in the background and remove its folder.
            kill(p.processIdentifier, SIGTERM)
            try? await ws.waitForExit(p, timeout: .seconds(30))
            throw error
        }
        let output = ws.output("tour")
        #expect(p.terminationStatus == 0, "\(output.suffix(3000))")
        #expect(output.contains("README tour: every line ran"), "\(output.suffix(3000))")
        for line in ["flowmatrix worker --connect 127.0.0.1:", "flowmatrix serve Matrices/smoke.json --listen 127.0.0.1:",
                     "flowmatrix merge shard-1 shard-2 shard-3 shard-4", "--worker-executable \(bin)/example-worker",
                     "flowmatrix run --resume "] {
            #expect(output.contains(line), "the tour ran '\(line)': \(output.suffix(2000))")
        }
    }

    @Test("diff of runs of two matrices warns, leaves out the jobs of one run only, and reports no regression for them")
    func diffOfTwoMatrices() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("passes", ["pass"])
        try ws.scenario("fails", ["pass", "fail"])
        let small = try ws.matrix("small.json", locales: ["en"])
        let other = """
            {"name": "wider", "corpus": "corpus", "registry": "test",
             "policy": {"retries": 0, "timeout": 30, "seed": 7, "keep": "failures"},
             "axes": {"locale": ["en", "de", "ar"], "orientation": ["portrait"]}}
            """
        try Data(other.utf8).write(to: ws.root.appendingPathComponent("wider.json"))
        let (first, firstOutput) = try await ws.run(["run", small], label: "small")
        #expect(first == 1, "\(firstOutput)")
        let base = try #require(try ws.latestRunID())
        let (second, secondOutput) = try await ws.run(["run", "wider.json"], label: "wider")
        #expect(second == 1, "\(secondOutput)")
        let head = try #require(try ws.latestRunID())

        let (status, text) = try await ws.run(["diff", base, head], label: "diff")
        // Before: the 4 jobs of 'wider' only were "added", the 2 failing ones "new failures" (exit 1, regressions).
        #expect(status == 0, "\(text)")
        #expect(text.contains("warning: \(base) is a run of matrix 'e2e' and \(head) of 'wider': comparing only the 2 job(s)"),
                "\(text)")
        #expect(text.contains("0 only in \(base) and 4 only in \(head) are left out"), "\(text)")
        #expect(text.contains("0 new failures") && text.contains("1 still failing") && text.contains("0 added"), "\(text)")
        #expect(text.contains("No regressions."), "\(text)")

        let (jsonStatus, json) = try await ws.run(["diff", base, head, "--json"], label: "diff-json")
        #expect(jsonStatus == 0)
        let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let different = document?["differentMatrices"] as? [String: Any]
        #expect(different?["baseMatrix"] as? String == "e2e" && different?["headMatrix"] as? String == "wider")
        #expect(different?["onlyInHead"] as? Int == 4 && different?["shared"] as? Int == 2, "\(json)")

        // Runs of one matrix are compared as before, without the warning.
        let (same, sameText) = try await ws.run(["diff", head, base], label: "diff-back")
        #expect(same == 0 && sameText.hasPrefix("warning:"), "the reverse direction warns too: \(sameText)")
        let (again, _) = try await ws.run(["run", small], label: "small-again")
        #expect(again == 1)
        let third = try #require(try ws.latestRunID())
        let (plain, plainText) = try await ws.run(["diff", base, third], label: "diff-same")
        #expect(plain == 0 && !plainText.contains("warning:"), "\(plainText)")
        #expect(plainText.contains("1 still failing") && plainText.contains("1 unchanged"), "\(plainText)")
    }

    @Test("bench all skips a suite whose helper executable is missing, saying why, and runs the rest")
    func benchSkipsMissingHelpers() async throws {
        let ran = Mutex<[String]>([])
        let suites = [
            BenchSuite(name: "needs-helper", overview: "a suite whose helper is missing",
                       missing: { "it starts helper-x, which is not built" }) { _ in ran.withLock { $0.append("needs-helper") } },
            BenchSuite(name: "plain", overview: "a suite that needs nothing") { _ in ran.withLock { $0.append("plain") } },
        ]
        try await BenchCommand.runAll(suites, quick: true)
        #expect(ran.withLock { $0 } == ["plain"])

        // The real suites: a flowmatrix binary alone in a folder has no test-worker beside it.
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let lone = ws.root.appendingPathComponent("lone")
        try FileManager.default.createDirectory(at: lone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: E2EWorkspace.binary, to: lone.appendingPathComponent("flowmatrix"))
        let flowmatrix = lone.appendingPathComponent("flowmatrix").path
        let (alone, aloneOutput) = try await runProgram(flowmatrix, ["bench", "--quick", "floods"], in: ws.root)
        #expect(alone == 2, "\(aloneOutput)")
        #expect(aloneOutput.contains("the benchmarks are in flowmatrix-bench, which is not built beside"), "\(aloneOutput)")
        let bench = E2EWorkspace.binary.deletingLastPathComponent().appendingPathComponent("flowmatrix-bench")
        try FileManager.default.copyItem(at: bench, to: lone.appendingPathComponent("flowmatrix-bench"))
        let (status, output) = try await runProgram(flowmatrix, ["bench", "--quick", "floods"], in: ws.root)
        #expect(status == 2, "\(output)")
        #expect(output.contains("bench floods cannot run: it starts test-worker, which is not built beside"), "\(output)")
    }
}
