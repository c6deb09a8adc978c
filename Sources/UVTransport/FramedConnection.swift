import CLibUV
import Wire

/// A connection's identity, stable for its lifetime and unique within its loop; crosses threads freely.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public var description: String { "#\(rawValue)" }
}

/// Tunables of a framed connection, with their defaults.
public struct ConnectionSettings: Sendable {
    /// The largest frame accepted (length field: type byte + payload). Default 16 MiB.
    public var maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
    /// Above this many queued outbound bytes the connection turns unwritable. Default 1 MiB.
    public var outboundHighWater: Int = 1 << 20
    /// At or below this many queued outbound bytes an unwritable connection turns writable again. Default 256 KiB.
    public var outboundLowWater: Int = 256 << 10
    /// The hard limit of queued outbound bytes: a sender that ignores writability past it is closed with
    /// `WireError.Code.overloaded`, so a peer that never reads cannot grow memory without bound. Default 64 MiB.
    public var maxOutboundBytes: Int = 64 << 20
    /// Bytes read per `read` call. Default 256 KiB.
    public var readBufferSize: Int = 256 << 10
    /// How long a graceful close waits for queued output to drain before it resets the connection. Default 5 s.
    public var closeLinger: Duration = .seconds(5)
    /// Stop reading while the connection is unwritable (a peer that does not read our answers cannot make us
    /// buffer more of its requests). Default false.
    public var pauseReadingWhileUnwritable = false

    public init() {}
}

/// Why a connection closed.
public enum CloseReason: Sendable, Hashable, CustomStringConvertible {
    /// `close(graceful:)` was called on this side.
    case closedLocally
    /// The peer closed its side (EOF).
    case peerClosed
    /// The connection never opened.
    case connectFailed(UVError)
    /// A socket error (reset by peer, broken pipe…).
    case ioError(UVError)
    /// A protocol failure: malformed frame, failed or late handshake, heartbeat timeout, overload.
    case protocolError(WireError)
    /// The event loop shut down.
    case loopShutdown

    public var description: String {
        switch self {
        case .closedLocally: "closed locally"
        case .peerClosed: "closed by the peer"
        case .connectFailed(let e): "connect failed: \(e)"
        case .ioError(let e): "I/O error: \(e)"
        case .protocolError(let e): "protocol error: \(e)"
        case .loopShutdown: "event loop shut down"
        }
    }
}

/// Receives a connection's events, always on the loop thread, with whole read batches.
///
/// Implementation requirements: do not block (the loop serves every connection); keep per-frame work small;
/// to hand work to Swift tasks, hop once per batch, not once per frame. `onClose` is called exactly once,
/// after which the connection drops its reference to the handler.
public protocol FramedConnectionHandler: AnyObject {
    /// The connection is open (for servers with a handshake: authenticated) and may send.
    func onOpen(_ connection: FramedConnection)
    /// Every frame that one read produced, in order.
    func onFrames(_ connection: FramedConnection, _ frames: FrameBatch)
    /// `connection.isWritable` changed (outbound queue crossed a water mark).
    func onWritabilityChanged(_ connection: FramedConnection)
    /// The connection closed; its handle is freed.
    func onClose(_ connection: FramedConnection, _ reason: CloseReason)
}

extension FramedConnectionHandler {
    public func onWritabilityChanged(_ connection: FramedConnection) {}
}

/// A framed TCP connection, confined to its loop thread (every public method checks it).
///
/// Sends are queued and written once per loop iteration (or on `flush()`), `uv_try_write` first and `uv_write`
/// for the rest, so many small frames become one system call. Reads arrive as batches through the handler.
public final class FramedConnection {
    public enum State: Sendable, Hashable { case connecting, open, closing, closed }

    public let id: ConnectionID
    public let loop: EventLoop
    public let settings: ConnectionSettings
    /// The peer's numeric address, `host:port` (IPv6 in brackets); nil before the connection opens.
    public internal(set) var remoteAddress: String?
    public internal(set) var state: State = .connecting
    /// The authenticated peer's HELLO (servers with a handshake), set before `onOpen`.
    public internal(set) var authenticatedPeer: Hello?
    /// The server's WELCOME (clients with a handshake), set before `onOpen`.
    public internal(set) var welcome: Welcome?
    /// False while the outbound queue is above the high water mark.
    public internal(set) var isWritable = true
    /// True while reading is paused (by `pauseReading()` or back-pressure).
    public var isReadingPaused: Bool { userPaused || pausedForWritability }
    /// Why the connection closed (or is closing), once known.
    public internal(set) var closeReason: CloseReason?

    var handler: (any FramedConnectionHandler)?
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    var stream: UnsafeMutablePointer<uv_stream_t> { cuv_tcp_as_stream(tcp) }
    /// The reading side: read buffer, decoder, a large body being read directly.
    var reader: FrameReader
    /// The writing side: queued frames and the write in flight.
    var outbound: OutboundQueue
    var shutdownRequest: UnsafeMutablePointer<uv_shutdown_t>?
    var reading = false
    var userPaused = false
    var pausedForWritability = false
    var markedDirty = false
    var lingerTimer: ScheduledTimer?
    var heartbeatTimer: ScheduledTimer?
    /// Notes every read and send; decides at each heartbeat tick whether to send HEARTBEAT or give up on a
    /// silent peer.
    var heartbeat = HeartbeatMonitor(missLimit: 3)
    /// The listener that accepted this connection (weak: both may close in one loop iteration).
    weak var listener: Listener?

    /// Changes the largest frame accepted from now on (see `FrameDecoder.setMaxFrameSize`).
    func setMaxFrameSize(_ size: Int) { reader.setMaxFrameSize(size) }

    init(loop: EventLoop, settings: ConnectionSettings) throws {
        self.loop = loop
        self.settings = settings
        id = loop.registry.makeConnectionID()
        tcp = try makeTCPHandle(on: loop)
        // Allocated after the handle, so a failed handle leaks nothing.
        reader = FrameReader(settings: settings)
        outbound = OutboundQueue()
        loop.handleOpened()
        tcp.pointee.data = Unmanaged.passRetained(self).toOpaque()
        loop.registry.connections[id] = self
    }

    deinit {
        reader.free()
        outbound.free()
    }
}
