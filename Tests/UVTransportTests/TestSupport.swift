import Foundation
import Synchronization
import Testing
import UVTransport
import Wire

#if canImport(Glibc)
import Glibc
#endif

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `body`, failing with `TimedOut` after `seconds` (a guard against hangs, not a way to wait).
func withTimeout<T: Sendable>(
    _ seconds: Double = 10, _ what: String = "condition", _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimedOut(what: what) }
        return first
    }
}

/// A thread-safe event log whose waiters wake when a predicate over the log becomes true.
final class EventLog<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var waiters: [(id: Int, predicate: @Sendable ([Event]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    func append(_ event: Event) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.events.append(event)
            var ready: [CheckedContinuation<Void, Never>] = []
            s.waiters.removeAll { waiter in
                if waiter.predicate(s.events) { ready.append(waiter.continuation); return true }
                return false
            }
            return ready
        }
        for c in ready { c.resume() }
    }

    var events: [Event] { state.withLock { $0.events } }

    /// Waits until `predicate(events)` holds, or throws `TimedOut`.
    func wait(
        _ what: String, timeout: Double = 10, until predicate: @escaping @Sendable ([Event]) -> Bool
    ) async throws {
        try await withTimeout(timeout, what) { [self] in
            let id = state.withLock { s -> Int in
                s.nextID += 1
                return s.nextID
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { s -> Bool in
                        if predicate(s.events) || Task.isCancelled { return true }
                        s.waiters.append((id, predicate, c))
                        return false
                    }
                    if now { c.resume() }
                }
            } onCancel: { [self] in
                let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return s.waiters.remove(at: i).continuation
                }
                c?.resume()
            }
            try Task.checkCancellation()
        }
    }
}

enum ServerEvent: Sendable, Equatable {
    case opened(ConnectionID, peer: String?)
    case frames(ConnectionID, count: Int)
    case writability(ConnectionID, writable: Bool, outbound: Int)
    case closed(ConnectionID, CloseReason)
}

/// A server-side handler configured per test; records what happens into `log`.
final class RecordingHandler: FramedConnectionHandler {
    let log: EventLog<ServerEvent>
    let onOpenAction: (FramedConnection) -> Void
    let onFramesAction: (FramedConnection, FrameBatch) -> Void
    let onWritableAction: (FramedConnection) -> Void

    init(
        log: EventLog<ServerEvent>, onOpen: @escaping (FramedConnection) -> Void = { _ in },
        onFrames: @escaping (FramedConnection, FrameBatch) -> Void = { c, frames in c.send(contentsOf: frames) },
        onWritable: @escaping (FramedConnection) -> Void = { _ in }
    ) {
        self.log = log
        onOpenAction = onOpen
        onFramesAction = onFrames
        onWritableAction = onWritable
    }

    func onOpen(_ connection: FramedConnection) {
        log.append(.opened(connection.id, peer: connection.authenticatedPeer?.name))
        onOpenAction(connection)
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        log.append(.frames(connection.id, count: frames.count))
        onFramesAction(connection, frames)
    }

    func onWritabilityChanged(_ connection: FramedConnection) {
        log.append(.writability(connection.id, writable: connection.isWritable, outbound: connection.outboundBytes))
        onWritableAction(connection)
    }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        log.append(.closed(connection.id, reason))
    }
}

extension [ServerEvent] {
    var openedCount: Int { filter { if case .opened = $0 { true } else { false } }.count }
    var closeReasons: [CloseReason] { compactMap { if case .closed(_, let r) = $0 { r } else { nil } } }
}

/// A blocking POSIX socket for misbehaving peers (garbage, stalls, never reading, hanging up mid-write).
final class RawSocket: Sendable {
    let fd: Int32

    init(host: String = "127.0.0.1", port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 { throw TimedOut(what: "raw connect errno \(errno)") }
    }

    /// Reads until a whole CHALLENGE frame arrived (true) or the peer closed (false).
    func readChallenge() -> Bool {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            if let messages = try? Message.decodeAll(bytes), case .challenge? = messages.first { return true }
            let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return false }
            bytes += buffer[0..<n]
        }
    }

    func write(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Reads until EOF or `timeout`; returns the bytes and whether EOF (or reset) was seen.
    func readUntilClosed(timeout: Double = 10) -> (bytes: [UInt8], closed: Bool) {
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 100)
            if ready <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (out, true) }
            out.append(contentsOf: buffer[0..<n])
        }
        return (out, false)
    }

    /// Closes with RST (SO_LINGER 0): a hang-up in the middle of the server's writes.
    func reset() {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(fd)
    }

    func close() { Glibc.close(fd) }
}

let testToken = Array("correct horse battery staple".utf8)

func handshakeSettings(deadline: Duration = .seconds(10)) -> ServerHandshakeSettings {
    var s = ServerHandshakeSettings(token: testToken)
    s.deadline = deadline
    s.heartbeatInterval = nil
    return s
}

func clientHandshake(token: [UInt8] = testToken, versions: [UInt16] = [1]) -> ClientHandshakeSettings {
    var s = ClientHandshakeSettings(token: token, name: "worker-1", slots: 4, registries: ["catalog"], labels: ["linux"])
    s.versions = versions
    return s
}

/// Shuts the loop down and checks that nothing leaked.
func shutdownAndCheck(_ loop: EventLoop) {
    loop.shutdown()
    #expect(loop.liveHandles == 0)
    #expect(loop.closedCleanly)
}
