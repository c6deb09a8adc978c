import Foundation
import ProcessSpawn
import Testing

/// `flowmatrix ci …`: the generated files parse (PyYAML), name only real keys (the engines' published schemas, as
/// vendored by check-jsonschema and kubernetes-validate; `systemd-analyze verify`), and their commands work.
/// The Python tools come from `scripts/install-deps.sh test`.
@Suite("ci engine files", .serialized, .timeLimit(.minutes(3)))
struct EngineFileTests {
    /// The path of `name` as the shell finds it on PATH (pyenv shims included), or nil.
    static func tool(_ name: String) async -> String? {
        guard let (status, output) = try? await runProgram("/bin/sh", ["-c", "command -v \"$0\"", name]) else { return nil }
        let path = output.trimmingCharacters(in: .whitespacesAndNewlines)
        return status == 0 && path.hasPrefix("/") ? path : nil
    }

    static func requireTool(_ name: String) async throws -> String {
        guard let path = await tool(name) else {
            let message = "'\(name)' is missing from PATH: run scripts/install-deps.sh test "
                + "(PyPI: pyyaml check-jsonschema kubernetes-validate)"
            Issue.record(Comment(rawValue: message))
            throw CancellationError()
        }
        return path
    }

    /// Generates `flowmatrix ci args…` into `file` and returns its documents as JSON objects (PyYAML's reading).
    static func generate(_ ws: E2EWorkspace, _ args: [String], into file: String) async throws -> [[String: Any]] {
        let (status, output) = try await ws.run(["ci"] + args, label: "ci-\(file)")
        #expect(status == 0, "\(output)")
        let text = try String(contentsOf: ws.root.appendingPathComponent("ci-\(file).out"), encoding: .utf8)
        try Data(text.utf8).write(to: ws.root.appendingPathComponent(file))
        let python = try await requireTool("python3")
        let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
        let (parsed, json) = try await ws.runTool(python, ["-c", script, file])
        #expect(parsed == 0, "PyYAML parses \(file): \(json)")
        let documents = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        return try #require(documents, "\(file): \(json.prefix(300))")
    }

    static func corpus(_ ws: E2EWorkspace) throws -> String {
        try ws.scenario("passes", ["pass"])
        try ws.scenario("fails", ["pass", "fail"])
        _ = try ws.matrix(locales: ["en", "de", "ar"])
        return "m.json"
    }

    /// Runs a generated shell line with `/bin/sh` in the workspace, the built binary standing in for `flowmatrix` (and
    /// `bin/flowmatrix`, the binary the CI build job hands to the shards); `paths` maps a pod's mount paths to folders
    /// of the workspace (default: `/results` to `results`).
    static func shell(_ ws: E2EWorkspace, _ line: String, environment: [String: String] = [:],
                      paths: [String: String] = ["/results": "results"]) async throws -> (Int32, String) {
        // `flowmatrix` on PATH is the built binary, as in the engines' images (through a wrapper: see below).
        let bin = ws.root.appendingPathComponent("bin")
        if !FileManager.default.fileExists(atPath: bin.path) {
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            // The built binary, whose `run` starts test-worker (the corpus's `test` registry) as its local workers.
            let wrapper = """
                #!/bin/sh
                if [ "$1" = run ]; then shift; exec '\(E2EWorkspace.binary.path)' run --worker-executable \
                  '\(E2EWorkspace.testWorker)' "$@"; fi
                exec '\(E2EWorkspace.binary.path)' "$@"

                """
            let path = bin.appendingPathComponent("flowmatrix").path
            guard FileManager.default.createFile(atPath: path, contents: Data(wrapper.utf8),
                                                 attributes: [.posixPermissions: 0o755]) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        var command = line
        for (mount, folder) in paths {
            command = command.replacingOccurrences(of: mount, with: ws.root.appendingPathComponent(folder).path)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = ws.root
        var env = ProcessInfo.processInfo.environment
        for key in ["CI_NODE_INDEX", "CI_NODE_TOTAL", "JOB_COMPLETION_INDEX", "BUILDKITE_PARALLEL_JOB"] { env[key] = nil }
        for (k, v) in environment { env[k] = v }
        env["PATH"] = bin.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        p.environment = env
        let log = ws.root.appendingPathComponent("sh-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)  // FileHandle below fails if it did not
        let handle = try FileHandle(forWritingTo: log)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        if !(await p.exited(timeout: .seconds(600))) {
            await p.stop()
            Issue.record("'\(line)' did not finish within 600 s")
        }
        try handle.close()
        return (p.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// The triggers of a workflow: PyYAML reads the key `on` as the boolean true (YAML 1.1), which JSON spells "true".
    static func triggers(_ workflow: [String: Any]) -> [String: Any]? {
        (workflow["on"] ?? workflow["true"]) as? [String: Any]
    }

    /// The steps' `run` lines that build flowmatrix.
    static func builds(_ steps: [[String: Any]]) -> [String] {
        steps.compactMap { $0["run"] as? String }.filter { $0.contains("swift build") }
    }

    @Test("GitHub Actions: a valid workflow (github-workflows schema): one build job hands the binary to the shards, nightly schedule, pinned Swift image; shard and merge steps work")
    func github() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.corpus(ws)
        let docs = try await Self.generate(ws, ["github", matrix, "--shards", "3"], into: "workflow.yml")
        let schema = try await ws.runTool(try await Self.requireTool("check-jsonschema"),
                                          ["--builtin-schema", "vendor.github-workflows", "workflow.yml"])
        #expect(schema.0 == 0, "\(schema.1)")
        let workflow = try #require(docs.first)
        let on = try #require(Self.triggers(workflow), "\(workflow.keys)")
        #expect((on["schedule"] as? [[String: Any]])?.first?["cron"] as? String == "0 3 * * *", "nightly: \(on)")
        #expect(on.keys.contains("push") && on.keys.contains("pull_request"))
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        #expect(Set(jobs.keys) == ["build", "shard", "merge"])
        for (name, job) in jobs {
            #expect((job as? [String: Any])?["container"] as? String == "swift:6.3.1-bookworm", "\(name) pins Swift 6.3.1")
        }
        let build = try #require(jobs["build"] as? [String: Any])
        let buildSteps = try #require(build["steps"] as? [[String: Any]])
        #expect(Self.builds(buildSteps).count == 1)
        let upload = try #require(buildSteps.first { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact@") == true })
        #expect((upload["with"] as? [String: Any])?["name"] as? String == "flowmatrix-binary")
        #expect((upload["with"] as? [String: Any])?["path"] as? String == "bin/flowmatrix")
        let shard = try #require(jobs["shard"] as? [String: Any])
        #expect(shard["needs"] as? String == "build")
        let strategy = try #require(shard["strategy"] as? [String: Any])
        #expect((strategy["matrix"] as? [String: Any])?["shard"] as? [Int] == [1, 2, 3])
        #expect(strategy["fail-fast"] as? Bool == false)
        let merge = try #require(jobs["merge"] as? [String: Any])
        #expect(merge["needs"] as? [String] == ["build", "shard"])
        let shardSteps = try #require(shard["steps"] as? [[String: Any]])
        let mergeSteps = try #require(merge["steps"] as? [[String: Any]])
        for steps in [shardSteps, mergeSteps] {
            #expect(Self.builds(steps).isEmpty, "only the build job builds")
            let binary = steps.first { ($0["with"] as? [String: Any])?["name"] as? String == "flowmatrix-binary" }
            #expect((binary?["uses"] as? String)?.hasPrefix("actions/download-artifact@") == true)
        }
        #expect(shardSteps.contains { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact@") == true })
        #expect(mergeSteps.contains { ($0["with"] as? [String: Any])?["pattern"] as? String == "flowmatrix-shard-*" })
        #expect(mergeSteps.last?["uses"] as? String == "actions/upload-artifact@v4", "the merge job publishes the report")

        // The steps' commands, as the runner would run them for each matrix entry, then the merge after download.
        let runLine = try #require(shardSteps.compactMap { $0["run"] as? String }.first { $0.contains(" run ") })
        #expect(runLine.hasPrefix("bin/flowmatrix run "), "the shard runs the downloaded binary: \(runLine)")
        for i in 1...3 {
            let line = runLine.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(i)")
                .replacingOccurrences(of: "--store shard-store", with: "--store shards/flowmatrix-shard-\(i)")
            let (status, output) = try await Self.shell(ws, line)
            #expect(status <= 1, "\(line): \(output)")
        }
        let mergeLine = try #require(mergeSteps.compactMap { $0["run"] as? String }.first { $0.contains(" merge ") })
        let (status, output) = try await Self.shell(ws, mergeLine)
        #expect(status == 1, "the merge fails the workflow on failures: \(output)")
        #expect(output.contains("merged 3 shard(s)"), "\(output)")

        let unscheduled = try await Self.generate(ws, ["github", matrix, "--shards", "2", "--schedule", "none"],
                                                  into: "unscheduled.yml")
        #expect(Self.triggers(unscheduled.first ?? [:])?["schedule"] == nil, "--schedule none drops the trigger")
        let (bad, badOutput) = try await ws.run(["ci", "github", matrix, "--shards", "2", "--schedule", "nightly"],
                                                label: "bad-schedule")
        #expect(bad == 64 && badOutput.contains("cron"), "\(badOutput)")
    }

    @Test("GitLab CI: a valid pipeline (gitlab-ci schema): one build job's binary artifact, scheduled pipelines, pinned Swift image; parallel shards use CI_NODE_INDEX; the merge works")
    func gitlab() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.corpus(ws)
        let docs = try await Self.generate(ws, ["gitlab", matrix, "--shards", "2"], into: "gitlab-ci.yml")
        let schema = try await ws.runTool(try await Self.requireTool("check-jsonschema"),
                                          ["--builtin-schema", "vendor.gitlab-ci", "gitlab-ci.yml"])
        #expect(schema.0 == 0, "\(schema.1)")
        let pipeline = try #require(docs.first)
        #expect(pipeline["stages"] as? [String] == ["build", "test", "report"])
        #expect((pipeline["default"] as? [String: Any])?["image"] as? String == "swift:6.3.1-bookworm")
        let rules = ((pipeline["workflow"] as? [String: Any])?["rules"] as? [[String: Any]]) ?? []
        #expect(rules.contains { $0["if"] as? String == "$CI_PIPELINE_SOURCE == \"schedule\"" }, "\(rules)")
        let build = try #require(pipeline["flowmatrix-build"] as? [String: Any])
        #expect((build["artifacts"] as? [String: Any])?["paths"] as? [String] == ["bin/flowmatrix"])
        let jobs = pipeline.filter { $0.key.hasPrefix("flowmatrix-") }
        let building = jobs.filter { ($0.value as? [String: Any])?["script"].map { "\($0)".contains("swift build") } == true }
        #expect(building.map(\.key) == ["flowmatrix-build"], "one build job")
        let shard = try #require(pipeline["flowmatrix-shard"] as? [String: Any])
        #expect(shard["parallel"] as? Int == 2)
        #expect((shard["needs"] as? [[String: Any]])?.first?["job"] as? String == "flowmatrix-build")
        #expect((shard["artifacts"] as? [String: Any])?["when"] as? String == "always")
        let merge = try #require(pipeline["flowmatrix-merge"] as? [String: Any])
        #expect(merge["when"] as? String == "always")
        #expect(Set((merge["needs"] as? [[String: Any]] ?? []).compactMap { $0["job"] as? String })
                == ["flowmatrix-build", "flowmatrix-shard"])
        let reports = (merge["artifacts"] as? [String: Any])?["reports"] as? [String: Any]
        #expect(reports?["junit"] as? String == "merged/runs/*/junit.xml")
        for i in 1...2 {
            for line in shard["script"] as? [String] ?? [] {
                let (status, output) = try await Self.shell(ws, line, environment: ["CI_NODE_INDEX": "\(i)", "CI_NODE_TOTAL": "2"])
                #expect(status <= 1, "\(line): \(output)")
                #expect(output.contains("shard \(i)/2 (from CI_NODE_INDEX/CI_NODE_TOTAL)"), "\(output)")
            }
        }
        for line in merge["script"] as? [String] ?? [] {
            let (status, output) = try await Self.shell(ws, line)
            #expect(status == 1 && output.contains("merged 2 shard(s)"), "\(output)")
        }
    }

    @Test("Kubernetes: ReadWriteOnce claims only: a claim and a Job per shard, a merge Job over every claim, a fetch pod; strict schema validation; the commands work as written")
    func kubernetes() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.corpus(ws)
        let docs = try await Self.generate(ws, ["kubernetes", matrix, "--shards", "3", "--image", "registry.example/flowmatrix:1"],
                                           into: "shards.yml")
        let validate = try await ws.runTool(try await Self.requireTool("kubernetes-validate"), ["--strict", "--quiet", "shards.yml"])
        #expect(validate.0 == 0, "\(validate.1)")
        let kinds = docs.map { $0["kind"] as? String ?? "?" }
        #expect(kinds == ["PersistentVolumeClaim", "Job", "PersistentVolumeClaim", "Job", "PersistentVolumeClaim", "Job",
                          "PersistentVolumeClaim", "Job", "Pod"])
        func name(_ doc: [String: Any]) -> String { (doc["metadata"] as? [String: Any])?["name"] as? String ?? "" }
        func component(_ doc: [String: Any]) -> String {
            ((doc["metadata"] as? [String: Any])?["labels"] as? [String: Any])?["app.kubernetes.io/component"] as? String ?? ""
        }
        for claim in docs where claim["kind"] as? String == "PersistentVolumeClaim" {
            #expect((claim["spec"] as? [String: Any])?["accessModes"] as? [String] == ["ReadWriteOnce"], "\(name(claim))")
        }
        #expect(docs.map(component) == ["shard", "shard", "shard", "shard", "shard", "shard", "merge", "merge", "fetch"],
                "kubectl apply -l selects each stage")
        func pod(_ doc: [String: Any]) throws -> [String: Any] {
            let spec = try #require(doc["spec"] as? [String: Any])
            return try #require(doc["kind"] as? String == "Pod" ? spec : (spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        }
        func claims(_ doc: [String: Any]) throws -> [String] {
            try (pod(doc)["volumes"] as? [[String: Any]] ?? []).compactMap {
                ($0["persistentVolumeClaim"] as? [String: Any])?["claimName"] as? String
            }
        }
        func script(_ doc: [String: Any]) throws -> String {
            let container = try #require((try pod(doc)["containers"] as? [[String: Any]])?.first)
            #expect(container["image"] as? String == "registry.example/flowmatrix:1")
            return try #require((container["command"] as? [String])?.last)
        }
        let shardJobs = docs.filter { $0["kind"] as? String == "Job" && component($0) == "shard" }
        #expect(shardJobs.map(name) == ["flowmatrix-shard-1", "flowmatrix-shard-2", "flowmatrix-shard-3"])
        for (index, job) in shardJobs.enumerated() {
            #expect(try claims(job) == ["flowmatrix-shard-\(index + 1)"], "each shard on its own volume")
            let affinity = try pod(job)["affinity"] as? [String: Any]
            let term = ((affinity?["podAffinity"] as? [String: Any])?["requiredDuringSchedulingIgnoredDuringExecution"]
                as? [[String: Any]])?.first
            #expect(term?["topologyKey"] as? String == "topology.kubernetes.io/zone", "shards share a zone")
            let folder = "shards/\(index + 1)"
            try FileManager.default.createDirectory(at: ws.root.appendingPathComponent(folder), withIntermediateDirectories: true)
            let (status, output) = try await Self.shell(ws, try script(job), paths: ["/results": folder])
            #expect(status == 0, "a shard pod succeeds when its jobs ran, failures or not: \(output)")
            #expect(output.contains("shard \(index + 1)/3"), "\(output)")
        }
        let merge = try #require(docs.first { name($0) == "flowmatrix-merge" })
        #expect(try claims(merge) == ["flowmatrix-shard-1", "flowmatrix-shard-2", "flowmatrix-shard-3", "flowmatrix-report"])
        try FileManager.default.createDirectory(at: ws.root.appendingPathComponent("report"), withIntermediateDirectories: true)
        let (status, output) = try await Self.shell(ws, try script(merge), paths: ["/shards": "shards", "/report": "report"])
        #expect(status == 0 && output.contains("merged 3 shard(s)") && output.contains("verdict: 1"), "\(output)")
        let verdict = try String(contentsOf: ws.root.appendingPathComponent("report/merged/verdict"), encoding: .utf8)
        #expect(verdict == "1\n", "the run's verdict, for 'kubectl exec flowmatrix-fetch -- cat'")
        let fetch = try #require(docs.last)
        let fetchClaims = try claims(fetch)
        #expect(name(fetch) == "flowmatrix-fetch" && fetchClaims == ["flowmatrix-report"])
        let text = try String(contentsOf: ws.root.appendingPathComponent("shards.yml"), encoding: .utf8)
        #expect(!text.contains("ReadWriteMany"))
        #expect(text.contains("kubectl cp flowmatrix-fetch:/report/merged/runs"), "the file says how to fetch the report")
    }

    @Test("Kubernetes fleet: Secret, Service, coordinator Job and workers Deployment pass strict schema validation")
    func kubernetesFleet() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.corpus(ws)
        let docs = try await Self.generate(ws, ["kubernetes-fleet", matrix, "--image", "registry.example/flowmatrix:1",
                                                "--workers", "3"], into: "fleet.yml")
        let validate = try await ws.runTool(try await Self.requireTool("kubernetes-validate"), ["--strict", "--quiet", "fleet.yml"])
        #expect(validate.0 == 0, "\(validate.1)")
        #expect(docs.map { $0["kind"] as? String } == ["Secret", "Service", "PersistentVolumeClaim", "Job", "Deployment"])
        let token = try #require((docs[0]["stringData"] as? [String: Any])?["token"] as? String)
        #expect(token.count == 64)
        let deployment = try #require(docs[4]["spec"] as? [String: Any])
        #expect(deployment["replicas"] as? Int == 3)
        let text = try String(contentsOf: ws.root.appendingPathComponent("fleet.yml"), encoding: .utf8)
        #expect(text.contains("secretKeyRef"), "workers read the token from the Secret")
    }

    @Test("systemd: the worker unit passes 'systemd-analyze verify' without a warning")
    func systemdWorker() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await ws.run(["ci", "systemd", "--connect", "10.0.0.5:7700", "--slots", "4",
                                                 "--binary", E2EWorkspace.binary.path], label: "unit")
        #expect(status == 0, "\(output)")
        let unit = try String(contentsOf: ws.root.appendingPathComponent("unit.out"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(E2EWorkspace.binary.path) worker --connect 10.0.0.5:7700"))
        #expect(unit.contains("RestartPreventExitStatus=3 64"))
        let file = ws.root.appendingPathComponent("flowmatrix-worker.service")
        try Data(unit.utf8).write(to: file)
        guard let analyze = await Self.tool("systemd-analyze") else {
            print("NOT RUN: systemd-analyze is not installed here (Debian package 'systemd'); the unit was not verified")
            return
        }
        let (verified, messages) = try await ws.runTool(analyze, ["verify", file.path])
        #expect(verified == 0, "\(messages)")
        #expect(messages.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "no warnings: \(messages)")
        let (usage, usageOutput) = try await ws.run(["ci", "systemd-worker", "--connect", "coordinator.local"], label: "bad")
        #expect(usage == 64, "\(usageOutput)")
    }
}
