@testable import FlowMatrixCLI
import FlowVocabulary
import Foundation
import Journal
import ProcessSpawn
import Testing

/// Command jobs through real `flowmatrix run`, `serve` and `worker` processes (docs/COMMAND-JOBS.md).
@Suite("command jobs end to end")
struct CommandJobTests {
    /// A script that writes a JUnit file by item: `flaky` fails the first time it runs (an attempt taken back before it
    /// started does not count, so a marker file says whether it ran), `broken` writes a result file that is not XML,
    /// `steady` passes.
    static let script = """
        #!/bin/sh
        item="$1"; attempt="$2"; out="$3"
        case "$item" in
          flaky) if [ ! -e flaky.ran ]; then : > flaky.ran; verdict='<failure message="first try">boom</failure>'; code=1; else verdict=''; code=0; fi ;;
          broken) printf '<testsuite><testcase name="x">' > "$out/junit.xml"; exit 0 ;;
          *) verdict=''; code=0 ;;
        esac
        printf '<testsuite name="s"><testcase classname="suite" name="test_a">%s</testcase><testcase classname="suite" name="test_b"/></testsuite>' "$verdict" > "$out/junit.xml"
        echo "ran $item attempt $attempt" >&2
        exit $code
        """

    static func commandMatrix(_ ws: E2EWorkspace, argv: String, items: String? = nil, retries: Int = 0,
                              extra: String = "") throws -> String {
        let text = """
            {"name": "commands", "policy": {"retries": \(retries), "timeout": 120, "keep": "all"},
             "command": {"name": "suite", "argv": \(argv)\(items.map { ", \"items\": \($0)" } ?? "")\(extra)},
             "axes": {"locale": ["en"]}}
            """
        try Data(text.utf8).write(to: ws.root.appendingPathComponent("commands.json"))
        return ws.root.appendingPathComponent("commands.json").path
    }

    @Test("a test that fails then passes on retry is flaky, per test in the journal; a bad result file fails its job and the run goes on")
    func retriesAndFlaky() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Data(Self.script.utf8).write(to: ws.root.appendingPathComponent("job.sh"))
        let matrix = try Self.commandMatrix(
            ws, argv: #"["/bin/sh", "job.sh", "{item}", "{attempt}", "{output}"]"#, items: #"["flaky", "broken", "steady"]"#,
            retries: 1, extra: #", "results": ["{output}/junit.xml"]"#)
        let (status, output) = try await ws.run(["run", matrix, "--workers", "2"], label: "run", localWorkers: .flowmatrix)
        #expect(status == 1, "\(output)")
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        let jobs = Dictionary(uniqueKeysWithValues: try reader.jobs(run: runID).map { ($0.job.scenarioTitle, $0) })
        #expect(jobs["flaky"]?.result?.outcome == .flaky)
        #expect(jobs["steady"]?.result?.outcome == .passed)
        #expect(jobs["broken"]?.result?.outcome == .failed)
        #expect(jobs["broken"]?.result?.failureMessage?.contains("is not valid JUnit XML") == true)
        let flakyID = try #require(jobs["flaky"]).job.jobID
        // Attempts that ran (one taken back from a busy worker before it started has no steps).
        let ran = try reader.attempts(run: runID, job: flakyID).filter { [.passed, .failed].contains($0.result?.outcome) }
        #expect(ran.count == 2, "\(ran)")
        func outcomes(_ attempt: Int) throws -> [String: StepOutcome] {
            Dictionary(uniqueKeysWithValues: try reader.steps(run: runID, job: flakyID, attempt: attempt).map { ($0.key, $0.outcome) })
        }
        let first = try outcomes(try #require(ran.first).attempt)
        let second = try outcomes(try #require(ran.last).attempt)
        #expect(first == ["request:command": .failed, "test:suite.test_a": .failed, "test:suite.test_b": .passed])
        #expect(second == ["request:command": .passed, "test:suite.test_a": .passed, "test:suite.test_b": .passed])
        try await Self.checkTestRecords(ws, runID: runID, flakyID: flakyID)
        let (_, artifacts) = try await ws.run(["artifacts", runID], label: "artifacts")
        #expect(artifacts.contains("stderr.log") && artifacts.contains("junit.xml"), "\(artifacts)")
        // junit.xml: one test case per test of a command job; test_a of the flaky job failed then passed.
        let junit = try String(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)/junit.xml"), encoding: .utf8)
        let cases = junit.components(separatedBy: "<testcase ").dropFirst()
        let flakyA = try #require(cases.first { $0.contains("name=\"suite.test_a [locale=en]\"") && $0.contains("flakyFailure") },
                                  "\(junit)")
        #expect(flakyA.contains("first try") && !flakyA.contains("<failure"))
        #expect(cases.filter { $0.contains("name=\"suite.test_b [locale=en]\"") }.count == 2)  // flaky and steady jobs
        // Counters count test cases: 2 + 2 tests, the broken job (no test ran) as one failed case, and the flaky job's
        // own case (it did not simply pass: CI sees it flaky even when no test flipped).
        #expect(junit.contains("<testsuites name=") && junit.contains("tests=\"6\" failures=\"1\""), "\(junit.prefix(400))")
        let own = try #require(cases.first { $0.hasPrefix("name=\"(command) [locale=en]\"") }, "\(junit)")
        #expect(own.contains("<flakyFailure") && !own.contains("<failure"))
    }

    /// `show` and `summary.json` give each test that did not pass its outcome per attempt and its own assertion text.
    static func checkTestRecords(_ ws: E2EWorkspace, runID: String, flakyID: String) async throws {
        let (_, shown) = try await ws.run(["show", runID], label: "show")
        let lines = shown.split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex { $0.contains("test:suite.test_a: failed, passed") }, "\(shown)")
        #expect(lines.indices.contains(at + 1) && lines[at + 1].hasPrefix("      ") && lines[at + 1].contains("first try"),
                "the failing run's message under the test: \(shown)")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: ws.root.appendingPathComponent(
            ".flowmatrix/runs/\(runID)/summary.json"))) as? [String: Any]
        let jobs = try #require(summary?["jobs"] as? [[String: Any]])
        let flaky = try #require(jobs.first { $0["id"] as? String == flakyID })
        let tests = try #require(flaky["tests"] as? [[String: Any]], "\(flaky)")
        #expect(tests.count == 1)
        #expect(tests.first?["name"] as? String == "suite.test_a")
        #expect(tests.first?["verdict"] as? String == "flaky")
        #expect(tests.first?["outcomes"] as? [String] == ["failed", "passed"])
        #expect((tests.first?["message"] as? String)?.contains("first try") == true)
        #expect(!jobs.contains { ($0["tests"] as? [[String: Any]])?.contains { $0["name"] as? String == "suite.test_b" } == true },
                "a test that passed every time is not listed")
    }

    @Test("diff judges a command job's tests one by one as junit.xml does: one that starts failing is a new failure (exit 1), one that errors then passes is newly flaky")
    func diffPerTest() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // test_a fails once the file `break-a` exists; test_b always passes.
        let script = """
            #!/bin/sh
            out="$1"
            if [ -e break-a ]; then a='<failure message="now broken">boom</failure>'; code=1; else a=''; code=0; fi
            if [ -e error-once ] && [ ! -e errored ]; then : > errored; a='<error message="fixture raised">setup</error>'; code=1; fi
            printf '<testsuite name="s"><testcase classname="suite" name="test_a">%s</testcase><testcase classname="suite" name="test_b"/></testsuite>' "$a" > "$out/junit.xml"
            exit $code
            """
        try Data(script.utf8).write(to: ws.root.appendingPathComponent("job.sh"))
        let matrix = try Self.commandMatrix(ws, argv: #"["/bin/sh", "job.sh", "{output}"]"#, retries: 1,
                                            extra: #", "results": ["{output}/junit.xml"]"#)
        _ = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "first",
                             localWorkers: .flowmatrix)
        let first = try #require(try ws.latestRunID())
        try Data().write(to: ws.root.appendingPathComponent("break-a"))
        _ = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "second",
                             localWorkers: .flowmatrix)
        let second = try #require(try ws.latestRunID())
        #expect(first != second)
        let (status, text) = try await ws.run(["diff", first, second], label: "diff")
        #expect(status == 1, "\(text)")
        #expect(text.contains("TESTS: NEW FAILURES (1)") && text.contains("suite.test_a  passed -> failed  (now broken)"), "\(text)")
        #expect(!text.contains("suite.test_b"), "\(text)")
        let (_, json) = try await ws.run(["diff", first, second, "--json"], label: "diff-json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let tests = try #require(object["tests"] as? [String: Any])
        #expect((tests["newFailures"] as? [[String: Any]])?.compactMap { $0["test"] as? String } == ["suite.test_a"])
        // A test that errors once (a fixture raised) and passes on the retry: junit.xml makes it flaky
        // (<flakyError>), and diff says the same ("newly flaky"), not "passed" as it did when it judged tests itself.
        try FileManager.default.removeItem(at: ws.root.appendingPathComponent("break-a"))
        try Data().write(to: ws.root.appendingPathComponent("error-once"))
        _ = try await ws.run(["run", matrix, "--workers", "1", "--quiet"], label: "third", localWorkers: .flowmatrix)
        let third = try #require(try ws.latestRunID())
        let (_, flaky) = try await ws.run(["diff", first, third], label: "diff-flaky")
        #expect(flaky.contains("TESTS: NEWLY FLAKY (1)") && flaky.contains("suite.test_a  passed -> flaky  (fixture raised)"),
                "\(flaky)")
        let junit = try String(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs/\(third)/junit.xml"), encoding: .utf8)
        #expect(junit.contains("<flakyError") && !junit.contains("<error "), "\(junit)")
    }

    @Test("the shipped pytest matrix runs the real suite: failures only where the configuration breaks the code",
          .enabled("needs python3 with pytest (scripts/install-deps.sh test)") { await pytestAvailable() })
    func shippedPytestMatrix() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let store = ws.root.appendingPathComponent("store").path
        let (status, output) = try await ws.run(
            ["run", repository.appendingPathComponent("Matrices/pytest-locale-window.json").path, "--store", store, "--quiet"],
            label: "pytest", workingDirectory: repository, timeout: .seconds(600), localWorkers: .flowmatrix)
        #expect(status == 1, "\(output)")
        let reader = try JournalReader(path: store + "/journal.sqlite")
        let runID = try #require(try reader.latestRunID())
        var failing: [String: [String]] = [:]
        for row in try reader.jobs(run: runID) {
            let steps = try reader.steps(run: runID, job: row.job.jobID, attempt: 1)
            #expect(steps.filter { $0.key.hasPrefix("test:") }.count == 4, "\(row.job.configuration): \(steps)")
            failing[row.job.configuration] = steps.filter { $0.key.hasPrefix("test:") && $0.outcome == .failed }
                .map { String($0.key.split(separator: ".").last ?? "") }
        }
        #expect(failing == [
            "locale=en,window=390x844": [], "locale=en,window=1024x768": [],
            "locale=de,window=390x844": ["test_total_label_fits_its_column"], "locale=de,window=1024x768": [],
            "locale=ar,window=390x844": ["test_total_follows_reading_direction"],
            "locale=ar,window=1024x768": ["test_total_follows_reading_direction"],
            "locale=ja,window=390x844": [], "locale=ja,window=1024x768": [],
        ])
        // The two defects mix in one job-level pivot; pivoted per test, each names its own cause.
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            store + "/runs/\(runID)/summary.json"))) as? [String: Any])
        let byTest = try #require(summary["testHeadline"] as? String)
        #expect(byTest.contains("test_total_follows_reading_direction fails exactly with locale=ar"), "\(byTest)")
        #expect(byTest.contains("test_total_label_fits_its_column fails exactly with locale=de + window=390x844"), "\(byTest)")
    }

    @Test("the shell-script sample runs for real: a locale missing a string fails with the script's stderr")
    func shellScriptSample() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let store = ws.root.appendingPathComponent("store").path
        let (status, output) = try await ws.run(
            ["run", repository.appendingPathComponent("Workers/CommandSamples/strings-check.json").path, "--store", store,
             "--quiet"], label: "strings", workingDirectory: repository, localWorkers: .flowmatrix)
        #expect(status == 1, "\(output)")
        let reader = try JournalReader(path: store + "/journal.sqlite")
        let rows = try reader.jobs(run: try #require(try reader.latestRunID()))
        let outcomes = Dictionary(uniqueKeysWithValues: rows.map { ($0.job.configuration, $0.result?.outcome) })
        #expect(outcomes == ["locale=en": .passed, "locale=de": .passed, "locale=ar": .failed])
        let ar = try #require(rows.first { $0.job.configuration == "locale=ar" })
        #expect(ar.result?.failureMessage == "exited with status 1\nar: missing empty")
    }

    static func pytestAvailable() async -> Bool {
        let answer = try? await ProgramOutput.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import pytest"],
                                                  timeout: .seconds(60))
        return answer?.status == 0
    }

    #if os(Linux)
        @Test("a job that leaves a setsid process behind: the run ends promptly, the process is gone, the step says so, and the command saw only descriptors 0-2")
        func leftBehindAndDescriptors() async throws {
            let ws = try E2EWorkspace()
            defer { ws.cleanUp() }
            let script = """
                #!/bin/sh
                ls -l /proc/self/fd > fds.txt
                setsid sh -c 'echo $$ > escapee.pid; exec sleep 300' &
                while [ "$(cat /proc/$(cat escapee.pid 2>/dev/null)/comm 2>/dev/null)" != sleep ]; do :; done
                """
            try Data(script.utf8).write(to: ws.root.appendingPathComponent("job.sh"))
            let matrix = try Self.commandMatrix(ws, argv: #"["/bin/sh", "job.sh"]"#)
            let started = ContinuousClock.now
            // Far below the escapee's 300 s: before, `run` waited for it (it held a socket of the worker's parent).
            let (status, output) = try await ws.run(["run", matrix, "--workers", "1"], label: "run", timeout: .seconds(120),
                                                    localWorkers: .flowmatrix)
            #expect(status == 0, "\(output)")
            #expect(ContinuousClock.now - started < .seconds(100))
            let pidText = try String(contentsOf: ws.root.appendingPathComponent("escapee.pid"), encoding: .utf8)
            let pid = try #require(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
            defer { if kill(pid, 0) == 0 { kill(pid, SIGKILL) } }
            try await waitUntil("the escaped sleep \(pid) is gone", timeout: .seconds(10)) { kill(pid, 0) != 0 }
            let runID = try #require(try ws.latestRunID())
            let reader = try JournalReader(path: ws.journalPath)
            let row = try #require(try reader.jobs(run: runID).first)
            let steps = try reader.steps(run: runID, job: row.job.jobID, attempt: 1)
            #expect(steps.first?.message == "left 1 process behind (pid \(pid), `sleep 300`), ended", "\(steps)")
            // Every descriptor `ls` started with, but its own listing's directory.
            let listing = try String(contentsOf: ws.root.appendingPathComponent("fds.txt"), encoding: .utf8)
            let open = listing.split(separator: "\n").filter { $0.contains(" -> ") && !$0.hasSuffix("/fd") }
                .compactMap { $0.split(separator: " -> ")[0].split(separator: " ").last.map(String.init) }
            #expect(open == ["0", "1", "2"], "\(listing)")
        }
    #endif

    @Test("shell mode: an axis value with shell syntax creates no file; validate warns MX030 for an explicit raw placeholder")
    func shellValuesAreNotScript() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let text = """
            {"name": "shell", "policy": {"retries": 0, "timeout": 120},
             "command": {"name": "echo", "argv": ["echo {target} > seen.txt"], "shell": true},
             "axes": {"target": ["x; touch PWNED"]}}
            """
        try Data(text.utf8).write(to: ws.root.appendingPathComponent("shell.json"))
        let (status, output) = try await ws.run(["run", "shell.json", "--workers", "1", "--quiet"], label: "run",
                                                localWorkers: .flowmatrix)
        #expect(status == 0, "\(output)")
        #expect(!FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("PWNED").path))
        let seen = try String(contentsOf: ws.root.appendingPathComponent("seen.txt"), encoding: .utf8)
        #expect(seen == "x; touch PWNED\n")
        try Data(text.replacingOccurrences(of: "echo {target}", with: "echo {raw:target}").utf8)
            .write(to: ws.root.appendingPathComponent("raw.json"))
        let (validated, findings) = try await ws.run(["validate", "raw.json"], label: "validate")
        #expect(validated == 0, "\(findings)")
        #expect(findings.contains("raw.json:2:13:") && findings.contains(": warning: MX030 '{raw:target}' pastes the value"),
                "\(findings)")
        #expect(findings.contains("1 matrix: 0 findings, 1 warning"), "\(findings)")
    }

    @Test("a worker without --allow-commands never gets command jobs; one with it runs them all")
    func allowCommands() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let matrix = try Self.commandMatrix(ws, argv: #"["true"]"#, items: #"["a", "b", "c", "d"]"#)
        try Data("e2e-token-0123456789abcdef".utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        _ = try ws.start(["worker", "--connect", "127.0.0.1:\(port)", "--token-file", "token", "--name", "plain"],
                         label: "plain")
        // The coordinator tells the worker at once that it gets nothing from this run.
        try await waitUntil("the plain worker is told it gets no jobs", timeout: .seconds(60)) {
            ws.output("plain").contains("it gets no jobs from this run")
        }
        #expect(ws.output("plain").contains("needs registry [command]"))
        #expect(ws.output("plain").contains("only when started with --allow-commands"), "\(ws.output("plain"))")
        #expect(ws.finishedJobs() == 0)
        _ = try ws.start(["worker", "--connect", "127.0.0.1:\(port)", "--token-file", "token", "--name", "allowed",
                          "--allow-commands", "--exit-after-drain", "--give-up-after", "30"], label: "allowed")
        try await ws.waitForExit(serve, timeout: .seconds(90))
        #expect(serve.terminationStatus == 0, "\(ws.output("serve"))")
        let runID = try #require(try ws.latestRunID())
        let reader = try JournalReader(path: ws.journalPath)
        let rows = try reader.jobs(run: runID)
        #expect(rows.count == 4)
        for row in rows {
            #expect(try reader.attempts(run: runID, job: row.job.jobID).map(\.worker) == ["allowed"])
        }
    }

    @Test("'--registry command' without --allow-commands is a usage error in the CLI's format")
    func registryNeedsAllow() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let (status, output) = try await ws.run(["worker", "--registry", "command", "--connect", "127.0.0.1:1"], label: "w")
        #expect(status == 64)
        #expect(output.contains("Error: '--registry command' needs '--allow-commands'"))
        #expect(output.contains("See 'flowmatrix worker --help'"))
        let (badSlots, text) = try await ws.run(["worker", "--connect", "127.0.0.1:1", "--slots", "0"], label: "w2")
        #expect(badSlots == 64)
        #expect(text.contains("Error: '--slots' takes a whole number from 1 to 1024") && text.contains("Usage: flowmatrix worker"))
    }
}

/// The worker's memory bound with huge command output. Run on its own after the parallel pass (scripts/test.sh): a
/// peak RSS taken while every other suite loads the machine also counts what the load adds (more malloc arenas
/// touched, uploads queued longer), which is not what the bound is about.
@Suite("command job output and worker memory")
struct CommandJobMemoryTests {
    @Test("a command printing 1 GB grows the worker's peak RSS by at most 32 MB")
    func gigabyteOfOutput() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Data("e2e-token-0123456789abcdef".utf8).write(to: ws.root.appendingPathComponent("token"))
        // First a run that prints nothing: the worker's peak with a command job behind it is the baseline. The second
        // coordinator takes the first one's port, which the worker keeps reconnecting to.
        let small = try CommandJobTests.commandMatrix(ws, argv: #"["true"]"#)
        let (serve1, port) = try await ws.startServe(["serve", small, "--token-file", "token"], label: "serve1")
        let worker = try ws.start(["worker", "--connect", "127.0.0.1:\(port)", "--token-file", "token", "--name", "big",
                                   "--allow-commands", "--slots", "1"], label: "worker")
        try await ws.waitForExit(serve1, timeout: .seconds(120))
        #expect(serve1.terminationStatus == 0, "\(ws.output("serve1"))")
        let baseline = ProcessFacts.peakRSS(worker.processIdentifier)
        // Then 1 GiB of stdout (zeros compress to about 1 MB; the memory bound holds for any content: the compressed
        // output kept is capped, see `ArtifactStream`).
        let big = try CommandJobTests.commandMatrix(ws, argv: #"["head", "-c", "1073741824", "/dev/zero"]"#)
        let (second, out2) = try await ws.run(["serve", big, "--listen", "127.0.0.1:\(port)", "--token-file", "token"],
                                              label: "serve2", timeout: .seconds(300))
        #expect(second == 0, "\(out2)")
        let peak = ProcessFacts.peakRSS(worker.processIdentifier)
        #expect(baseline > 0 && peak > 0, "no /proc figures")
        #expect(peak - baseline <= 32 << 20, "peak RSS grew from \(baseline >> 20) MB to \(peak >> 20) MB")
        let runID = try #require(try ws.latestRunID())
        let (_, listed) = try await ws.run(["artifacts", runID], label: "artifacts")
        #expect(listed.contains("stdout.log  text/plain  1073741824 B"), "\(listed)")
        // Output that does not compress: the kept part is capped, the rest counted; the bound still holds.
        let random = try CommandJobTests.commandMatrix(ws, argv: #"["head", "-c", "134217728", "/dev/urandom"]"#)
        let (third, out3) = try await ws.run(["serve", random, "--listen", "127.0.0.1:\(port)", "--token-file", "token"],
                                             label: "serve3", timeout: .seconds(300))
        #expect(third == 0, "\(out3)")
        let randomPeak = ProcessFacts.peakRSS(worker.processIdentifier)
        #expect(randomPeak - baseline <= 32 << 20, "peak RSS grew from \(baseline >> 20) MB to \(randomPeak >> 20) MB")
    }
}
