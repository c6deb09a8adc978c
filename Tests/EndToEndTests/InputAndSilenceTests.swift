import Artifacts
import Foundation
import Journal
import Testing

/// Issue 13 §2–§4 through the real `flowmatrix` binary: hostile stored text, plan limits, commands that must
/// say what they did, and deleting old runs so gc can free their blobs.
@Suite("hostile input and silences", .serialized, .timeLimit(.minutes(3)))
struct InputAndSilenceTests {
    /// Writes a journal with one finished run whose only job failed with `message`.
    static func journalWithFailure(_ ws: E2EWorkspace, message: String, title: String) throws -> String {
        try FileManager.default.createDirectory(at: ws.root.appendingPathComponent(".flowmatrix"), withIntermediateDirectories: true)
        let writer = try JournalWriter(path: ws.journalPath)
        let t0 = Date(timeIntervalSince1970: 1_796_000_000)
        try writer.submit([
            .runStarted(RunInfo(runID: "r1", matrixName: "m\u{1B}[2J", matrixPath: "m.json", seed: 0, startedAt: t0, settingsJSON: "{}")),
            .jobsPlanned(runID: "r1", jobs: [PlannedJob(jobID: "0123456789abcdef", scenarioID: title, scenarioTitle: title,
                                                        configuration: "locale=en", configurationJSON: #"{"locale":"en"}"#, registry: "test")]),
            .attemptCompleted(CompletedAttempt(
                runID: "r1", jobID: "0123456789abcdef", attempt: 1, worker: "w1", startedAt: t0,
                steps: [StepResult(index: 0, key: "tap:x", outcome: .failed, duration: 1, message: message)],
                result: AttemptResult(outcome: .failed, finishedAt: t0, duration: 1, failureStep: 0, message: message),
                job: JobResult(outcome: .failed, attempts: 1, duration: 1, failureStep: 0, failureMessage: message, finishedAt: t0))),
            .runFinished(runID: "r1", status: .completed, at: t0),
        ])
        try writer.flushSync()
        try writer.close()
        return "r1"
    }

    @Test("a damaged journal: runs, show, report, diff, isolate and run say so in plain words, without the query, and exit 2")
    func damagedJournal() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        _ = try Self.journalWithFailure(ws, message: "boom", title: "cart")
        for leftover in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: ws.journalPath + leftover) }
        // Every page after the first (the schema) overwritten: the tables' pages are garbage.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ws.journalPath)))
        let pageSize = max(512, Int(bytes[16]) << 8 | Int(bytes[17]))
        try #require(bytes.count > pageSize)
        for i in pageSize..<bytes.count { bytes[i] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: ws.journalPath))
        try ws.scenario("passes", ["pass"])
        let matrix = try ws.matrix(locales: ["en"])
        for arguments in [["runs"], ["show", "r1"], ["report", "r1"], ["diff", "r1", "r1"], ["isolate", "r1"],
                          ["run", matrix, "--workers", "1", "--quiet"]] {
            let (status, output) = try await ws.run(arguments, label: arguments[0])
            #expect(status == 2, "\(output)")
            #expect(output.contains("Error: the store's journal (journal.sqlite) is damaged"), "\(output)")
            #expect(!output.contains("SELECT") && !output.contains("SQLite code"), "\(output)")
        }
    }

    @Test("show prints control characters and bidi overrides escaped, newlines as lines, and the message past its NUL")
    func showEscapes() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let message = "before\u{0}after \u{1B}]0;pwned\u{7} \u{1B}[2J \u{9B}31m \u{202E}evil\nnext"
        _ = try Self.journalWithFailure(ws, message: message, title: "cart\u{2066}x")
        let (status, output) = try await ws.run(["show", "last"], label: "show")
        #expect(status == 1, "\(output)")
        for raw in ["\u{0}", "\u{1B}", "\u{7}", "\u{9B}", "\u{202E}", "\u{2066}"] {
            #expect(!output.contains(raw), "raw U+\(String(raw.unicodeScalars.first!.value, radix: 16)) in \(output)")
        }
        // Steps are numbered from 1 for a person; a newline stays a line break, indented under its step line.
        #expect(output.contains(#"step 1: before\u{0}after \u{1B}]0;pwned\u{7} \u{1B}[2J \u{9B}31m \u{202E}evil"# + "\n      next"),
                "\(output)")
        #expect(!output.contains(#"\u{A}"#), "\(output)")
        #expect(output.contains(#"cart\u{2066}x"#) && output.contains(#"m\u{1B}[2J"#))
        let (_, runs) = try await ws.run(["runs"], label: "runs")
        #expect(!runs.contains("\u{1B}") && runs.contains(#"m\u{1B}[2J"#))
    }

    @Test("validate says what it checked; an empty corpus folder is FS020")
    func validateSummary() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        try ws.scenario("two", ["pass"])
        let matrix = try ws.matrix()
        let (status, output) = try await ws.run(["validate", "corpus", matrix], label: "ok")
        #expect(status == 0)
        // The test registry is not built in: validate says it could not check its steps (a warning, exit 0).
        #expect(output.hasSuffix("checked 2 scenario files, 1 matrix: 0 findings, 1 warning\n"), "a file read twice counts once: \(output)")
        #expect(output.contains("warning: MX059 registry 'test' is not built in"), "\(output)")
        try FileManager.default.createDirectory(at: ws.root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let (emptyStatus, empty) = try await ws.run(["validate", "empty"], label: "empty")
        #expect(emptyStatus == 1)
        #expect(empty.contains("FS020") && empty.hasSuffix("checked 0 scenario files, 0 matrices: 1 finding\n"), "\(empty)")
    }

    @Test("a matrix whose top-level key is misspelt is validated as a matrix: MX033 with 'did you mean', no FS finding")
    func misspeltMatrixKey() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let file = ws.root.appendingPathComponent("typo.json")
        try Data(#"{"name": "m", "corpus": "corpus", "registry": "test", "axis": {"locale": ["en"]}}"#.utf8).write(to: file)
        let (status, output) = try await ws.run(["validate", file.path], label: "typo")
        #expect(status == 1, "\(output)")
        #expect(output.contains("MX033") && output.contains("unknown top-level key 'axis' (did you mean 'axes'?)"), "\(output)")
        #expect(!output.contains("FS0") && output.contains("1 matrix"), "\(output)")
    }

    @Test("a plan over --max-jobs is MX025 on validate, plan and run, and nothing runs; 10^30 is refused")
    func jobLimit() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix(locales: ["en", "de", "fr"])  // 3 jobs
        let (planStatus, plan) = try await ws.run(["plan", matrix, "--max-jobs", "2"], label: "plan")
        #expect(planStatus == 1 && plan.contains("MX025") && plan.contains("3 configurations × 1 scenario(s) = 3 jobs"), "\(plan)")
        let (okStatus, _) = try await ws.run(["plan", matrix, "--max-jobs", "3"], label: "plan-ok")
        #expect(okStatus == 0)
        let (validateStatus, validate) = try await ws.run(["validate", matrix, "--max-jobs", "2"], label: "validate")
        #expect(validateStatus == 1 && validate.contains("MX025"))
        let (runStatus, run) = try await ws.run(["run", matrix, "--max-jobs", "2", "--workers", "1"], label: "run")
        #expect(runStatus == 65 && run.contains("MX025"), "\(run)")
        #expect(try ws.latestRunID() == nil, "a refused plan must not start a run")
        let (usageStatus, _) = try await ws.run(["plan", matrix, "--max-jobs", "0"], label: "usage")
        #expect(usageStatus == 64)

        let axes = (0..<30).map { #""a\#($0)": ["0","1","2","3","4","5","6","7","8","9"]"# }.joined(separator: ", ")
        try Data(#"{"name": "huge", "corpus": "corpus", "registry": "test", "axes": {\#(axes)}}"#.utf8)
            .write(to: ws.root.appendingPathComponent("huge.json"))
        let (hugeStatus, huge) = try await ws.run(["plan", "huge.json"], label: "huge")
        #expect(hugeStatus == 1 && huge.contains("MX025") && huge.contains("1" + String(repeating: "0", count: 30)), "\(huge)")
    }

    @Test("plan --explain exits 4 when it cannot answer and 0 when it can")
    func explainExitCode() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix()
        for query in ["#99", "nonsense", "planet=mars", "locale=xx_YY!"] {
            let (status, output) = try await ws.run(["plan", matrix, "--explain", query], label: "q")
            #expect(status == 4, "\(query): \(output)")
            #expect(output.hasPrefix("Error: cannot explain:"), "\(output)")
        }
        let (status, output) = try await ws.run(["plan", matrix, "--explain", "#1"], label: "ok")
        #expect(status == 0 && output.contains("configuration #1"), "\(output)")
    }

    @Test("help runs and help gc list their exit codes")
    func helpExitCodes() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for command in ["runs", "gc", "show", "plan", "validate"] {
            let (status, help) = try await ws.run(["help", command], label: command)
            #expect(status == 0 && help.contains("EXIT CODES:"), "\(command): \(help)")
        }
    }

    @Test("runs delete removes old runs in the journal, keeps running ones unless forced, and gc then frees their blobs")
    func deleteRunsThenGC() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try ws.matrix(locales: ["en"])
        try ws.scenario("attaches", ["attach:first.bin:30000", "fail"])
        _ = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "run1")
        let first = try #require(try ws.latestRunID())
        try ws.scenario("attaches", ["attach:second.bin:40000", "fail"])
        _ = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "run2")
        let second = try #require(try ws.latestRunID())
        #expect(first != second)
        let store = try BlobStore(root: ws.root.appendingPathComponent(".flowmatrix"))
        let before = try store.allHashes().count
        let (gc0, gcOutput0) = try await ws.run(["gc", "--grace", "0"], label: "gc0")
        #expect(gc0 == 0 && gcOutput0.contains("removed 0 blob(s)"), "\(gcOutput0)")

        let (dryStatus, dry) = try await ws.run(["runs", "delete", "--keep", "1", "--dry-run"], label: "dry")
        #expect(dryStatus == 0 && dry.contains("would delete run \(first)") && !dry.contains(second))
        let (deleteStatus, deleted) = try await ws.run(["runs", "delete", "--keep", "1"], label: "delete")
        #expect(deleteStatus == 0 && deleted.contains("deleted 1 run(s): \(first)"), "\(deleted)")
        let reader = try JournalReader(path: ws.journalPath)
        #expect(try reader.runs().map(\.info.runID) == [second])
        #expect(!FileManager.default.fileExists(atPath: ws.root.appendingPathComponent(".flowmatrix/runs/\(first)").path))

        let (gc1, gcOutput1) = try await ws.run(["gc", "--grace", "0"], label: "gc1")
        #expect(gc1 == 0 && !gcOutput1.contains("removed 0 blob(s)"), "\(gcOutput1)")
        let after = try store.allHashes().count
        #expect(after < before)
        #expect(Set(try store.allHashes()) == Set(try reader.referencedBlobs()))
        let (extractStatus, extract) = try await ws.run(["artifacts", "extract", "last", "--out", "out"], label: "extract")
        #expect(extractStatus == 0, "the remaining run keeps its artifacts: \(extract)")

        // A run still marked running is kept unless --force; an unknown id is exit 2.
        let writer = try JournalWriter(path: ws.journalPath)
        try writer.submit([.runStarted(RunInfo(runID: "live", matrixName: "m", matrixPath: "m.json", seed: 0,
                                              startedAt: Date(), settingsJSON: "{}"))])
        try writer.flushSync()
        try writer.close()
        let (keptStatus, kept) = try await ws.run(["runs", "delete", "live"], label: "kept")
        #expect(keptStatus == 1 && kept.contains("still marked running"), "\(kept)")
        let (forcedStatus, _) = try await ws.run(["runs", "delete", "live", "--force"], label: "forced")
        #expect(forcedStatus == 0)
        #expect(try reader.run("live") == nil)
        let (unknownStatus, unknown) = try await ws.run(["runs", "delete", "no-such-run"], label: "unknown")
        #expect(unknownStatus == 2 && unknown.contains("no run 'no-such-run'"), "\(unknown)")
        let (usageStatus, _) = try await ws.run(["runs", "delete"], label: "usage")
        #expect(usageStatus == 64)
    }
}
