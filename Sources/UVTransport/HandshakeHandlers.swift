import Wire

/// The server side of the handshake, as the transport runs it on each accepted connection.
public struct ServerHandshakeSettings: Sendable {
    /// The shared token (never sent).
    public var token: [UInt8]
    /// Protocol versions this server speaks.
    public var versions: [UInt16] = [ProtocolVersion.current]
    /// A peer that has not authenticated by then is sent ERROR(handshake-timeout) and closed. Default 10 s.
    public var deadline: Duration = .seconds(10)
    /// Announced in WELCOME; each side sends HEARTBEAT when idle this long, and closes after 3 silent
    /// intervals. nil: no heartbeats. Default 5 s.
    public var heartbeatInterval: Duration? = .seconds(5)

    public init(token: [UInt8]) { self.token = token }
}

/// The client side of the handshake, as the transport runs it on a new outbound connection.
public struct ClientHandshakeSettings: Sendable {
    public var token: [UInt8]
    public var name: String
    public var slots: UInt32
    public var registries: [String]
    public var labels: [String]
    public var versions: [UInt16] = [ProtocolVersion.current]
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

/// Runs `ServerHandshake` in front of the application's handler: before authentication only HELLO is accepted;
/// after it, batches pass straight through.
final class ServerHandshakeHandler: FramedConnectionHandler {
    private var machine: ServerHandshake
    private let settings: ServerHandshakeSettings
    private let inner: any FramedConnectionHandler
    private var established = false
    private var deadline: ScheduledTimer?

    /// - Parameter maxFrameSize: the connection's limit, announced to the worker in WELCOME.
    init(settings: ServerHandshakeSettings, inner: any FramedConnectionHandler, maxFrameSize: Int) {
        self.settings = settings
        self.inner = inner
        machine = ServerHandshake(
            token: settings.token, versions: settings.versions,
            heartbeatMillis: UInt32(clamping: settings.heartbeatInterval?.milliseconds ?? 0),
            maxFrameSize: UInt32(clamping: maxFrameSize))
    }

    func onOpen(_ connection: FramedConnection) {
        deadline = connection.loop.scheduleInLoop(after: settings.deadline) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.apply(self.machine.onDeadline(), on: connection)
        }
        apply(machine.onStart(), on: connection)
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        if established { return inner.onFrames(connection, frames) }
        for index in frames.indices {
            apply(machine.onFrame(frames[index]), on: connection)
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
        if established { inner.onClose(connection, reason) }
    }

    private func apply(_ directives: [HandshakeDirective], on connection: FramedConnection) {
        for directive in directives {
            switch directive {
            case .send(let message):
                connection.send(message)
            case .acceptedPeer(let hello, _):
                deadline?.cancel()
                deadline = nil
                established = true
                connection.authenticatedPeer = hello
                if let interval = settings.heartbeatInterval { connection.startHeartbeat(interval: interval) }
                inner.onOpen(connection)
            case .close(let error):
                connection.closeAfterSending(.protocolError(error))
            case .acceptedByServer, .rejected:
                break
            }
        }
    }
}

/// Runs `ClientHandshake` in front of the application's handler; `onOpen` follows a verified WELCOME.
final class ClientHandshakeHandler: FramedConnectionHandler {
    private var machine: ClientHandshake
    private let settings: ClientHandshakeSettings
    private let inner: any FramedConnectionHandler
    private var established = false
    private var deadline: ScheduledTimer?

    init(settings: ClientHandshakeSettings, inner: any FramedConnectionHandler) {
        self.settings = settings
        self.inner = inner
        machine = ClientHandshake(
            token: settings.token, name: settings.name, slots: settings.slots, registries: settings.registries,
            labels: settings.labels, versions: settings.versions)
    }

    func onOpen(_ connection: FramedConnection) {
        deadline = connection.loop.scheduleInLoop(after: settings.deadline) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.apply(self.machine.onDeadline(), on: connection)
        }
    }

    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
        if established { return inner.onFrames(connection, frames) }
        for index in frames.indices {
            apply(machine.onFrame(frames[index]), on: connection)
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
        // The application hears about every close, so a failed connect or handshake is not silent.
        inner.onClose(connection, reason)
    }

    private func apply(_ directives: [HandshakeDirective], on connection: FramedConnection) {
        for directive in directives {
            switch directive {
            case .send(let message):
                connection.send(message)
            case .acceptedByServer(let welcome):
                deadline?.cancel()
                deadline = nil
                established = true
                connection.welcome = welcome
                if welcome.heartbeatMillis > 0 {
                    connection.startHeartbeat(interval: .milliseconds(Int64(welcome.heartbeatMillis)))
                }
                inner.onOpen(connection)
            case .rejected:
                break
            case .close(let error):
                connection.closeAfterSending(.protocolError(error))
            case .acceptedPeer:
                break
            }
        }
    }
}
