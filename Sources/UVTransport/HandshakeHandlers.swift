import Wire

/// The server side of the handshake, as the transport runs it on each accepted connection.
public struct ServerHandshakeSettings: Sendable {
    /// The shared token (never sent).
    public var token: [UInt8]
    /// Protocol versions this server speaks.
    public var versions: [UInt16] = ProtocolVersion.supported
    /// A peer that has not authenticated by then is sent ERROR(handshake-timeout) and closed. Default 10 s.
    public var deadline: Duration = .seconds(10)
    /// Announced in WELCOME; each side sends HEARTBEAT when idle this long, and closes after 3 silent
    /// intervals. nil: no heartbeats. Default 5 s.
    public var heartbeatInterval: Duration? = .seconds(5)
    /// The largest frame accepted before the peer authenticated (a HELLO within its bounds is far smaller).
    /// Default 64 KiB.
    public var unauthenticatedMaxFrameSize = 64 << 10
    /// Connections still in their handshake at once: a connection arriving at the bound closes the one that has
    /// pended longest (so silent peers cannot lock out a worker that answers its CHALLENGE at once), and
    /// unauthenticated peers hold at most this many × `unauthenticatedMaxFrameSize` of buffers. Default 256.
    public var maximumPendingHandshakes = 256

    public init(token: [UInt8]) { self.token = token }
}

/// The client side of the handshake, as the transport runs it on a new outbound connection.
public struct ClientHandshakeSettings: Sendable {
    public var token: [UInt8]
    public var name: String
    public var slots: UInt32
    public var registries: [String]
    public var labels: [String]
    public var versions: [UInt16] = ProtocolVersion.supported
    /// Without a valid WELCOME by then the client closes. Default 10 s.
    public var deadline: Duration = .seconds(10)

    public init(token: [UInt8], name: String, slots: UInt32, registries: [String], labels: [String] = []) {
        self.token = token
        self.name = name
        self.slots = slots
        self.registries = registries
        self.labels = labels
    }
}

/// One side of the handshake, as the gate in front of the application's handler drives it.
protocol HandshakeSide {
    /// The connection opened: what this side says first (the server's CHALLENGE; the client waits).
    mutating func onStart() -> [HandshakeDirective]
    mutating func onFrame(_ frame: Frame) -> [HandshakeDirective]
    mutating func onDeadline() -> [HandshakeDirective]
    /// Handles this side's acceptance directive (records the peer, starts heartbeats). - Returns: true when the
    /// directive established the connection.
    func accept(_ directive: HandshakeDirective, on connection: FramedConnection) -> Bool
    /// Whether the application hears about a close that happens before the handshake completed.
    var reportsEarlyClose: Bool { get }
}

/// Runs a handshake state machine in front of the application's handler: until it completes only handshake frames
/// are processed (with a deadline); after it, batches pass straight through.
final class HandshakeGate<Side: HandshakeSide>: FramedConnectionHandler {
    private var side: Side
    private let inner: any FramedConnectionHandler
    private let deadlineAfter: Duration
    private var established = false
    private var deadline: ScheduledTimer?

    init(side: Side, deadline: Duration, inner: any FramedConnectionHandler) {
        self.side = side
        self.inner = inner
        deadlineAfter = deadline
    }

    func onOpen(_ connection: FramedConnection) {
        deadline = connection.loop.scheduleInLoop(after: deadlineAfter) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.apply(self.side.onDeadline(), on: connection)
        }
        apply(side.onStart(), on: connection)
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        if established { return inner.onFrames(connection, frames) }
        for index in frames.indices {
            apply(side.onFrame(frames[index]), on: connection)
            if established {
                if index + 1 < frames.endIndex, connection.state == .open {
                    inner.onFrames(connection, frames.suffix(from: index + 1))
                }
                return
            }
            if connection.state != .open { return }
        }
    }

    func onWritabilityChanged(_ connection: FramedConnection) {
        if established { inner.onWritabilityChanged(connection) }
    }

    func onClose(_ connection: FramedConnection, _ reason: CloseReason) {
        deadline?.cancel()
        deadline = nil
        if established || side.reportsEarlyClose { inner.onClose(connection, reason) }
    }

    private func apply(_ directives: [HandshakeDirective], on connection: FramedConnection) {
        for directive in directives {
            switch directive {
            case .send(let message):
                connection.send(message)
            case .close(let error):
                connection.closeAfterSending(.protocolError(error))
            case .acceptedPeer, .acceptedByServer, .rejected:
                guard side.accept(directive, on: connection) else { continue }
                deadline?.cancel()
                deadline = nil
                established = true
                inner.onOpen(connection)
            }
        }
    }
}

/// The coordinator's side: before authentication only HELLO is accepted.
struct ServerSide: HandshakeSide {
    var machine: ServerHandshake
    let heartbeatInterval: Duration?

    mutating func onStart() -> [HandshakeDirective] { machine.onStart() }
    mutating func onFrame(_ frame: Frame) -> [HandshakeDirective] { machine.onFrame(frame) }
    mutating func onDeadline() -> [HandshakeDirective] { machine.onDeadline() }

    func accept(_ directive: HandshakeDirective, on connection: FramedConnection) -> Bool {
        guard case .acceptedPeer(let hello, _) = directive else { return false }
        connection.authenticatedPeer = hello
        connection.setMaxFrameSize(connection.settings.maxFrameSize)
        connection.listener?.authenticated(connection.id)
        if let heartbeatInterval { connection.startHeartbeat(interval: heartbeatInterval) }
        return true
    }

    /// Unauthenticated peers never reach the application.
    var reportsEarlyClose: Bool { false }
}

/// The worker's side: `onOpen` follows a verified WELCOME.
struct ClientSide: HandshakeSide {
    var machine: ClientHandshake

    mutating func onStart() -> [HandshakeDirective] { [] }
    mutating func onFrame(_ frame: Frame) -> [HandshakeDirective] { machine.onFrame(frame) }
    mutating func onDeadline() -> [HandshakeDirective] { machine.onDeadline() }

    func accept(_ directive: HandshakeDirective, on connection: FramedConnection) -> Bool {
        guard case .acceptedByServer(let welcome) = directive else { return false }
        connection.welcome = welcome
        if welcome.heartbeatMillis > 0 {
            connection.startHeartbeat(interval: .milliseconds(Int64(welcome.heartbeatMillis)))
        }
        return true
    }

    /// The application hears about every close, so a failed connect or handshake is not silent.
    var reportsEarlyClose: Bool { true }
}

typealias ServerHandshakeHandler = HandshakeGate<ServerSide>
typealias ClientHandshakeHandler = HandshakeGate<ClientSide>

extension HandshakeGate where Side == ServerSide {
    /// - Parameter maxFrameSize: the connection's limit, announced to the worker in WELCOME.
    convenience init(settings: ServerHandshakeSettings, inner: any FramedConnectionHandler, maxFrameSize: Int) {
        let machine = ServerHandshake(
            token: settings.token, versions: settings.versions,
            heartbeatMillis: UInt32(clamping: settings.heartbeatInterval?.milliseconds ?? 0),
            maxFrameSize: UInt32(clamping: maxFrameSize))
        self.init(side: ServerSide(machine: machine, heartbeatInterval: settings.heartbeatInterval),
                  deadline: settings.deadline, inner: inner)
    }
}

extension HandshakeGate where Side == ClientSide {
    convenience init(settings: ClientHandshakeSettings, inner: any FramedConnectionHandler) {
        let machine = ClientHandshake(
            token: settings.token, name: settings.name, slots: settings.slots, registries: settings.registries,
            labels: settings.labels, versions: settings.versions)
        self.init(side: ClientSide(machine: machine), deadline: settings.deadline, inner: inner)
    }
}
