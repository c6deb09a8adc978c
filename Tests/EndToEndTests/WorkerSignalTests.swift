import Foundation
import Testing

/// A worker told to stop by its fleet manager (SIGTERM) stops cleanly: the command it runs is killed with its
/// process group, the coordinator hears the connection close (and runs the job again elsewhere), and the worker
/// exits 0 — not 143 with the command still running.
@Suite("Worker signals", .timeLimit(.minutes(3)))
struct WorkerSignalTests {
    @Test("SIGTERM: the running command is killed, the worker exits 0 saying it stopped, the coordinator goes on")
    func sigterm() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Data("#!/bin/sh\necho $$ > job.pid\nexec sleep 300\n".utf8).write(to: ws.root.appendingPathComponent("job.sh"))
        let matrix = try CommandJobTests.commandMatrix(ws, argv: #"["/bin/sh", "job.sh"]"#)
        try Data("fleet-token-0123456789abcdef0123".utf8).write(to: ws.root.appendingPathComponent("fleet.token"))
        chmod(ws.root.appendingPathComponent("fleet.token").path, 0o600)
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "fleet.token"], label: "serve")
        let worker = try ws.start(["worker", "--connect", "127.0.0.1:\(port)", "--token-file", "fleet.token", "--slots", "1",
                                   "--allow-commands", "--name", "signalled"], label: "worker")
        let pidFile = ws.root.appendingPathComponent("job.pid")
        var pid: Int32 = 0
        try await waitUntil("the command job runs", timeout: .seconds(60)) {
            guard let text = try? String(contentsOf: pidFile, encoding: .utf8),
                  let value = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return false }
            pid = value
            return kill(pid, 0) == 0
        }
        defer { if kill(pid, 0) == 0 { kill(pid, SIGKILL) } }

        kill(worker.processIdentifier, SIGTERM)
        try await ws.waitForExit(worker, timeout: .seconds(60))
        #expect(worker.terminationReason == .exit && worker.terminationStatus == 0, "\(ws.output("worker"))")
        #expect(ws.output("worker").contains("stopping: cancelling the jobs it holds"), "\(ws.output("worker"))")
        try await waitUntil("the command's sleep \(pid) is gone", timeout: .seconds(30)) { kill(pid, 0) != 0 }
        // The coordinator is still serving: the job waits for another worker.
        #expect(serve.isRunning, "\(ws.output("serve"))")
        await ws.kill9(serve)
    }
}
