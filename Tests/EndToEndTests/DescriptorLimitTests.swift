import Foundation
import Testing
import UVTransport

/// `flowmatrix serve` and its open-file limit: it raises the soft limit to the hard limit at start, and when
/// connections are refused for lack of descriptors it says so, once per burst, naming the limit.
@Suite("Open-file limit of a coordinator process", .serialized, .timeLimit(.minutes(2)))
struct DescriptorLimitTests {
    static let token = Array("descriptor-limit-token-0123456789".utf8)

    /// Starts `flowmatrix serve` under `sh -c 'ulimit <ulimit> && exec …'`; returns it and its port.
    private func startServe(_ ws: E2EWorkspace, ulimit: String, label: String) async throws -> (Process, Int) {
        try ws.scenario("job", ["busy:100", "pass"])
        let matrix = try ws.matrix(locales: ["en"])
        try Data(Self.token).write(to: ws.root.appendingPathComponent("token"))
        chmod(ws.root.appendingPathComponent("token").path, 0o600)
        let serve = try ws.start(tool: "/bin/sh", [
            "-c", "ulimit \(ulimit) && exec \"$0\" \"$@\"", E2EWorkspace.binary.path, "serve", matrix,
            "--token-file", "token", "--listen", "127.0.0.1:0",
        ], label: label)
        let marker = "workers connecting to 127.0.0.1:"
        var port: Int?
        try await waitUntil("\(label) says its port", timeout: .seconds(60)) {
            let text = ws.output(label)
            guard let range = text.range(of: marker) else { return !serve.isRunning }
            port = Int(text[range.upperBound...].prefix { $0.isNumber })
            return port != nil
        }
        return (serve, try #require(port, "serve exited: \(ws.output(label))"))
    }

    #if os(Linux)
    @Test("serve raises its open-file soft limit to the hard limit at start")
    func raisesSoftLimit() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let hard = try #require(DescriptorLimit.current).hard
        try #require(hard > 512, "the hard limit here (\(hard)) is too low to tell a raise from none")
        let (serve, _) = try await startServe(ws, ulimit: "-S -n 256", label: "serve")
        let limits = try String(contentsOfFile: "/proc/\(serve.processIdentifier)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { UInt64($0) }
        #expect(numbers.first == hard, "soft limit not raised: \(line)")
    }
    #endif

    @Test("connections refused for lack of descriptors are said once, naming the limit, and serve goes on")
    func refusedConnectionsAreSaid() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // Soft and hard at 48: serve cannot raise it, and about 30 connections exhaust it.
        let (serve, port) = try await startServe(ws, ulimit: "-n 48", label: "serve")
        let loop = EventLoop()
        loop.start()
        defer { loop.shutdown() }
        var clients: [AsyncFramedClient] = []
        for _ in 0..<120 {
            // Connections the coordinator refuses are accepted and closed by libuv: connect may fail or close at once.
            if let client = try? await AsyncFramedClient.connect(host: "127.0.0.1", port: port, loop: loop) {
                clients.append(client)
            }
        }
        let notice = "open-file descriptors"
        try await waitUntil("serve says connections are refused", timeout: .seconds(20)) {
            ws.output("serve").contains(notice)
        }
        let text = ws.output("serve")
        #expect(text.contains("48"), "the notice names the limit: \(text)")
        #expect(text.components(separatedBy: notice).count - 1 == 1, "said once per burst: \(text)")
        #expect(serve.isRunning)
        for client in clients { await client.close(graceful: false) }
    }
}
