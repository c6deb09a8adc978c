import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A DevTools protocol connection over a pipe pair: commands with ids and timeouts, responses matched to them,
/// events routed to the handler of their session (flattened sessions: one pipe, `sessionId` on each message).
///
/// Threads: a dedicated reader thread blocks in `read` on the browser's pipe, splits messages at NUL, parses them
/// and resumes the waiting commands or calls the event handlers (which must be quick and must not block). Writes
/// happen on the caller's thread under a lock. When the pipe closes (the browser exited or crashed) every waiting
/// command fails with `.browserClosed` and the close handlers run once. A malformed or unexpected message is
/// recorded (`protocolErrors`) and passed to `onProtocolError`; it never stops the connection.
public final class DevToolsConnection: Sendable {
    /// An event: its method, params and session (nil for browser-level events).
    public typealias EventHandler = @Sendable (_ method: String, _ params: JSONValue) -> Void

    private struct Pending {
        var method: String
        var session: String?
        var continuation: CheckedContinuation<JSONValue, any Error>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var nextID = 1
        var pending: [Int: Pending] = [:]
        /// Commands whose answer nobody waits for (fire-and-forget), so their replies are not "unexpected".
        var ignored: Set<Int> = []
        var sessions: [String: EventHandler] = [:]
        var browserEvents: EventHandler?
        var closeHandlers: [@Sendable (DevToolsError) -> Void] = []
        var closedBy: DevToolsError?
        var protocolErrors: [DevToolsError] = []
        var protocolErrorCount = 0
    }

    private let state = Mutex(State())
    /// Our write end; nil once closed. Writes and the close hold this lock, so an fd is never reused under a write.
    private let writer: Mutex<Int32?>
    private let readFD: Int32
    public let defaultTimeout: Duration
    private let protocolErrorHandler: (@Sendable (DevToolsError) -> Void)?

    /// Starts the reader thread on `readFD`; commands are written to `writeFD`. The connection owns both fds.
    /// Ignores SIGPIPE for the whole process (as the libuv transport does): a write racing the browser's death must
    /// fail with EPIPE, not end the process.
    public init(
        readFD: Int32, writeFD: Int32, defaultTimeout: Duration = .seconds(30),
        onProtocolError: (@Sendable (DevToolsError) -> Void)? = nil
    ) {
        signal(SIGPIPE, SIG_IGN)
        self.readFD = readFD
        writer = Mutex(writeFD)
        self.defaultTimeout = defaultTimeout
        protocolErrorHandler = onProtocolError
        let thread = Thread { [self] in readLoop() }
        thread.name = "flowmatrix.devtools-reader"
        thread.start()
    }

    deinit { closeWriter() }

    // MARK: Commands

    /// Sends a command and waits for its answer.
    /// - Parameters:
    ///   - session: the flattened session it is for; nil for the browser target.
    ///   - timeout: the longest to wait for the answer (default: `defaultTimeout`).
    /// - Returns: the `result` object.
    /// - Throws: `DevToolsError` (`.commandFailed`, `.timedOut`, `.browserClosed`) or `CancellationError`.
    public func send(
        _ method: String, _ params: JSONValue = [:], session: String? = nil,
        timeout: Duration? = nil
    ) async throws -> JSONValue {
        let limit = timeout ?? defaultTimeout
        let idBox = Mutex<Int?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                let registered: Result<Int, DevToolsError> = state.withLock { s in
                    if let closed = s.closedBy { return .failure(closed) }
                    let id = s.nextID
                    s.nextID += 1
                    s.pending[id] = Pending(method: method, session: session, continuation: continuation, timer: nil)
                    return .success(id)
                }
                let id: Int
                switch registered {
                case .failure(let error): return continuation.resume(throwing: error)
                case .success(let value): id = value
                }
                idBox.withLock { $0 = id }
                let timer = Task { [weak self] in
                    do { try await Task.sleep(for: limit) } catch { return }
                    self?.complete(
                        id,
                        with: .failure(
                            DevToolsError(
                                .timedOut, "the browser did not answer \(method) within \(Self.secondsText(limit))")))
                }
                state.withLock { s in s.pending[id]?.timer = timer }
                if let error = write(
                    DevToolsMessage.encodeCommand(id: id, method: method, params: params, sessionID: session))
                {
                    complete(id, with: .failure(error))
                }
                if Task.isCancelled { complete(id, with: .failure(CancellationError())) }
            }
        } onCancel: {
            if let id = idBox.withLock({ $0 }) { complete(id, with: .failure(CancellationError())) }
        }
    }

    /// Sends a command without waiting for its answer (used where no task can wait, e.g. a deinit).
    public func sendIgnoringReply(_ method: String, _ params: JSONValue = [:], session: String? = nil) {
        let id: Int? = state.withLock { s in
            guard s.closedBy == nil else { return nil }
            let id = s.nextID
            s.nextID += 1
            s.ignored.insert(id)
            return id
        }
        guard let id else { return }
        _ = write(DevToolsMessage.encodeCommand(id: id, method: method, params: params, sessionID: session))
    }

    private func complete(_ id: Int, with result: Result<JSONValue, any Error>) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
        pending.timer?.cancel()
        pending.continuation.resume(with: result)
    }

    private func write(_ bytes: [UInt8]) -> DevToolsError? {
        writer.withLock { fd -> DevToolsError? in
            guard let fd else { return DevToolsError(.browserClosed, "the DevTools connection is closed") }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { raw in
                    #if canImport(Darwin)
                        Darwin.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    #else
                        Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    #endif
                }
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return DevToolsError(
                        .browserClosed, "writing to the browser failed: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
            return nil
        }
    }

    // MARK: Events and lifecycle

    /// Routes the events of `session` to `handler` (on the reader thread; keep it short).
    public func subscribe(session: String, _ handler: @escaping EventHandler) {
        state.withLock { $0.sessions[session] = handler }
    }

    public func unsubscribe(session: String) { _ = state.withLock { $0.sessions.removeValue(forKey: session) } }

    /// Routes events without a session (Target.*, Browser.*) to `handler`.
    public func subscribeBrowserEvents(_ handler: @escaping EventHandler) {
        state.withLock { $0.browserEvents = handler }
    }

    /// Calls `handler` once when the connection closes (at once if it is closed already).
    public func onClose(_ handler: @escaping @Sendable (DevToolsError) -> Void) {
        let closed: DevToolsError? = state.withLock { s in
            if let c = s.closedBy { return c }
            s.closeHandlers.append(handler)
            return nil
        }
        if let closed { handler(closed) }
    }

    /// Fails every command of `session` still waiting (its target crashed or went away: no answer will come).
    public func failPending(session: String, _ error: DevToolsError) {
        let failed = state.withLock { s -> [Pending] in
            let ids = s.pending.filter { $0.value.session == session }.map(\.key)
            return ids.compactMap { s.pending.removeValue(forKey: $0) }
        }
        for p in failed {
            p.timer?.cancel()
            p.continuation.resume(throwing: DevToolsError(error.code, "\(p.method): \(error.message)"))
        }
    }

    /// Commands sent and not yet answered.
    public var pendingCommands: Int { state.withLock { $0.pending.count } }

    /// Commands sent so far, answered or not (round trips: what a step's evidence costs, in tests and benches).
    public var commandsSent: Int { state.withLock { $0.nextID - 1 } }

    /// Why the connection closed; nil while open.
    public var closedBy: DevToolsError? { state.withLock { $0.closedBy } }

    /// The most recent malformed or unexpected messages (at most 16) and how many there were in all.
    public var protocolErrors: (recent: [DevToolsError], count: Int) {
        state.withLock { ($0.protocolErrors, $0.protocolErrorCount) }
    }

    /// Closes our write end: the browser sees EOF on its command pipe and exits; the reader then sees EOF.
    public func closeWriter() {
        writer.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    private func readLoop() {
        var decoder = DevToolsFrameDecoder()
        let size = 1 << 16
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        var reason = "the browser closed its DevTools pipe (it exited or crashed)"
        while true {
            let n = read(readFD, buffer.baseAddress, size)
            if n < 0 {
                if errno == EINTR { continue }
                reason = "reading from the browser failed: \(String(cString: strerror(errno)))"
                break
            }
            if n == 0 { break }
            decoder.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            while true {
                do {
                    guard let message = try decoder.next() else { break }
                    do { try dispatch(DevToolsMessage.decode(message)) } catch { recordProtocolError(error) }
                } catch {
                    recordProtocolError(error)
                }
            }
        }
        close(readFD)
        shutDown(DevToolsError(.browserClosed, reason))
    }

    private func dispatch(_ message: DevToolsMessage) {
        switch message {
        case .response(let id, _, let result):
            answer(id, .success(result))
        case .failure(let id, _, let code, let text):
            answer(id, .failure(DevToolsError(.commandFailed, "\(text) (code \(code))")))
        case .event(let method, let session, let params):
            let handler = state.withLock { s in session.map { s.sessions[$0] } ?? s.browserEvents }
            handler?(method, params)
        }
    }

    private func answer(_ id: Int, _ result: Result<JSONValue, DevToolsError>) {
        enum Found {
            case pending(Pending)
            case ignored, unknown
        }
        let found: Found = state.withLock { s in
            if let p = s.pending.removeValue(forKey: id) { return .pending(p) }
            if s.ignored.remove(id) != nil { return .ignored }
            return .unknown
        }
        switch found {
        case .pending(let p):
            p.timer?.cancel()
            switch result {
            case .success(let value): p.continuation.resume(returning: value)
            case .failure(let error):
                p.continuation.resume(throwing: DevToolsError(error.code, "\(p.method): \(error.message)"))
            }
        case .ignored: break
        case .unknown:
            recordProtocolError(
                DevToolsError(.unexpectedMessage, "an answer to command id \(id), which nobody sent or awaits"))
        }
    }

    private func recordProtocolError(_ error: any Error) {
        let devtools = error as? DevToolsError ?? DevToolsError(.malformedMessage, "\(error)")
        state.withLock { s in
            s.protocolErrorCount += 1
            s.protocolErrors.append(devtools)
            if s.protocolErrors.count > 16 { s.protocolErrors.removeFirst() }
        }
        protocolErrorHandler?(devtools)
    }

    private func shutDown(_ error: DevToolsError) {
        let (pending, handlers) = state.withLock { s -> ([Pending], [@Sendable (DevToolsError) -> Void]) in
            s.closedBy = s.closedBy ?? error
            let p = Array(s.pending.values)
            s.pending.removeAll()
            let h = s.closeHandlers
            s.closeHandlers.removeAll()
            return (p, h)
        }
        closeWriter()
        for p in pending {
            p.timer?.cancel()
            p.continuation.resume(throwing: DevToolsError(error.code, "\(p.method): \(error.message)"))
        }
        for h in handlers { h(error) }
    }

    static func secondsText(_ d: Duration) -> String {
        let ms = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        return "\((ms / 10).rounded() / 100)s"
    }
}
