import FlowVocabulary
import Foundation
import Journal
import Testing

/// `run --shard i/n` and `merge` with real processes: n shards merged are one unsharded run.
@Suite("shards and merge end to end", .serialized, .timeLimit(.minutes(4)))
struct ShardMergeTests {
    /// What must be equal between a merged run and an unsharded one: everything but run ids, workers and times.
    struct RunFacts: Equatable {
        struct Attempt: Equatable {
            var attempt: Int
            var outcome: JobOutcome?
            var failureStep: Int?
            var message: String?
            var superseded: Bool?
            var steps: [String]
        }
        struct Job: Equatable {
            var id: String
            var scenario: String
            var configuration: String
            var outcome: JobOutcome?
            var attempts: Int?
            var failureStep: Int?
            var failureMessage: String?
            var attemptRows: [Attempt]
            /// `attempt/step/name/sha256`.
            var artifacts: [String]
        }
        var jobs: [Job]

        init(journal: String, run runID: String) throws {
            let content = try JournalReader(path: journal).content(run: runID)
            jobs = content.jobs.map { row in
                let attempts = (content.attempts[row.job.jobID] ?? []).map { a in
                    Attempt(attempt: a.attempt.attempt, outcome: a.attempt.result?.outcome,
                            failureStep: a.attempt.result?.failureStep, message: a.attempt.result?.message,
                            superseded: a.attempt.result?.superseded,
                            steps: a.steps.map { "\($0.index):\($0.key):\($0.outcome.rawValue):\($0.message ?? "")" })
                }
                let artifacts = content.artifacts.filter { $0.jobID == row.job.jobID }.map {
                    "\($0.attempt)/\($0.artifact.stepIndex)/\($0.artifact.name)/\($0.artifact.sha256)"
                }
                return Job(id: row.job.jobID, scenario: row.job.scenarioID, configuration: row.job.configuration,
                           outcome: row.result?.outcome, attempts: row.result?.attempts,
                           failureStep: row.result?.failureStep, failureMessage: row.result?.failureMessage,
                           attemptRows: attempts, artifacts: artifacts)
            }
        }
    }

    static func journal(_ ws: E2EWorkspace, _ store: String) -> String {
        ws.root.appendingPathComponent("\(store)/journal.sqlite").path
    }

    static func onlyRun(_ ws: E2EWorkspace, _ store: String) throws -> String {
        let runs = try JournalReader(path: journal(ws, store)).runs()
        #expect(runs.count == 1, "\(store) holds one run")
        return try #require(runs.first?.info.runID)
    }

    /// Runs shard `spec` of `matrix` into `store` with one local worker; expects exit 0 or 1, returns the output.
    static func shard(_ ws: E2EWorkspace, _ matrix: String, _ spec: String, store: String, _ extra: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let (status, output) = try await ws.run(["run", matrix, "--shard", spec, "--workers", "1", "--store", store] + extra,
                                                label: "shard-\(store)")
        #expect(status <= 1, "\(output)", sourceLocation: sourceLocation)
        return output
    }

    /// Passing, failing (with an artifact on the failing attempt), and flaky scenarios over three locales.
    static func mixedCorpus(_ ws: E2EWorkspace) throws -> String {
        try ws.scenario("passes", ["pass", "pass"])
        try ws.scenario("fails", ["pass", "attach:evidence.bin:3000", "fail"])
        try ws.scenario("flaky", ["attach:flaky.bin:500", "flaky"])
        try ws.scenario("quick", ["pass"])
        return try ws.matrix(locales: ["en", "de", "ar"], retries: 1)
    }

    @Test("3 shards merged give the outcomes, job ids, failing steps and artifacts of one unsharded run")
    func mergedEqualsUnsharded() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.mixedCorpus(ws)
        let (refStatus, refOutput) = try await ws.run(["run", matrix, "--workers", "1", "--store", "reference"],
                                                      label: "reference")
        #expect(refStatus == 1, "failures exit 1: \(refOutput)")
        var shardJobs = 0
        for i in 1...3 {
            let output = try await Self.shard(ws, matrix, "\(i)/3", store: "s\(i)")
            #expect(output.contains("shard \(i)/3 (from --shard), split by count"), "\(output)")
            let run = try #require(try JournalReader(path: Self.journal(ws, "s\(i)")).run(try Self.onlyRun(ws, "s\(i)")))
            shardJobs += run.jobCount
            #expect(run.info.settingsJSON.contains("\"index\":\(i)"), "the journal records the shard")
            #expect(run.info.settingsJSON.contains("\"planHash\""), "the journal records the plan hash")
        }
        #expect(shardJobs == 12, "every job in exactly one shard")

        let (status, output) = try await ws.run(["merge", "s1", "s2", "s3", "--store", "merged"], label: "merge")
        #expect(status == 1, "a merge with failures exits 1, like run: \(output)")
        let merged = try Self.onlyRun(ws, "merged")
        let reference = try Self.onlyRun(ws, "reference")
        let expected = try RunFacts(journal: Self.journal(ws, "reference"), run: reference)
        let actual = try RunFacts(journal: Self.journal(ws, "merged"), run: merged)
        #expect(actual == expected)
        #expect(expected.jobs.contains { !$0.artifacts.isEmpty }, "the comparison covers artifacts")
        #expect(expected.jobs.contains { $0.outcome == .flaky } && expected.jobs.contains { $0.failureStep == 2 })

        // The artifacts' blobs came along and the merged run reports like a run.
        let (extract, extractOutput) = try await ws.run(["artifacts", "extract", merged, "--store", "merged", "--out", "out"],
                                                        label: "extract")
        #expect(extract == 0, "\(extractOutput)")
        let folder = ws.root.appendingPathComponent("merged/runs/\(merged)")
        for file in ["report.html", "junit.xml", "summary.json"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path), "\(file)")
        }
        let summary = try String(contentsOf: folder.appendingPathComponent("summary.json"), encoding: .utf8)
        #expect(summary.contains("\"failed\":3"), "\(summary.prefix(400))")
        let (_, runs) = try await ws.run(["runs", "--store", "merged"], label: "runs")
        #expect(runs.contains("\(merged)  completed    e2e [merged from 3 shards]  12 jobs"), "\(runs)")
        let (_, shardRuns) = try await ws.run(["runs", "--store", "s2"], label: "runs-s2")
        #expect(shardRuns.contains("e2e [shard 2/3]"), "\(shardRuns)")
        // A diff baseline like any run.
        let (diffStatus, diffOutput) = try await ws.run(["diff", merged, merged, "--store", "merged"], label: "diff")
        #expect(diffStatus == 0, "\(diffOutput)")
    }

    @Test("merging twice changes nothing; a missing or duplicated shard is reported and nothing is merged")
    func idempotentAndIncomplete() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.mixedCorpus(ws)
        for i in 1...3 { _ = try await Self.shard(ws, matrix, "\(i)/3", store: "s\(i)") }
        let (missing, missingOutput) = try await ws.run(["merge", "s1", "s3", "--store", "m"], label: "missing")
        #expect(missing == 65, "\(missingOutput)")
        #expect(missingOutput.contains("shard 2/3 is missing"), "\(missingOutput)")
        let (duplicate, duplicateOutput) = try await ws.run(["merge", "s1", "s2", "s2", "s3", "--store", "m"],
                                                            label: "duplicate")
        #expect(duplicate == 65, "\(duplicateOutput)")
        #expect(duplicateOutput.contains("shard 2/3 is given 2 times"), "\(duplicateOutput)")
        #expect(!FileManager.default.fileExists(atPath: Self.journal(ws, "m")), "nothing was merged")

        let (first, firstOutput) = try await ws.run(["merge", "s3", "s1", "s2", "--store", "m"], label: "merge1")
        #expect(first == 1, "\(firstOutput)")
        let runID = try Self.onlyRun(ws, "m")
        let before = try Self.snapshot(ws, store: "m", run: runID)
        let (second, secondOutput) = try await ws.run(["merge", "s1", "s2", "s3", "--store", "m"], label: "merge2")
        #expect(second == 1, "the same exit code: \(secondOutput)")
        #expect(secondOutput.contains("already merged"), "\(secondOutput)")
        let after = try Self.snapshot(ws, store: "m", run: runID)
        #expect(after == before)
        #expect(after.files.count > 5, "the snapshot covers the blobs and reports")
        #expect(try Self.onlyRun(ws, "m") == runID)
    }

    /// The merged store as data: its runs, the run's rows, every file's path, size and modification time.
    struct StoreSnapshot: Equatable {
        var runs: [RunSummary]
        var content: RunContent
        var files: [String]
    }

    static func snapshot(_ ws: E2EWorkspace, store: String, run: String) throws -> StoreSnapshot {
        let reader = try JournalReader(path: journal(ws, store))
        let root = ws.root.appendingPathComponent(store)
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var lines: [String] = []
        while let url = files?.nextObject() as? URL {
            let path = url.path
            // The journal's files change with every open (WAL, shared memory); its content is compared as rows.
            guard !path.contains("journal.sqlite") else { continue }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            lines.append("\(path) \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? "")")
        }
        return StoreSnapshot(runs: try reader.runs(), content: try reader.content(run: run), files: lines.sorted())
    }

    @Test("shards of different plans are refused")
    func differentPlans() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.mixedCorpus(ws)
        _ = try await Self.shard(ws, matrix, "1/2", store: "a")
        _ = try await Self.shard(ws, matrix, "2/2", store: "b", ["--seed", "8"])
        let (status, output) = try await ws.run(["merge", "a", "b", "--store", "m"], label: "merge")
        #expect(status == 65, "\(output)")
        #expect(output.contains("is of another plan"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: Self.journal(ws, "m")))
    }

    @Test("a shard killed with SIGKILL is refused until 'run --resume' finishes it; then it merges cleanly")
    func killedShardResumed() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // The slow jobs wait at a gate, so the victim is certainly mid-run when it is killed, however loaded the
        // machine (plain sleeps let a fast victim finish first).
        let gate = ws.root.appendingPathComponent("gate").path
        for i in 0..<6 { try ws.scenario("slow-\(i)", ["gate:\(gate)", "pass"]) }
        try ws.scenario("fails", ["busy:50", "fail"])
        let matrix = try ws.matrix(locales: ["en", "de"])
        let victim = try ws.start(["run", matrix, "--shard", "1/2", "--workers", "1", "--slots", "1", "--store", "s1"],
                                  label: "victim")
        let s1 = Self.journal(ws, "s1")
        try await waitUntil("a job of shard 1 waits at the gate", timeout: .seconds(60)) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: ws.root.path)) ?? []
            return names.contains { $0.hasPrefix("gate.waiting-") }
        }
        await ws.kill9(victim)
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        let runID = try Self.onlyRun(ws, "s1")
        let before = try JournalReader(path: s1).jobs(run: runID)
        #expect(before.contains { $0.result == nil }, "killed mid-run")
        _ = try await Self.shard(ws, matrix, "2/2", store: "s2")

        let (refused, refusedOutput) = try await ws.run(["merge", "s1", "s2", "--store", "m"], label: "refused")
        #expect(refused == 65, "\(refusedOutput)")
        #expect(refusedOutput.contains("flowmatrix run --resume \(runID)"), "\(refusedOutput)")

        let (resumed, resumedOutput) = try await ws.run(["run", "--resume", runID, "--store", "s1", "--workers", "1"],
                                                        label: "resume")
        #expect(resumed <= 1, "\(resumedOutput)")
        let after = try JournalReader(path: s1).jobs(run: runID)
        #expect(after.map(\.job.jobID) == before.map(\.job.jobID), "the resumed shard keeps its share")

        let (status, output) = try await ws.run(["merge", "s1", "s2", "--store", "m"], label: "merge")
        #expect(status == 1, "\(output)")
        let merged = try RunFacts(journal: Self.journal(ws, "m"), run: try Self.onlyRun(ws, "m"))
        #expect(merged.jobs.count == 14)
        #expect(Set(merged.jobs.map(\.id)).count == 14)
        let outcomes = Dictionary(grouping: merged.jobs, by: \.scenario).mapValues { Set($0.map(\.outcome)) }
        #expect(outcomes["fails"] == [.failed])
        #expect((0..<6).allSatisfy { outcomes["slow-\($0)"] == [.passed] }, "\(outcomes)")
    }

    @Test("--shard auto maps each engine's variables; without them it is a usage error")
    func shardFromEnvironment() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix(locales: ["en", "de", "ar", "fr"])
        let none = ["JOB_COMPLETION_INDEX": "", "CI_NODE_INDEX": "", "CI_NODE_TOTAL": "", "BUILDKITE_PARALLEL_JOB": "",
                    "BUILDKITE_PARALLEL_JOB_COUNT": "", "FLOWMATRIX_SHARD_COUNT": ""]
        let cases: [([String: String], [String], String)] = [
            (["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"], [], "shard 2/3 (from CI_NODE_INDEX/CI_NODE_TOTAL)"),
            (["JOB_COMPLETION_INDEX": "0"], ["--shard-count", "4"], "shard 1/4 (from JOB_COMPLETION_INDEX (from 0) of 4)"),
            (["JOB_COMPLETION_INDEX": "3", "FLOWMATRIX_SHARD_COUNT": "4"], [], "shard 4/4 (from JOB_COMPLETION_INDEX"),
            (["BUILDKITE_PARALLEL_JOB": "1", "BUILDKITE_PARALLEL_JOB_COUNT": "2"], [], "shard 2/2 (from BUILDKITE_PARALLEL_JOB"),
        ]
        for (index, (env, flags, line)) in cases.enumerated() {
            let (status, output) = try await ws.run(["run", matrix, "--shard", "auto", "--workers", "1",
                                                     "--store", "e\(index)"] + flags,
                                                    label: "env\(index)", environment: none.merging(env) { $1 })
            #expect(status == 0, "\(output)")
            #expect(output.contains(line), "\(output)")
        }
        let (status, output) = try await ws.run(["run", matrix, "--shard", "auto", "--store", "x"], label: "noenv",
                                                environment: none)
        #expect(status == 64, "\(output)")
        #expect(output.contains("found none of JOB_COMPLETION_INDEX"), "\(output)")
        let (badStatus, badOutput) = try await ws.run(["run", matrix, "--shard", "4/3"], label: "bad", environment: none)
        #expect(badStatus == 64 && badOutput.contains("1 <= i <= n"), "\(badOutput)")
    }

    @Test("--durations from a previous run's journal or summary.json balances by durations")
    func durationsSources() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.mixedCorpus(ws)
        _ = try await ws.run(["run", matrix, "--workers", "1", "--store", "previous", "--quiet"], label: "previous")
        let previous = try Self.onlyRun(ws, "previous")
        let summary = "previous/runs/\(previous)/summary.json"
        var splits: [String] = []
        for (i, source) in ["previous/journal.sqlite", "previous", summary].enumerated() {
            let output = try await Self.shard(ws, matrix, "1/2", store: "d\(i)", ["--durations", source])
            #expect(output.contains("split by durations from \(source)"), "\(output)")
            splits.append(try JournalReader(path: Self.journal(ws, "d\(i)")).jobs(run: try Self.onlyRun(ws, "d\(i)"))
                .map(\.job.jobID).joined(separator: ","))
        }
        #expect(splits[0] == splits[1], "a journal or its store: the same durations")
        let (bad, badOutput) = try await ws.run(["run", matrix, "--shard", "1/2", "--durations", "m.json"], label: "bad")
        #expect(bad == 2 && badOutput.contains("not a summary.json"), "\(badOutput)")
    }

    @Test("bench shards prints the slowest shard against the ideal for both splits")
    func bench() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await ws.run(["bench", "--quick", "shards"], label: "bench")
        #expect(status == 0, "\(output)")
        #expect(output.contains("by count") && output.contains("by durations") && output.contains("split cost"), "\(output)")
    }
}
