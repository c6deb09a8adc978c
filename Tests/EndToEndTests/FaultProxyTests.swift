import Foundation
import Journal
import Synchronization
import Testing

/// A userspace TCP proxy between a worker and its coordinator that can reset every connection through it.
final class FaultProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let sockets = Mutex<[Int32]>([])

    /// Listens on a free loopback port and forwards each connection to `target`.
    init(target: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw CocoaError(.fileWriteUnknown) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let listener = fd
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var to = sockaddr_in()
                to.sin_family = sa_family_t(AF_INET)
                to.sin_port = in_port_t(UInt16(target).bigEndian)
                inet_pton(AF_INET, "127.0.0.1", &to.sin_addr)
                let ok = withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard ok == 0 else { close(client); close(upstream); continue }
                sockets.withLock { $0 += [client, upstream] }
                Self.pump(from: client, to: upstream)
                Self.pump(from: upstream, to: client)
            }
        }.start()
    }

    private static func pump(from: Int32, to: Int32) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                var sent = 0
                while sent < n {
                    let m = buffer[sent..<n].withUnsafeBytes { send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if m <= 0 { break }
                    sent += m
                }
                if sent < n { break }
            }
            shutdown(to, Int32(SHUT_RDWR))
        }.start()
    }

    /// Resets every connection through the proxy (RST, as a network fault would), keeping the listener.
    func resetAll() {
        let all = sockets.withLock { s -> [Int32] in defer { s.removeAll() }; return s }
        for fd in all {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        resetAll()
    }
}

@Suite("Network faults through a fault proxy", .serialized, .timeLimit(.minutes(2)))
struct FaultProxyTests {
    @Test("three connection resets: the worker reconnects as itself, nothing is quarantined, and it runs two jobs at once again")
    func resetsAreNotCrashes() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        // 16 jobs of 1.5 s on 2 slots (12 s of work): after the third reset, at 6 finished, work is left to show
        // how the reconnected worker is fed, even on a loaded machine.
        for i in 0..<8 { try ws.scenario("net-\(i)", ["busy:1500"]) }
        let matrix = try ws.matrix(locales: ["en", "de"], keep: "none")
        try Data("proxy-token-0123456789abcdef".utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        try await waitUntil("the coordinator listens", timeout: .seconds(30)) { ws.output("serve").contains("job(s)") }
        let proxy = try FaultProxy(target: port)
        defer { proxy.stop() }
        let worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(proxy.port)", "--token-file", "token", "--slots", "2",
                                   "--name", "behind-proxy", "--exit-after-drain", "--give-up-after", "10"], label: "worker")
        var resetAt: [Date] = []
        for round in 1...3 {
            try await waitUntil("\(round * 2) jobs are final", timeout: .seconds(60)) { ws.finishedJobs() >= round * 2 }
            resetAt.append(Date())
            proxy.resetAll()
        }
        try await ws.waitForExit(serve, timeout: .seconds(90))
        #expect(serve.terminationStatus == 0, "\(ws.output("serve"))")
        // It exits on the coordinator's DRAIN (or, had it missed it, once nothing answers for 10 s).
        try await ws.waitForExit(worker, timeout: .seconds(45))
        let runID = try #require(try ws.latestRunID())
        let outcomes = try ws.outcomes(run: runID)
        #expect(outcomes.count == 16 && outcomes.values.allSatisfy { $0 == .passed }, "\(outcomes)")
        // After the last reset the reconnected worker ran two jobs at once: the jobs lost with the connection were
        // not treated as crash suspects (which run alone).
        // On a loaded machine the journal can lag the run, so the latest reset with work after it is the one judged.
        let reader = try JournalReader(path: ws.journalPath)
        var passed: [(Date, Date)] = []
        for job in outcomes.keys {
            for a in try reader.attempts(run: runID, job: job) where a.result?.outcome == .passed {
                if let s = a.startedAt, let e = a.result?.finishedAt { passed.append((s, e)) }
            }
        }
        passed.sort { $0.0 < $1.0 }
        let judged = resetAt.reversed().lazy.map { reset in passed.filter { $0.0 > reset } }.first { $0.count >= 2 }
        let spans = try #require(judged, "no reset had two jobs after it: \(resetAt) \(passed)")
        #expect(spans[1].0 < spans[0].1, "the first two jobs after the reset overlapped: \(spans)")
    }
}
