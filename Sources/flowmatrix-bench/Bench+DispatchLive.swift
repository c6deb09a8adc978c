import FlowMatrixCLI
import Foundation
import LiveView
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

extension DispatchBench {
    /// `flowmatrix bench dispatch-live`: the headline dispatch case (journal on) without and with the live view
    /// serving one connected event-stream client, alternated in the same sitting.
    static let liveSuite = BenchSuite(
        name: "dispatch-live", overview: "dispatch (journal on) without / with the live view and 1 SSE client, alternated"
    ) { quick in
        var plain: [Double] = [], live: [Double] = []
        for round in 1...(quick ? 1 : 3) {
            if !quick { print("  round \(round):") }
            if let r = try await throughput(jobs: quick ? 2_000 : 100_000, journal: true) { plain.append(r.endToEnd) }
            if let r = try await throughput(jobs: quick ? 2_000 : 100_000, journal: true, live: true) { live.append(r.endToEnd) }
        }
        let a = plain.sorted(), b = live.sorted()
        guard !a.isEmpty, !b.isEmpty else { return }
        print(String(format: "  median end to end: %.0f jobs/s without, %.0f jobs/s with the live view and a client (%.1f%%)",
                     a[a.count / 2], b[b.count / 2], (b[b.count / 2] / a[a.count / 2] - 1) * 100))
    }
}

/// A live server with one event-stream client reading on its own thread, for the dispatch bench.
final class LiveViewer: Sendable {
    let server: LiveServer
    private let fd: Int32
    private let received = Atomic<Int>(0)
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let finished = Atomic<Bool>(false)

    private init(server: LiveServer, fd: Int32) {
        self.server = server
        self.fd = fd
    }

    static func start(runID: String, jobs: Int, journalPath: String) async throws -> LiveViewer {
        let server = try await LiveServer.start(host: "127.0.0.1", port: 0, token: nil, runID: runID, jobs: jobs,
                                                journalPath: journalPath)
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else {
            server.stop()
            throw CommandFailure("cannot connect to the live view on port \(server.port)")
        }
        let viewer = LiveViewer(server: server, fd: fd)
        let request = Array("GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n".utf8)
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
        let thread = Thread { viewer.read() }
        thread.name = "flowmatrix.bench-sse-client"
        thread.start()
        return viewer
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received.add(n, ordering: .relaxed)
        }
        finished.store(true, ordering: .releasing)
        done.withLock { $0?.resume(); $0 = nil }
    }

    /// Stops the server (which closes the client's stream), waits for the reader, and prints what it received.
    func stop() async {
        let stats = await server.statistics()
        server.stop()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let already = done.withLock { slot -> Bool in
                if finished.load(ordering: .acquiring) { return true }
                slot = c
                return false
            }
            if already { c.resume() }
        }
        close(fd)
        print(String(format: "  live view: the client read %.1f MB in %d event batches; %d pivot(s) recomputed; %d slow client(s) dropped",
                     Double(received.load(ordering: .relaxed)) / 1e6, stats.eventsSent, stats.pivots, stats.droppedSlowClients))
    }
}
