import Foundation
import Testing
import Wire

/// A fleet worker must not be stopped for good by anyone who can answer on its coordinator's address.
@Suite("Forged rejections", .serialized, .timeLimit(.minutes(2)))
struct ForgedRejectionTests {
    /// Listens on a port the kernel picks, answers the first connection with `frame` and closes everything.
    /// - Returns: the port (read back from the bound socket) and the thread that answers.
    private func answerOnce(with frame: [UInt8]) throws -> (port: Int, thread: Thread) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { close(fd); throw CocoaError(.fileWriteUnknown) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { close(fd); throw CocoaError(.fileWriteUnknown) }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread {
            let client = accept(fd, nil, nil)
            if client >= 0 {
                _ = frame.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
            close(fd)
        }
        thread.start()
        return (port, thread)
    }

    @Test("a REJECT before the coordinator authenticated is not final: the worker retries and serves the real one")
    func forgedRejectThenRealCoordinator() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("one", ["pass"])
        let matrix = try ws.matrix(locales: ["en"])
        try Data("forged-reject-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("token"))
        let forged = Message.reject(Reject(.authenticationFailed, "go away")).encoded()
        // The real coordinator later takes the forger's port: the address the worker was told.
        let (port, _) = try answerOnce(with: forged)
        let worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token",
                                   "--exit-after-drain"], label: "worker")
        try await waitUntil("the worker hears the forged REJECT", timeout: .seconds(30)) {
            ws.output("worker").contains("Not final")
        }
        #expect(worker.isRunning, "a rejection before authentication must not stop the worker")
        let serve = try ws.start(["serve", matrix, "--listen", "127.0.0.1:\(port)", "--token-file", "token"], label: "serve")
        try await ws.waitForExit(serve, timeout: .seconds(60))
        #expect(serve.terminationStatus == 0, "\(ws.output("serve"))")
        try await ws.waitForExit(worker, timeout: .seconds(30))
        #expect(worker.terminationStatus == 0, "\(ws.output("worker"))")
    }

    @Test("a forged REJECT's reason is printed with its terminal escapes made visible, as `show` prints stored text")
    func forgedRejectIsEscaped() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try Data("forged-reject-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("token"))
        let forged = Message.reject(Reject(.authenticationFailed, "go\u{1B}]0;owned\u{07}\u{1B}[2J away")).encoded()
        let (port, _) = try answerOnce(with: forged)
        let worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token"], label: "worker")
        try await waitUntil("the worker hears the forged REJECT", timeout: .seconds(30)) {
            ws.output("worker").contains("Not final")
        }
        let printed = ws.output("worker")
        #expect(printed.contains("go\\u{1B}]0;owned\\u{7}\\u{1B}[2J away"), "\(printed.debugDescription)")
        #expect(!printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        kill(worker.processIdentifier, SIGTERM)
        try await ws.waitForExit(worker, timeout: .seconds(30))
    }
}
