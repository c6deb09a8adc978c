@testable import CommandJobs
import FlowSpec
import Foundation
import MatrixPlan
import Synchronization
import Testing

#if canImport(Darwin)
    import Darwin
#else
    import Glibc
#endif

/// A scratch folder for one test, removed by `cleanUp()`.
struct ScratchFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fm-left-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }

    /// The pid a command wrote to `name`.
    func pid(_ name: String) throws -> Int32 {
        try #require(Int32(try String(contentsOfFile: path(name), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}

/// A shell snippet that starts `sleep 300` in a session of its own (out of the command's process group) writing its
/// pid to `pidFile`, and waits until that process is `sleep` (so the command cannot end before its escapee exists
/// under its final name). Linux (`/proc`).
func escapee(_ pidFile: String) -> String {
    "setsid sh -c 'echo $$ > \(pidFile); exec sleep 300' & "
        + "while [ \"$(cat /proc/$(cat \(pidFile) 2>/dev/null)/comm 2>/dev/null)\" != sleep ]; do :; done"
}

/// Kills `pid` if a failed test left it running.
func stray(_ pid: Int32?) {
    if let pid, isAlive(pid) { _ = kill(pid, SIGKILL) }
}

// Waits are generous (a condition, not a delay): in the parallel test run, shells on the loaded 2-core machine have
// taken over 30 s to start.
@Suite("what a command leaves running ends with its job")
struct LeftoverProcessTests {
    #if os(Linux)
        @Test("a process that left the command's session (setsid) is ended once the command exits, and the outcome names it")
        func setsidEscapee() async throws {
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            let started = ContinuousClock.now
            let outcome = try await CommandProcess.run(CommandInvocation(
                argv: ["/bin/sh", "-c", escapee(folder.path("escapee.pid")) + "; echo started"], environment: [:]))
            let pid = try folder.pid("escapee.pid")
            defer { stray(pid) }
            // Far below the escapee's 300 s (a loaded machine can take a while to schedule anything).
            #expect(ContinuousClock.now - started < .seconds(150))
            #expect(outcome.passed)
            #expect(outcome.leftBehind == [LeftProcess(pid: pid, command: "sleep 300", ended: true)], "\(outcome.leftBehind)")
            try await waitUntil("the escaped sleep \(pid) is gone", timeout: .seconds(30)) { !isAlive(pid) }
            #expect(CommandRegistry.leftBehindText(outcome.leftBehind) == "left 1 process behind (pid \(pid), `sleep 300`), ended")
        }

        @Test("a background process in the command's group is reported as left behind, and ended")
        func backgroundInGroup() async throws {
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            let pidFile = folder.path("background.pid")
            let outcome = try await CommandProcess.run(CommandInvocation(
                argv: ["/bin/sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $! > \(pidFile)"], environment: [:]))
            let pid = try folder.pid("background.pid")
            defer { stray(pid) }
            #expect(outcome.passed)
            #expect(outcome.leftBehind.map(\.pid) == [pid], "\(outcome.leftBehind)")
            try await waitUntil("the background sleep \(pid) is gone", timeout: .seconds(30)) { !isAlive(pid) }
        }

        @Test("a command that leaves nothing running says nothing")
        func nothingLeft() async throws {
            let outcome = try await CommandProcess.run(CommandInvocation(argv: ["/bin/sh", "-c", "sleep 0 & wait"], environment: [:]))
            #expect(outcome.passed)
            #expect(outcome.leftBehind.isEmpty, "\(outcome.leftBehind)")
            #expect(CommandRegistry.leftBehindText([]) == nil)
        }

        @Test("ending one command's leftovers leaves another running command's processes alone")
        func otherCommandsAreSpared() async throws {
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            // A: starts an escapee of its own, then runs until cancelled.
            let ended = Mutex<String?>(nil)
            let first = Task {
                do {
                    let outcome = try await CommandProcess.run(CommandInvocation(
                        argv: ["/bin/sh", "-c", escapee(folder.path("a.pid")) + "; sleep 300"], environment: [:]))
                    ended.withLock { $0 = "it returned (exit \(outcome.exitStatus.map(String.init) ?? "none"))" }
                    return outcome
                } catch {
                    ended.withLock { $0 = "it threw \(error)" }
                    throw error
                }
            }
            try await waitUntil("A started its escapee", timeout: .seconds(90)) {
                (try? folder.pid("a.pid")) != nil || ended.withLock { $0 } != nil
            }
            let a = try folder.pid("a.pid")
            defer { stray(a) }
            // B: exits leaving an escapee, which is ended; A's is not B's.
            let second = try await CommandProcess.run(CommandInvocation(
                argv: ["/bin/sh", "-c", escapee(folder.path("b.pid"))], environment: [:]))
            let b = try folder.pid("b.pid")
            defer { stray(b) }
            #expect(second.leftBehind.map(\.pid) == [b], "\(second.leftBehind)")
            try await waitUntil("B's escapee is gone", timeout: .seconds(30)) { !isAlive(b) }
            #expect(isAlive(a), "A's escapee was killed with B's leftovers")
            #expect(ended.withLock { $0 } == nil)
            // A cancelled: its escapee, outside its killed group, is ended too and named.
            first.cancel()
            let outcome = try await first.value
            #expect(outcome.cancelled)
            #expect(outcome.leftBehind.map(\.pid) == [a], "\(outcome.leftBehind)")
            try await waitUntil("A's escapee is gone", timeout: .seconds(30)) { !isAlive(a) }
        }

        @Test("at the time limit, a process outside the group is ended too, and the timeout message says so")
        func timeoutWithEscapee() async throws {
            let folder = try ScratchFolder()
            defer { folder.cleanUp() }
            let template = CommandTemplate(argv: ["/bin/sh", "-c", escapee(folder.path("e.pid")) + "; sleep 300"],
                                           timeout: .seconds(5))
            let run = await Attempt(template)
            let pid = try folder.pid("e.pid")
            defer { stray(pid) }
            guard case .conditionTimedOut(let what, _)? = run.error as? StepError else {
                Issue.record("expected a timeout, got \(run.message)")
                return
            }
            #expect(what.contains("was killed; it left 1 process behind (pid \(pid), `sleep 300`), ended"), "\(what)")
            try await waitUntil("the escapee \(pid) is gone", timeout: .seconds(30)) { !isAlive(pid) }
        }
    #endif
}
