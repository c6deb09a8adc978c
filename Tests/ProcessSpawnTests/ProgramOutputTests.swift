import Foundation
import ProcessSpawn
import Testing

/// Waiting for a child's exit without blocking a thread: `Process.exited(timeout:)` and `ProgramOutput.run`.
@Suite("Awaiting a process's exit", .timeLimit(.minutes(6)))
struct ProgramOutputTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fm-exit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("more probes than the cooperative pool has threads all finish: a later task that lets them go still runs")
    func probesDoNotHoldThreads() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Each probe says it started, then waits for `go`. A probe that held a thread while waiting (a semaphore, a
        // blocking read) would leave no thread for the task that creates `go` once every probe has started.
        let probes = ProcessInfo.processInfo.activeProcessorCount + 4
        let script = #"touch "started-$0"; while [ ! -e go ]; do sleep 0.05; done; echo "done $0""#
        let answers = try await withThrowingTaskGroup(of: String?.self) { group in
            for i in 0..<probes {
                group.addTask {
                    try await ProgramOutput.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "\(i)"], in: dir,
                                                timeout: .seconds(60))?.text
                }
            }
            group.addTask {
                while (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.count ?? 0 < probes {
                    try await Task.sleep(for: .milliseconds(20))
                }
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("go").path, contents: nil)
                return nil
            }
            var answers: [String] = []
            for try await answer in group { if let answer { answers.append(answer) } }
            return answers
        }
        #expect(Set(answers) == Set((0..<probes).map { "done \($0)\n" }))
    }

    @Test("a program that does not exit in time is ended and reported as nil; one that fails keeps its status and output")
    func timeoutAndStatus() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = ContinuousClock.now
        // `sleep 900`, and a bound of 300 s on the whole wait: in the parallel test run other suites have starved
        // this process's cooperative pool for over 60 s (a 60 s sleep then ended on its own before the timer ran).
        let hung = try await ProgramOutput.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo $$ > pid; exec sleep 900"],
                                               in: dir, timeout: .milliseconds(500))
        #expect(hung == nil)
        #expect(ContinuousClock.now - started < .seconds(300))
        let pid = try #require(Int32(String(contentsOf: dir.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "the timed-out program was ended")

        let failed = try #require(try await ProgramOutput.run(URL(fileURLWithPath: "/bin/sh"),
                                                              ["-c", "echo out; echo err >&2; exit 3"], errors: .merged,
                                                              timeout: .seconds(60)))
        #expect(failed.status == 3)
        #expect(failed.text == "out\nerr\n")
    }

    @Test("exited(timeout:) answers for a process that exited before the wait began, and times out on a live one")
    func exitedBeforeAndAlive() async throws {
        let quick = try Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
        while quick.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await quick.exited(timeout: .seconds(5)))
        let slow = try Process.run(URL(fileURLWithPath: "/bin/sleep"), arguments: ["60"])
        #expect(!(await slow.exited(timeout: .milliseconds(200))))
        await slow.stop()
        #expect(!slow.isRunning)
    }
}
