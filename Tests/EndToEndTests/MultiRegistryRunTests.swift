import FlowVocabulary
import Foundation
import Journal
import Testing

/// One corpus on two registries (`test` and `test-ui`, the same vocabulary), real processes on loopback.
@Suite("Several registries in one run, end to end", .serialized, .timeLimit(.minutes(4)))
struct MultiRegistryRunTests {
    /// `same` passes everywhere, `ui-bug` fails only in `test-ui` (at its second step), `model-bug` fails in both.
    static func corpus(_ ws: E2EWorkspace, uiBugFixed: Bool = false) throws {
        try ws.scenario("same", ["pass"])
        try ws.scenario("ui-bug", uiBugFixed ? ["pass", "pass"] : ["pass", "fail-in:test-ui"])
        try ws.scenario("model-bug", ["fail"])
    }

    static func matrix(_ ws: E2EWorkspace) throws -> String {
        let text = """
            {"name": "parity", "corpus": "corpus", "registry": ["test", "test-ui"],
             "policy": {"retries": 0, "timeout": 30, "seed": 7},
             "axes": {"locale": ["en", "de"], "orientation": ["portrait"]}}
            """
        try Data(text.utf8).write(to: ws.root.appendingPathComponent("parity.json"))
        return ws.root.appendingPathComponent("parity.json").path
    }

    static func summary(_ ws: E2EWorkspace, _ runID: String) throws -> [String: Any] {
        let url = ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)/summary.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test("serve routes each job to a worker hosting its registry; summary.json and report.html carry the parity view")
    func servedToHostingWorkers() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Self.corpus(ws)
        let matrix = try Self.matrix(ws)
        try Data("e2e-token-0123456789abcdef".utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        var workers: [Process] = []
        for registry in ["test", "test-ui"] {
            workers.append(try ws.startTestWorker(
                ["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--registry", registry, "--slots", "2",
                 "--name", "w-\(registry)", "--exit-after-drain", "--give-up-after", "20"], label: "w-\(registry)"))
        }
        try await ws.waitForExit(serve, timeout: .seconds(120))
        #expect(serve.terminationStatus == 1, "failures exit 1: \(ws.output("serve"))")
        for w in workers { try await ws.waitForExit(w, timeout: .seconds(30)) }
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        let rows = try reader.jobs(run: runID)
        #expect(rows.count == 3 * 2 * 2)
        #expect(Set(rows.map(\.job.registry)) == ["test", "test-ui"])
        for row in rows {
            let attempts = try reader.attempts(run: runID, job: row.job.jobID)
            #expect(!attempts.isEmpty && attempts.allSatisfy { $0.worker == "w-\(row.job.registry)" }, "\(row.job.registry)")
        }
        let summary = try Self.summary(ws, runID)
        let parity = try #require(summary["registryParity"] as? [String: Any])
        #expect(parity["compared"] as? Int == 6)
        #expect(parity["agreeing"] as? Int == 2)
        #expect(parity["failsInAll"] as? Int == 2)
        #expect((parity["failsOnlyIn"] as? [String: Int]) == ["test": 0, "test-ui": 2])
        let parityRows = try #require(parity["rows"] as? [[String: Any]])
        #expect(parityRows.map { $0["kind"] as? String } == ["fails-only-in", "fails-only-in", "fails-in-all", "fails-in-all"])
        #expect(parityRows.prefix(2).allSatisfy { $0["scenarioID"] as? String == "ui-bug" && $0["partStep"] as? Int == 1 })
        #expect((parity["headline"] as? String)?.contains("2 fail only in test-ui") == true)
        let html = try String(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)/report.html"), encoding: .utf8)
        #expect(html.contains("id=\"parity\""))
        #expect(html.contains("fails only in test-ui"))
    }

    @Test("'run' plans registry × configuration jobs, 'plan --explain' names the registry, 'diff' lists fixed disagreements")
    func runPlanAndDiff() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Self.corpus(ws)
        let matrix = try Self.matrix(ws)
        let (planStatus, planOutput) = try await ws.run(["plan", matrix], label: "plan")
        #expect(planStatus == 0, "\(planOutput)")
        #expect(planOutput.contains("on registries 'test', 'test-ui'"), "\(planOutput)")
        #expect(planOutput.contains("test+test-ui"), "\(planOutput)")
        let (_, explained) = try await ws.run(["plan", matrix, "--explain", "registry=test-ui"], label: "explain")
        #expect(explained.contains("registry 'test-ui' runs 2 of the 2 configuration(s)"), "\(explained)")
        let (firstStatus, first) = try await ws.run(["run", matrix, "--workers", "2"], label: "first")
        #expect(firstStatus == 1, "\(first)")
        let base = try #require(try ws.latestRunID())
        try Self.corpus(ws, uiBugFixed: true)
        let (secondStatus, second) = try await ws.run(["run", matrix, "--workers", "2"], label: "second")
        #expect(secondStatus == 1, "\(second)")
        let head = try #require(try ws.latestRunID())
        #expect(base != head)
        let (diffStatus, diffText) = try await ws.run(["diff", base, head], label: "diff")
        #expect(diffStatus == 0, "\(diffText)")
        #expect(diffText.contains("FIXED DISAGREEMENTS (2)"), "\(diffText)")
        #expect(diffText.contains("ui-bug [locale=de,orientation=portrait]: fails only in test-ui at step 2"), "\(diffText)")
        let (jsonStatus, json) = try await ws.run(["diff", base, head, "--json"], label: "diff-json")
        #expect(jsonStatus == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let changes = try #require(document["disagreements"] as? [String: Any])
        #expect((changes["fixedDisagreements"] as? [Any])?.count == 2)
        #expect((changes["newDisagreements"] as? [Any])?.count == 0)
        let parity = try #require(try Self.summary(ws, head)["registryParity"] as? [String: Any])
        #expect((parity["failsOnlyIn"] as? [String: Int]) == ["test": 0, "test-ui": 0])
    }

    @Test("validate checks the corpus against each registry: a step web wires and catalog does not is FS023 on catalog")
    func validatePerRegistry() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let scenario = #"""
            {"id": "s", "title": "S", "steps": [{"verb": "open", "target": "catalog"},
             {"verb": "tap", "target": "catalog.retyr"}, {"verb": "assert", "target": "catalog.title", "arg": "visibel"}]}
            """#
        try Data(scenario.utf8).write(to: ws.root.appendingPathComponent("corpus/s.json"))
        let matrix = #"{"name": "p", "corpus": "corpus", "registry": ["catalog", "web"], "axes": {"locale": ["en"]}}"#
        try Data(matrix.utf8).write(to: ws.root.appendingPathComponent("p.json"))
        let (status, output) = try await ws.run(["validate", "--json", "p.json"], label: "validate")
        #expect(status == 1, "\(output)")
        let findings = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: ws.root.appendingPathComponent("validate.out"))) as? [[String: Any]])
        let codes = findings.compactMap { $0["code"] as? String }
        #expect(codes.sorted() == ["FS022", "FS022", "FS023"], "\(output)")
        let gap = try #require(findings.first { $0["code"] as? String == "FS023" })
        #expect((gap["message"] as? String)?.contains("wired by web but not by registry catalog") == true)
        let (runStatus, run) = try await ws.run(["run", "p.json", "--workers", "1"], label: "run", localWorkers: .flowmatrix)
        #expect(runStatus == 65 && run.contains("FS023"), "\(run)")
    }
}
