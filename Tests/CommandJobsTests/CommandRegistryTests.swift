import Artifacts
@testable import CommandJobs
import FlowSpec
import Foundation
import Gzip
import MatrixPlan
import Synchronization
import Testing
import Wire
import Worker

/// Runs one command job attempt through the `command` registry, as a worker does (the job's artifact sink bound).
struct Attempt {
    var error: (any Error)?
    var artifacts: [CompressedArtifact]
    var results: [NamedResult]

    init(_ template: CommandTemplate, item: String? = nil, configuration: [String: String] = ["locale": "en"],
         attempt: Int = 1, seed: UInt64 = 7, jobID: String = String(UUID().uuidString.prefix(16))) async {
        let scenario = item.map { template.scenario(item: $0) } ?? template.scenario(item: nil)
        let context = JobContext(jobID: jobID, attempt: attempt, configuration: configuration, seed: seed,
                                 timeout: .seconds(60), scenario: scenario)
        let registry = CommandRegistry(context: context, settings: CommandRegistrySettings())
        let sink = ArtifactSink()
        do {
            try await ArtifactSink.$current.withValue(sink) { try await registry.execute(scenario.steps[0]) }
        } catch {
            self.error = error
        }
        artifacts = sink.takeAll()
        results = await registry.namedResults()
    }

    func text(_ name: String) throws -> String {
        let artifact = try #require(artifacts.first { $0.name == name }, "no artifact \(name) in \(artifacts.map(\.name))")
        return String(decoding: try GzipCodec.decompress(artifact.compressed, maxOutputSize: 1 << 24), as: UTF8.self)
    }

    var message: String { error.map { "\($0)" } ?? "" }
}

/// True while `pid` is a live (not zombie) process.
func isAlive(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return !stat[stat.index(after: close)...].hasPrefix(" Z")
}

func waitUntil(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw CommandError("timed out waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

@Suite("command jobs run real processes")
struct CommandRegistryTests {
    @Test("placeholders take the configuration, the job's identity and the device mapping; env values are verbatim")
    func placeholders() async throws {
        let template = CommandTemplate(
            argv: ["/bin/sh", "-c", #"test -d "$1" || exit 9; shift; printf '%s|' "$@"; printf '%s' "$THEME""#, "sh",
                   "{output}", "{locale}", "{window.width}x{window.height}", "{job.id}", "{attempt}", "{seed}", "{item}",
                   "{device.testLanguage}-{device.testRegion}", "{device.launchArguments}", "{{x}}", "a b;$(rm -rf /)"],
            environment: ["THEME": "{theme} $HOME"])
        let run = await Attempt(template, item: "tests/test_a.py",
                                configuration: ["locale": "ar", "direction": "rtl", "window": "390x844", "theme": "dark"], attempt: 2,
                                jobID: "0123456789abcdef")
        #expect(run.error == nil, "\(run.message)")
        let printed = try run.text("stdout.log")
        #expect(printed == "ar|390x844|0123456789abcdef|2|7|tests/test_a.py|ar-SA|-AppleLanguages|(ar)|"
            + "-AppleLocale|ar_SA|-NSForceRightToLeftWritingDirection|YES|-AppleTextDirection|YES|{x}|a b;$(rm -rf /)|dark $HOME", "\(printed)")
    }

    @Test("a failing command fails with its exit status and the last lines of stderr")
    func failing() async throws {
        let template = CommandTemplate(argv: ["/bin/sh", "-c", "for i in $(seq 1 400); do echo \"line $i\" >&2; done; exit 3"])
        let run = await Attempt(template)
        #expect(run.message.hasPrefix("exited with status 3\n"), "\(run.message)")
        #expect(run.message.hasSuffix("line 400"))
        #expect(!run.message.contains("line 1\n"))
        #expect(try run.text("stderr.log").hasPrefix("line 1\nline 2\n"))
    }

    @Test("a program that does not exist fails the attempt with the reason")
    func missingProgram() async {
        let run = await Attempt(CommandTemplate(argv: ["/no/such/program"]))
        #expect(run.message.contains("cannot start '/no/such/program'"), "\(run.message)")
    }

    @Test("at the timeout the whole process group is killed: no orphan is left")
    func timeout() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-timeout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("background.pid").path
        // A background grandchild (same group) and a foreground sleep: both must die.
        let template = CommandTemplate(argv: ["/bin/sh", "-c", "sleep 300 & echo $! > \(pidFile); sleep 300"],
                                       timeout: .milliseconds(700))
        let started = ContinuousClock.now
        let run = await Attempt(template)
        // Far below the commands' 300 s (a loaded machine can take a while to schedule anything).
        #expect(ContinuousClock.now - started < .seconds(150))
        guard case .conditionTimedOut(let what, _)? = run.error as? StepError else {
            Issue.record("expected a timeout, got \(run.message)")
            return
        }
        #expect(what.contains("process group"))
        let pid = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        try await waitUntil("the background sleep \(pid) is gone", timeout: .seconds(10)) { !isAlive(pid) }
    }

    @Test("cancelling the job (its watchdog, a drain) kills the process group too")
    func cancelled() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        // Set when the run returns or throws: a command that ends before it wrote its pid says why, not "timed out".
        let ended = Mutex<String?>(nil)
        let task = Task {
            do {
                let outcome = try await CommandProcess.run(CommandInvocation(
                    argv: ["/bin/sh", "-c", "sleep 300 & echo $! > \(pidFile); wait"], environment: [:]))
                ended.withLock { $0 = "it returned (exit \(outcome.exitStatus.map(String.init) ?? "none"), stderr: \(outcome.stderrTail))" }
                return outcome
            } catch {
                ended.withLock { $0 = "it threw \(error)" }
                throw error
            }
        }
        // A generous bound: in the parallel test run a shell has taken over 30 s to start.
        // The shell creates the file before `echo` writes it: wait for the pid itself, not the file.
        func writtenPID() -> Int32? {
            (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        try await waitUntil("the command started", timeout: .seconds(90)) {
            writtenPID() != nil || ended.withLock { $0 } != nil
        }
        guard let pid = writtenPID() else {
            Issue.record("the command ended before it started its background sleep: \(ended.withLock { $0 } ?? "?")")
            return
        }
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.cancelled)
        #expect(outcome.signal == SIGKILL)
        try await waitUntil("the background sleep is gone", timeout: .seconds(10)) { !isAlive(pid) }
        #expect(!isAlive(outcome.pid))
    }

    @Test("each test of the JUnit result files becomes a named result; failing tests fail a command that exited 0")
    func junitResults() async throws {
        let sample = Samples.root.appendingPathComponent("junit/pytest.xml").path
        let template = CommandTemplate(argv: ["cp", sample, "{output}/junit.xml"], results: ["{output}/*.xml"])
        let run = await Attempt(template)
        // `cp` exits 0, but the file it wrote reports a failed and an errored test: the attempt fails, naming them.
        #expect(run.message.hasPrefix("exited with status 0 (2 of 4 tests failed: "), "\(run.message)")
        #expect(run.results.map(\.name) == [
            "test:tests.test_labels.test_price_label_fits[de]", "test:tests.test_labels.test_total_alignment",
            "test:tests.test_format.test_currency", "test:tests.test_format.test_digits",
        ])
        #expect(run.results.map(\.status) == [.failed, .passed, .errored, .passed])
        #expect(run.artifacts.contains { $0.name == "junit.xml" && $0.mediaType == "application/xml" })
    }

    @Test("a command that exits 0 with only passing and skipped tests passes")
    func passingResults() async throws {
        let xml = #"<testsuite><testcase classname="s" name="a"/><testcase classname="s" name="b"><skipped/></testcase></testsuite>"#
        let template = CommandTemplate(argv: ["/bin/sh", "-c", "printf '%s' \"$2\" > \"$1\"", "sh", "{output}/junit.xml", xml],
                                       results: ["{output}/*.xml"])
        let run = await Attempt(template)
        #expect(run.error == nil, "\(run.message)")
        #expect(run.results.map(\.status) == [.passed, .skipped])
    }

    @Test("a result file that is not valid XML fails the attempt clearly, and the file is kept")
    func invalidResultFile() async throws {
        let template = CommandTemplate(argv: ["/bin/sh", "-c", "printf '<testsuite><testcase name=\"a\">\\n' > \"$1\"", "sh",
                                              "{output}/junit.xml"], results: ["{output}/junit.xml"])
        let run = await Attempt(template)
        #expect(run.message.contains("is not valid JUnit XML: line 2: <testcase> is never closed"), "\(run.message)")
        #expect(run.artifacts.contains { $0.name == "junit.xml" })
    }

    @Test("a declared result file the command did not write fails the attempt")
    func missingResultFile() async {
        let run = await Attempt(CommandTemplate(argv: ["true"], results: ["{output}/junit.xml"]))
        #expect(run.message.hasPrefix("no result file matched"), "\(run.message)")
    }

    @Test("a shell command runs under /bin/sh -c only when the matrix asks")
    func shell() async throws {
        let run = await Attempt(CommandTemplate(argv: ["echo {locale} | tr a-z A-Z"], shell: true),
                                configuration: ["locale": "fr"])
        #expect(try run.text("stdout.log") == "FR\n")
        let plain = await Attempt(CommandTemplate(argv: ["echo", "{locale} | tr a-z A-Z"]), configuration: ["locale": "fr"])
        #expect(try plain.text("stdout.log") == "fr | tr a-z A-Z\n")
    }
}
