import Foundation
import Journal
import ProcessSpawn
import Testing

/// `flowmatrix report` and `flowmatrix diff` as a user runs them: the built executable on a real journal.
@Suite("report and diff commands", .timeLimit(.minutes(2)))
struct ReportCommandTests {
    /// A store with two runs of two jobs: in the second, `b` fails (it passed) and `a` got slower.
    final class Store {
        let root: URL
        var store: URL { root.appendingPathComponent(".flowmatrix") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root.appendingPathComponent(".flowmatrix"), withIntermediateDirectories: true)
            let writer = try JournalWriter(path: root.appendingPathComponent(".flowmatrix/journal.sqlite").path)
            let start = Date(timeIntervalSince1970: 1_795_900_000)
            for (n, runID) in ["20261129-0100-aaaa", "20261130-0100-bbbb"].enumerated() {
                let at = start.addingTimeInterval(Double(n) * 86_400)
                let jobs = ["a", "b"].map { s in
                    PlannedJob(jobID: "job-\(s)", scenarioID: s, scenarioTitle: "Scenario <\(s)>", configuration: "locale=ar",
                               configurationJSON: #"{"locale":"ar"}"#, registry: "catalog")
                }
                var records: [JournalRecord] = [
                    .runStarted(RunInfo(runID: runID, matrixName: "smoke", matrixPath: "Matrices/smoke.json", seed: 7, startedAt: at)),
                    .jobsPlanned(runID: runID, jobs: jobs),
                ]
                for job in jobs {
                    let fails = n == 1 && job.scenarioID == "b"
                    let duration = n == 1 && job.scenarioID == "a" ? 3.0 : 1.0
                    records += [
                        .attemptStarted(runID: runID, jobID: job.jobID, attempt: 1, worker: "w1", at: at),
                        .stepRecorded(runID: runID, jobID: job.jobID, attempt: 1, step: StepResult(
                            index: 0, key: "tap 'Go'", outcome: fails ? .failed : .passed, duration: duration,
                            message: fails ? "no 'Go' button" : nil)),
                        .attemptFinished(runID: runID, jobID: job.jobID, attempt: 1, result: AttemptResult(
                            outcome: fails ? .failed : .passed, finishedAt: at.addingTimeInterval(duration), duration: duration,
                            failureStep: fails ? 0 : nil, message: fails ? "no 'Go' button" : nil)),
                        .jobFinished(runID: runID, jobID: job.jobID, result: JobResult(
                            outcome: fails ? .failed : .passed, attempts: 1, duration: duration, failureStep: fails ? 0 : nil,
                            failureMessage: fails ? "no 'Go' button" : nil, finishedAt: at.addingTimeInterval(duration))),
                    ]
                }
                records.append(.runFinished(runID: runID, status: .completed, at: at.addingTimeInterval(5)))
                try writer.submit(records)
            }
            try writer.close()
        }

        deinit { try? FileManager.default.removeItem(at: root) }
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `flowmatrix` next to the test bundle (swift build --build-tests builds it).
    static func executable() throws -> URL {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["FLOWMATRIX_BIN"] { candidates.append(URL(fileURLWithPath: path)) }
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            candidates.append(dir.appendingPathComponent("flowmatrix"))
            dir = dir.deletingLastPathComponent()
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/flowmatrix"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "no flowmatrix executable; run 'swift build' first (tried \(candidates.map(\.path)))")
    }

    func run(_ arguments: [String], in directory: URL) async throws -> Output {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
              FileManager.default.createFile(atPath: err.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        if !(await process.exited(timeout: .seconds(60))) {
            await process.stop()
            Issue.record("flowmatrix \(arguments) did not finish within 60 s")
        }
        return Output(status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8))
    }

    @Test("report writes the three files into .flowmatrix/runs/<run-id>, with a baseline section")
    func report() async throws {
        let store = try Store()
        let result = try await run(["report", "20261130-0100-bbbb", "--baseline", "last"], in: store.root)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = store.store.appendingPathComponent("runs/20261130-0100-bbbb")
        for name in ["report.html", "junit.xml", "summary.json"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name)")
        }
        #expect(result.stdout.contains("baseline 20261129-0100-aaaa: 1 new failure"))
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("id=\"baseline\""))
        #expect(html.contains("Scenario &lt;b&gt;"))
    }

    @Test("report: unknown run exits 2, a bad option exits 64 with usage, --out chooses the folder")
    func reportErrors() async throws {
        let store = try Store()
        let unknown = try await run(["report", "nope"], in: store.root)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Error: no run 'nope' in the journal"))
        let usage = try await run(["report", "last", "--artifacts", "some"], in: store.root)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("Usage: flowmatrix report <run-id>"))
        let noJournal = try await run(["report", "last", "--store", "elsewhere"], in: store.root)
        #expect(noJournal.status == 2)
        let out = try await run(["report", "last", "--out", "out/r"], in: store.root)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.root.appendingPathComponent("out/r/report.html").path))
        #expect(!out.stdout.contains("heat map:"))
        let badLimit = try await run(["report", "last", "--heat-map-cells", "0"], in: store.root)
        #expect(badLimit.status == 64)
    }

    @Test("report --heat-map-cells: past the limit the page has group cells and the folder drill-down files")
    func reportAggregated() async throws {
        let store = try Store()
        let result = try await run(["report", "last", "--out", "agg", "--heat-map-cells", "1"], in: store.root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("heat map: a cell per group of columns (over 1 cells or 2000 columns); their jobs in 1 drill-down file(s)"))
        let folder = store.root.appendingPathComponent("agg")
        let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("id=\"aggregated\""))
        #expect(html.contains("class=\"cell agg s-"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/cells-000.js").path))
    }

    @Test("diff: text and JSON; exit 1 on regressions, 0 without, 2 for an unknown run, 64 for a bad threshold")
    func diff() async throws {
        let store = try Store()
        let text = try await run(["diff", "20261129-0100-aaaa", "20261130-0100-bbbb"], in: store.root)
        #expect(text.status == 1)
        #expect(text.stdout.contains("NEW FAILURES (1)"))
        #expect(text.stdout.contains("job-b  b [locale=ar] @catalog  passed -> failed  (step 1: no 'Go' button)"))
        #expect(text.stdout.contains("DURATION REGRESSIONS (1)"))
        let lenient = try await run(["diff", "20261129-0100-aaaa", "20261130-0100-bbbb", "--threshold", "500%", "--json"], in: store.root)
        #expect(lenient.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(lenient.stdout.utf8)) as? [String: Any]
        #expect((object?["durationRegressions"] as? [Any])?.isEmpty == true)
        #expect((object?["newFailures"] as? [[String: Any]])?.first?["jobID"] as? String == "job-b")
        let same = try await run(["diff", "20261129-0100-aaaa", "20261129-0100-aaaa"], in: store.root)
        #expect(same.status == 0)
        #expect(same.stdout.hasSuffix("No regressions.\n"))
        let unknown = try await run(["diff", "20261129-0100-aaaa", "nope"], in: store.root)
        #expect(unknown.status == 2)
        let usage = try await run(["diff", "20261129-0100-aaaa", "20261130-0100-bbbb", "--threshold", "fast"], in: store.root)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("See 'flowmatrix diff --help'"))
        let help = try await run(["diff", "--help"], in: store.root)
        #expect(help.status == 0)
        #expect(help.stdout.contains("EXIT CODES: 0 no regressions, 1 regressions"))
    }
}
