@testable import FlowMatrixCLI
import FlowVocabulary
import Foundation
import Journal
import RunControl
import Testing

/// CI must never show green when the run failed (issue 27): `junit.xml` has a `<failure>` or `<error>` exactly when
/// the run's exit code says failures, and its counts agree with `summary.json`, the report and `show`, or are
/// labelled as test cases where those count jobs.
@Suite("junit.xml agrees with the exit code", .serialized, .timeLimit(.minutes(6)))
struct JUnitInvariantTests {
    static let runs = 240
    /// Every `shardEvery`-th generated run is written as two shards and merged with `flowmatrix merge`'s code.
    static let shardEvery = 6

    @Test("240 generated runs (every outcome, command and scenario jobs, retries, repeats, merged shards): failure iff exit 1, counts agree")
    func generatedRuns() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fm-junit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = RunStore(path: root.appendingPathComponent("store").path)
        try store.create()
        let writer = try JournalWriter(path: store.journalPath)
        var generated: [(run: GeneratedRun, store: RunStore, mergeExit: Int32?)] = []
        for seed in 1...Self.runs {
            let start = Date(timeIntervalSince1970: 1_795_900_000 + Double(seed) * 3_600)
            let run = GeneratedRun(seed: UInt64(seed), runID: String(format: "20261205-%04d-%04x", seed % 10_000, seed),
                                   startedAt: start)
            if seed % Self.shardEvery == 0 {
                let (merged, exit) = try Self.mergeShards(run, under: root.appendingPathComponent("merge-\(seed)"))
                generated.append((run, merged, exit))
            } else {
                try writer.submit(run.records())
                generated.append((run, store, nil))
            }
        }
        try writer.close()
        #expect(writer.takeRejections().isEmpty)
        var junitFiles: [String] = []
        var exits = [Int32: Int]()
        for (run, runStore, mergeExit) in generated {
            let reader = try JournalReader(path: runStore.journalPath)
            // A merged run's id is the merge's; its exit code is `merge`'s own (the same rule as `run`'s).
            let summary = try #require(mergeExit != nil ? try reader.runs(limit: 1).first : try reader.run(run.runID))
            let exit: Int32
            if let mergeExit {
                exit = mergeExit
            } else {
                _ = RunReportWriter.writeReports(runID: run.runID, store: runStore, baseline: nil)
                exit = RunVerdict.exitCode(strict: false) { summary.outcomes[$0] ?? 0 }
            }
            exits[exit, default: 0] += 1
            let folder = runStore.runFolder(summary.info.runID)
            junitFiles.append(folder.appendingPathComponent("junit.xml").path)
            try Self.check(run, summary: summary, exit: exit, counts: try ReportCounts(folder: folder),
                           show: try Self.show(reader, summary))
        }
        // Both verdicts occur often enough to mean something.
        #expect(exits[0, default: 0] >= 20 && exits[1, default: 0] >= 20, "\(exits)")
        try await Self.validate(junitFiles)
    }

    @Test("a real run: a command that writes a passing JUnit file and exits 1 is a failing case in junit.xml, and the run exits 1")
    func passingTestsFailingCommand() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (runID, folder) = try await Self.runScript(ws, """
            #!/bin/sh
            printf '<testsuite name="s"><testcase classname="suite" name="test_a"/></testsuite>' > "$1/junit.xml"
            echo "coverage 41% is below 80%" >&2
            exit 1
            """)
        let counts = try ReportCounts(folder: folder)
        #expect(counts.root == ["tests": 2, "failures": 1, "errors": 0, "skipped": 0], "\(counts.root)")
        #expect(counts.cases.first { $0.name == "suite.test_a [locale=en]" }?.elements == [])
        let own = try #require(counts.cases.first { $0.name == "(command) [locale=en]" })
        #expect(own.classname == "suite" && own.isFailure)
        let junit = try String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("exited with status 1&#10;coverage 41% is below 80%"), "\(junit)")
        #expect(counts.summaryJobs["failed"] == 1 && counts.pageJobs["failed"] == 1)
        #expect(counts.summaryTestCases == ["tests": 2, "failures": 1, "errors": 0, "skipped": 0, "flaky": 0])
        let (showStatus, shown) = try await ws.run(["show", runID], label: "show")
        #expect(showStatus == 1 && shown.contains("jobs: 0 passed, 1 failed, 0 flaky"), "\(shown)")
        try await Self.validate([folder.appendingPathComponent("junit.xml").path])
    }

    @Test("a real run: a test that errored (a fixture that raised) stays an <error> in junit.xml and 'errored' in summary.json")
    func erroredTestStaysAnError() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // As pytest writes a failed assertion and a fixture that raised during setup.
        let (runID, folder) = try await Self.runScript(ws, """
            #!/bin/sh
            printf '<testsuite name="s"><testcase classname="suite" name="test_a"><failure message="assert 1 == 2">trace</failure></testcase><testcase classname="suite" name="test_b"><error message="failed on setup with RuntimeError">trace</error></testcase></testsuite>' > "$1/junit.xml"
            exit 1
            """)
        let counts = try ReportCounts(folder: folder)
        #expect(counts.root == ["tests": 3, "failures": 2, "errors": 1, "skipped": 0], "\(counts.root)")
        let testB = try #require(counts.cases.first { $0.name == "suite.test_b [locale=en]" })
        #expect(testB.isError && !testB.isFailure, "\(testB.elements)")
        let testA = try #require(counts.cases.first { $0.name == "suite.test_a [locale=en]" })
        #expect(testA.isFailure && !testA.isError, "\(testA.elements)")
        #expect(counts.summaryTestCases == ["tests": 3, "failures": 2, "errors": 1, "skipped": 0, "flaky": 0])
        let summary = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("summary.json"))) as? [String: Any])
        let job = try #require((summary["jobs"] as? [[String: Any]])?.first)
        let verdicts = (job["tests"] as? [[String: Any]])?.map { "\($0["name"] ?? "")=\($0["verdict"] ?? "")" }
        #expect(verdicts == ["suite.test_a=failed", "suite.test_b=errored"], "\(job)")
        let (_, shown) = try await ws.run(["show", runID], label: "show")
        #expect(shown.contains("test:suite.test_b: errored"), "\(shown)")
        try await Self.validate([folder.appendingPathComponent("junit.xml").path])
    }

    /// Runs a matrix of one command job, `/bin/sh script {output}` with its JUnit file as the result, with a real
    /// local worker; expects exit 1. Returns the run and its report folder.
    static func runScript(_ ws: E2EWorkspace, _ script: String) async throws -> (runID: String, folder: URL) {
        try Data(script.utf8).write(to: ws.root.appendingPathComponent("suite.sh"))
        let matrix = try CommandJobTests.commandMatrix(ws, argv: #"["/bin/sh", "suite.sh", "{output}"]"#,
                                                       extra: #", "results": ["{output}/junit.xml"]"#)
        let (status, output) = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "run",
                                                localWorkers: .flowmatrix)
        #expect(status == 1, "\(output)")
        let runID = try #require(try ws.latestRunID())
        return (runID, ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)"))
    }

    /// Writes `run` as two shard stores and merges them into a store of its own (`merge`'s code: rows copied in plan
    /// order, reports written); returns the merged store and the merge's exit code.
    static func mergeShards(_ run: GeneratedRun, under folder: URL) throws -> (RunStore, Int32) {
        let positions = Array(run.jobs.indices)
        let halves = [positions.filter { $0 % 2 == 0 }, positions.filter { $0 % 2 == 1 }].filter { !$0.isEmpty }
        var stores: [RunStore] = []
        for (i, half) in halves.enumerated() {
            let shardStore = RunStore(path: folder.appendingPathComponent("shard-\(i + 1)").path)
            try shardStore.create()
            let settings = #"{"shard":{"index":\#(i + 1),"count":\#(halves.count),"planHash":"\#(run.runID)","#
                + #""planJobs":\#(run.jobs.count),"positions":[\#(half.map(String.init).joined(separator: ","))]}}"#
            let writer = try JournalWriter(path: shardStore.journalPath)
            try writer.submit(run.records(settingsJSON: settings, runID: String(run.runID.dropLast(4)) + String(format: "%04x", i + 0xf00),
                                           positions: half))
            try writer.close()
            stores.append(shardStore)
        }
        let target = RunStore(path: folder.appendingPathComponent("merged").path)
        let exit = try MergeCommand.merge(stores: stores, into: target, baseline: nil, strict: false, quiet: true)
        return (target, exit)
    }

    /// `show`'s lines for the run.
    /// `show`'s lines for the run, and its exit code: for a completed run, the run's own (RunVerdict).
    static func show(_ reader: JournalReader, _ summary: RunSummary) throws -> [String] {
        var lines: [String] = []
        let status = try RunsCommand.show(reader, run: summary, failedOnly: false) { lines.append($0) }
        return lines + ["exit \(status)"]
    }

    static func check(_ run: GeneratedRun, summary: RunSummary, exit: Int32, counts: ReportCounts, show: [String]) throws {
        let label = "run \(run.runID) (\(summary.info.runID))"
        // The generator's own verdict: some job failed, timed out or was quarantined.
        let failing = run.jobs.contains { [.failed, .timedOut, .quarantined].contains($0.outcome) }
        #expect(exit == (failing ? 1 : 0), "\(label)")
        // CI's verdict is the run's.
        let red = counts.root["failures", default: 0] + counts.root["errors", default: 0] > 0
        #expect(red == (exit == 1), "\(label): junit \(counts.root), exit \(exit)")
        // The counters are the cases', at the root, summed over the suites, and in summary.json's testCases.
        var fromCases = counts.fromCases
        #expect(counts.fromSuites == fromCases, "\(label)")
        #expect(counts.summaryTestCases == fromCases, "\(label)")
        fromCases["flaky"] = nil
        #expect(counts.root == fromCases, "\(label)")
        // Jobs: summary.json, report.html, show and the journal agree with what was generated.
        var jobs = Dictionary(uniqueKeysWithValues: ["passed", "failed", "flaky", "timedOut", "quarantined", "notRun"].map { ($0, 0) })
        for job in run.jobs { jobs[job.outcome == .cancelled ? "notRun" : job.outcome.rawValue, default: 0] += 1 }
        #expect(counts.summaryJobs == jobs, "\(label)")
        #expect(counts.summaryTotal == run.jobs.count, "\(label)")
        #expect(counts.pageJobs == jobs, "\(label)")
        #expect(summary.status != .completed || show.last == "exit \(exit)", "\(label): show exits as the run did")
        let show = show.dropLast()
        #expect(show.last == "jobs: \(jobs["passed"]!) passed, \(jobs["failed"]!) failed, \(jobs["flaky"]!) flaky, "
            + "\(jobs["timedOut"]!) timed out, \(jobs["quarantined"]!) quarantined, \(jobs["notRun"]!) not run", "\(label)")
        // Test cases and jobs are different units, but every job that did not pass has a case of its own that says so.
        #expect(counts.jobCases == ["failed": jobs["failed"]!, "timedOutOrQuarantined": jobs["timedOut"]! + jobs["quarantined"]!,
                                    "notRun": jobs["notRun"]!, "flaky": jobs["flaky"]!], "\(label)")
        #expect(counts.schemaVersion == 5)
    }

    /// Every junit.xml against the Surefire-style schema, in one `xmllint` run.
    static func validate(_ files: [String]) async throws {
        guard let xmllint = ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"]
            .first(where: FileManager.default.isExecutableFile(atPath:))
        else {
            Issue.record("xmllint is missing: run scripts/install-deps.sh test (Debian package libxml2-utils)")
            return
        }
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ReportsTests/Fixtures/junit.xsd").path
        let (status, output) = try await runProgram(xmllint, ["--noout", "--schema", schema] + files)
        #expect(status == 0, "\(output.suffix(2_000))")
    }
}
