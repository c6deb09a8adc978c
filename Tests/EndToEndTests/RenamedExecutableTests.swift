@testable import FlowMatrixCLI
import Foundation
import Journal
import Testing

/// `flowmatrix` installed under another name starts its local workers as itself (docs/FLEET.md, "Installing").
@Suite("a renamed flowmatrix", .timeLimit(.minutes(2)))
struct RenamedExecutableTests {
    @Test("the worker program is the running executable whatever its name, and flowmatrix beside flowmatrix-bench")
    func workerProgram() {
        let folder = URL(fileURLWithPath: "/opt/tools")
        #expect(ProcessFacts.flowmatrix(running: folder.appendingPathComponent("fm")).path == "/opt/tools/fm")
        #expect(ProcessFacts.flowmatrix(running: folder.appendingPathComponent("flowmatrix")).path == "/opt/tools/flowmatrix")
        #expect(ProcessFacts.flowmatrix(running: folder.appendingPathComponent("flowmatrix-bench")).path
            == "/opt/tools/flowmatrix")
    }

    @Test("a copy named fm runs a matrix with its own local workers")
    func copyNamedFM() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let copy = ws.root.appendingPathComponent("fm")
        try FileManager.default.copyItem(at: E2EWorkspace.binary, to: copy)
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix(registry: "noop")
        let run = try ws.start(tool: copy.path, ["run", matrix, "--workers", "1"], label: "fm")
        try await ws.waitForExit(run, timeout: .seconds(90))
        #expect(run.terminationStatus == 0, "\(ws.output("fm"))")
        let runID = try #require(try ws.latestRunID())
        let jobs = try JournalReader(path: ws.journalPath).jobs(run: runID)
        #expect(jobs.count == 2 && jobs.allSatisfy { $0.result?.outcome == .passed })
    }

    @Test("a worker program that cannot be started is named with the reason in words, exit 2")
    func unstartableWorkerProgram() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix(registry: "noop")
        // Executable, but not a program: the kernel refuses to start it.
        let program = ws.root.appendingPathComponent("not-a-program")
        try Data("not a program\n".utf8).write(to: program)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        let (status, output) = try await ws.run(["run", matrix, "--workers", "1", "--worker-executable", program.path],
                                                label: "unstartable", timeout: .seconds(60), localWorkers: .flowmatrix)
        #expect(status == 2)
        #expect(output.contains("cannot start local workers (\(program.path)): exec format error")
            || output.contains("cannot start local workers (\(program.path)): Exec format error"), "\(output)")
        #expect(!output.contains("NSCocoaErrorDomain") && !output.contains("Code="), "\(output)")
    }
}
