import Foundation
import Testing

/// Issue 27 §3 through the real binaries: a typed-axis typo is a finding, `validate` knows the registries'
/// vocabularies (built in, or published by a worker executable), and a run names the axes its registry ignores.
@Suite("typos and registry manifests on the command line", .timeLimit(.minutes(3)))
struct RegistryManifestCLITests {
    func write(_ text: String, _ name: String, in ws: E2EWorkspace) throws {
        try Data(text.utf8).write(to: ws.root.appendingPathComponent(name))
    }

    static var catalogWorker: String {
        E2EWorkspace.binary.deletingLastPathComponent().appendingPathComponent("catalog-worker").path
    }

    @Test("a misspelt typed axis fails validate (exit 1) and run (exit 65) with 'did you mean'; customAxes opts out")
    func typoAxis() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        try write(#"{"name": "t", "corpus": "corpus", "registry": "test", "axes": {"lcoale": ["ar", "en"]}}"#, "typo.json", in: ws)
        let (status, output) = try await ws.run(["validate", "typo.json"], label: "validate")
        #expect(status == 1)
        #expect(output.contains("typo.json:1:") && output.contains("MX031") && output.contains("did you mean 'locale'?"), "\(output)")
        #expect(output.contains("1 finding"))
        let (runStatus, runOutput) = try await ws.run(["run", "typo.json"], label: "run")
        #expect(runStatus == 65)
        #expect(runOutput.contains("MX031"))

        try write(#"{"name": "t", "corpus": "corpus", "registry": "test", "customAxes": ["lcoale"], "axes": {"lcoale": ["ar", "en"]}}"#,
                  "declared.json", in: ws)
        let (declaredStatus, declared) = try await ws.run(["validate", "declared.json"], label: "declared")
        #expect(declaredStatus == 0, "\(declared)")
    }

    @Test("validate checks a corpus against the built-in registry's manifest: FS021 and FS022 with 'did you mean'")
    func builtInVocabulary() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try write(#"""
            {"id": "s", "title": "S", "steps": [
             {"verb": "open", "target": "catalog"}, {"verb": "tap", "target": "catalog.retyr"},
             {"verb": "assert", "target": "catalog.title", "arg": "visibel; leading"}]}
            """#, "corpus/s.json", in: ws)
        try write(#"{"name": "c", "corpus": "corpus", "registry": "catalog", "axes": {"locale": ["en"]}}"#, "catalog.json", in: ws)
        let (status, output) = try await ws.run(["validate", "catalog.json"], label: "catalog")
        #expect(status == 1)
        #expect(output.contains("corpus/s.json:3:") && output.contains("FS021") && output.contains("did you mean 'tap:catalog.retry'?"),
                "\(output)")
        #expect(output.contains("FS022") && output.contains("did you mean 'visible'?") && output.contains("'leading'"))
        #expect(output.contains("3 findings"))

        // The web registry wires any selector, but knows its clauses.
        try write(#"{"name": "w", "corpus": "corpus", "registry": "web", "axes": {"locale": ["en"]}}"#, "web.json", in: ws)
        let (webStatus, web) = try await ws.run(["validate", "--json", "web.json"], label: "web")
        #expect(webStatus == 1)
        let findings = try JSONSerialization.jsonObject(with: Data(contentsOf: ws.root.appendingPathComponent("web.out"))) as? [[String: Any]]
        #expect(findings?.compactMap { $0["code"] as? String } == ["FS022", "FS022"], "\(web)")
        // run refuses the same corpus before anything runs.
        let (runStatus, run) = try await ws.run(["run", "web.json", "--workers", "1"], label: "run", localWorkers: .flowmatrix)
        #expect(runStatus == 65 && run.contains("FS022"), "\(run)")
    }

    @Test("a worker publishes its manifests with --list-registries --json; validate --worker-executable checks with them")
    func workerManifests() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (listStatus, names) = try await runProgram(Self.catalogWorker, ["--list-registries"])
        #expect(listStatus == 0 && names == "catalog\n", "one name per line, as before")
        let (jsonStatus, json) = try await runProgram(Self.catalogWorker, ["--list-registries", "--json"])
        #expect(jsonStatus == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(document["manifestVersion"] as? Int == 1)
        let registries = try #require(document["registries"] as? [[String: Any]])
        #expect(registries.first?["name"] as? String == "catalog")
        #expect((registries.first?["axes"] as? [String])?.contains("locale") == true)

        let (builtInStatus, builtIn) = try await ws.run(["worker", "--list-registries"], label: "builtin")
        #expect(builtInStatus == 0 && builtIn == "catalog\nnoop\nweb\n", "\(builtIn)")
        let (allStatus, all) = try await ws.run(["worker", "--allow-commands", "--list-registries", "--json"], label: "all")
        #expect(allStatus == 0 && all.contains(#""manifestVersion" : 1"#) && all.contains(#""name" : "command""#), "\(all)")

        try write(#"{"id": "s", "title": "S", "steps": [{"verb": "tap", "target": "catalog.retyr"}]}"#, "corpus/s.json", in: ws)
        try write(#"{"name": "c", "corpus": "corpus", "registry": "catalog", "axes": {"locale": ["en"]}}"#, "m.json", in: ws)
        let (status, output) = try await ws.run(["validate", "--worker-executable", Self.catalogWorker, "m.json"], label: "catalog")
        #expect(status == 1 && output.contains("FS021"), "\(output)")
        // test-worker publishes no `catalog` manifest: nothing to check the steps against.
        let (testStatus, test) = try await ws.run(["validate", "--worker-executable", E2EWorkspace.testWorker, "m.json"], label: "test")
        #expect(testStatus == 0, "\(test)")
    }

    @Test("a run says once which axes its registry ignores")
    func ignoredAxisNote() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        try write(#"{"name": "n", "corpus": "corpus", "registry": "noop", "axes": {"flavor": ["a", "b"], "motion": ["reduced"]}}"#,
                  "noop.json", in: ws)
        let (status, output) = try await ws.run(["run", "noop.json", "--workers", "1"], label: "run",
                                                localWorkers: .flowmatrix)
        #expect(status == 0, "\(output)")
        let flavor = "note: registry noop ignores axis 'flavor' (custom): its values do not change what runs"
        #expect(output.components(separatedBy: flavor).count == 2, "said exactly once: \(output)")
        #expect(output.contains("note: registry noop ignores axis 'motion' (typed, not applied by this registry)"))
    }
}
