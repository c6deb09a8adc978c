import FlowCrypto

/// What a handshake state machine asks its shell to do, in order.
public enum HandshakeDirective: Sendable, Hashable {
    /// Send this message to the peer.
    case send(Message)
    /// Server side: the peer proved the token; frames other than HELLO may flow from now on.
    case acceptedPeer(Hello, version: UInt16)
    /// Client side: the server proved the token; the session parameters are in the WELCOME.
    case acceptedByServer(Welcome)
    /// Client side: the server refused (the server closes the connection after REJECT).
    case rejected(Reject)
    /// Close the connection (after sending anything that precedes this directive).
    case close(WireError)
}

extension Bytes32 {
    /// 32 bytes from the system's secure random source.
    public static func random() -> Bytes32 { Bytes32(unchecked: secureRandomBytes(32)) }
}

/// The MACs of the challenge–response (docs/PROTOCOL.md, "Handshake").
public enum HandshakeMAC {
    static let helloContext = Array("FLOWMATRIX-HELLO".utf8)
    static let welcomeContext = Array("FLOWMATRIX-WELCOME".utf8)

    /// HMAC-SHA256(token, "FLOWMATRIX-HELLO" ‖ server nonce ‖ HELLO fields before `mac`).
    public static func hello(token: [UInt8], serverNonce: Bytes32, hello: Hello) -> Bytes32 {
        var w = ByteWriter(capacity: 128)
        hello.encodeSigned(into: &w)
        return Bytes32(unchecked: HMACSHA256.mac(key: token, message: helloContext + serverNonce.bytes + w.bytes))
    }

    /// HMAC-SHA256(token, "FLOWMATRIX-WELCOME" ‖ client nonce ‖ server nonce ‖ WELCOME fields before `mac`).
    public static func welcome(token: [UInt8], clientNonce: Bytes32, serverNonce: Bytes32, welcome: Welcome) -> Bytes32 {
        var w = ByteWriter(capacity: 16)
        welcome.encodeSigned(into: &w)
        let message = welcomeContext + clientNonce.bytes + serverNonce.bytes + w.bytes
        return Bytes32(unchecked: HMACSHA256.mac(key: token, message: message))
    }
}

/// What a HELLO may advertise (docs/PROTOCOL.md, "Bounds"): a worker that claims more is rejected after it
/// authenticated, so nothing it claims is copied into every attempt row or trusted as capacity.
public enum HelloLimits {
    /// Bytes of the worker's name (it is recorded with every attempt). 1–256.
    public static let nameBytes = 256
    /// Slots a worker may advertise. 1–1,024.
    public static let slots: UInt32 = 1024
    /// Registries a worker may host, and bytes of each name. 0–64, 1–128.
    public static let registries = 64
    public static let registryBytes = 128
    /// Labels, and bytes of each `key=value` (a non-empty key). 0–64, 1–256.
    public static let labels = 64
    public static let labelBytes = 256

    /// The first bound `hello` breaks, as a sentence; nil when it keeps them all.
    public static func problem(in hello: Hello) -> String? {
        if hello.name.utf8.isEmpty || hello.name.utf8.count > nameBytes { return "the name must be 1–\(nameBytes) bytes" }
        if hello.slots == 0 || hello.slots > slots { return "slots must be 1–\(slots), not \(hello.slots)" }
        if hello.registries.count > registries {
            return "a worker hosts at most \(registries) registries, not \(hello.registries.count)"
        }
        if let bad = hello.registries.first(where: { $0.utf8.isEmpty || $0.utf8.count > registryBytes }) {
            return "registry name of \(bad.utf8.count) bytes (1–\(registryBytes))"
        }
        if hello.labels.count > labels { return "at most \(labels) labels, not \(hello.labels.count)" }
        if let bad = hello.labels.first(where: { $0.utf8.count > labelBytes || $0.hasPrefix("=") || $0.isEmpty }) {
            return "label of \(bad.utf8.count) bytes: a label is key or key=value, a non-empty key, at most \(labelBytes) bytes"
        }
        return nil
    }
}

/// The coordinator's side of the handshake, as a pure state machine: CHALLENGE → HELLO → WELCOME / REJECT.
///
/// Before `.acceptedPeer` only HELLO is accepted; anything else is an ERROR and a close. The token never leaves
/// this value; MACs are compared in constant time; a HELLO replayed from another connection fails because its
/// MAC covers that connection's server nonce.
public struct ServerHandshake: Sendable {
    public enum State: Sendable, Hashable { case idle, awaitingHello, established, failed }

    public private(set) var state: State = .idle
    public let serverNonce: Bytes32
    private let token: [UInt8]
    private let versions: [UInt16]
    private let heartbeatMillis: UInt32
    private let maxFrameSize: UInt32

    /// - Parameters:
    ///   - token: the shared secret (never sent).
    ///   - versions: protocol versions this server speaks.
    ///   - heartbeatMillis / maxFrameSize: session parameters announced in WELCOME.
    ///   - nonce: the server nonce; fresh random by default (tests pass fixed ones).
    public init(
        token: [UInt8], versions: [UInt16] = ProtocolVersion.supported, heartbeatMillis: UInt32 = 5000,
        maxFrameSize: UInt32 = UInt32(FrameDecoder.defaultMaxFrameSize), nonce: Bytes32 = .random()
    ) {
        self.token = token
        self.versions = versions
        self.heartbeatMillis = heartbeatMillis
        self.maxFrameSize = maxFrameSize
        serverNonce = nonce
    }

    /// The connection opened: send CHALLENGE.
    public mutating func onStart() -> [HandshakeDirective] {
        guard state == .idle else { return [] }
        state = .awaitingHello
        return [.send(.challenge(Challenge(nonce: serverNonce, versions: versions)))]
    }

    /// A frame arrived before the handshake finished.
    public mutating func onFrame(_ frame: Frame) -> [HandshakeDirective] {
        do {
            return onMessage(try Message(frame: frame))
        } catch let error as WireError {
            return fail(error)
        } catch {
            return fail(WireError(.internalError, "\(error)"))
        }
    }

    /// A message arrived before the handshake finished.
    public mutating func onMessage(_ message: Message) -> [HandshakeDirective] {
        guard state == .awaitingHello, case .hello(let hello) = message else {
            if state == .failed || state == .established { return [] }
            return fail(WireError(.unexpectedMessage, "expected HELLO, got \(message.type)"))
        }
        guard versions.contains(hello.version) else {
            state = .failed
            let ours = versions.map(String.init).joined(separator: ", ")
            let reason = "unsupported protocol version \(hello.version): this coordinator speaks version(s) \(ours)"
            return [.send(.reject(Reject(.unsupportedVersion, reason))), .close(WireError(.unsupportedVersion, reason))]
        }
        let expected = HandshakeMAC.hello(token: token, serverNonce: serverNonce, hello: hello)
        guard hello.nonce != serverNonce, constantTimeEquals(expected.bytes, hello.mac.bytes) else {
            state = .failed
            let reason = "authentication failed: the worker's token does not match this coordinator's"
            return [
                .send(.reject(Reject(.authenticationFailed, reason))),
                .close(WireError(.authenticationFailed, reason)),
            ]
        }
        if let problem = HelloLimits.problem(in: hello) {
            state = .failed
            let reason = "malformed HELLO: \(problem)"
            return [.send(.reject(Reject(.malformedHello, reason))), .close(WireError(.invalidValue, reason))]
        }
        var welcome = Welcome(
            version: hello.version, heartbeatMillis: heartbeatMillis, maxFrameSize: maxFrameSize, mac: .zero)
        welcome.mac = HandshakeMAC.welcome(
            token: token, clientNonce: hello.nonce, serverNonce: serverNonce, welcome: welcome)
        state = .established
        return [.send(.welcome(welcome)), .acceptedPeer(hello, version: hello.version)]
    }

    /// The handshake deadline passed.
    public mutating func onDeadline() -> [HandshakeDirective] {
        guard state == .idle || state == .awaitingHello else { return [] }
        return fail(WireError(.handshakeTimeout, "no valid HELLO before the handshake deadline"))
    }

    private mutating func fail(_ error: WireError) -> [HandshakeDirective] {
        state = .failed
        return [.send(.error(ErrorMessage(error))), .close(error)]
    }
}

/// The worker's side of the handshake, as a pure state machine: it answers CHALLENGE with HELLO and verifies
/// the WELCOME MAC, so a worker never takes jobs from a server that does not know the token.
public struct ClientHandshake: Sendable {
    public enum State: Sendable, Hashable { case awaitingChallenge, awaitingWelcome, established, failed }

    public private(set) var state: State = .awaitingChallenge
    public let clientNonce: Bytes32
    public private(set) var serverNonce: Bytes32?
    public private(set) var hello: Hello?
    private let token: [UInt8]
    private let versions: [UInt16]
    private let name: String
    private let slots: UInt32
    private let registries: [String]
    private let labels: [String]

    public init(
        token: [UInt8], name: String, slots: UInt32, registries: [String], labels: [String] = [],
        versions: [UInt16] = ProtocolVersion.supported, nonce: Bytes32 = .random()
    ) {
        self.token = token
        self.name = name
        self.slots = slots
        self.registries = registries
        self.labels = labels
        self.versions = versions
        clientNonce = nonce
    }

    /// A frame arrived before the handshake finished.
    public mutating func onFrame(_ frame: Frame) -> [HandshakeDirective] {
        do {
            return onMessage(try Message(frame: frame))
        } catch let error as WireError {
            return fail(error)
        } catch {
            return fail(WireError(.internalError, "\(error)"))
        }
    }

    public mutating func onMessage(_ message: Message) -> [HandshakeDirective] {
        switch (state, message) {
        case (.awaitingChallenge, .challenge(let challenge)):
            // The highest common version; with none in common, offer our highest so the server's REJECT explains.
            let common = versions.filter { challenge.versions.contains($0) }
            let version = common.max() ?? versions.max() ?? ProtocolVersion.current
            var hello = Hello(
                version: version, name: name, slots: slots, registries: registries, labels: labels,
                nonce: clientNonce, mac: .zero)
            hello.mac = HandshakeMAC.hello(token: token, serverNonce: challenge.nonce, hello: hello)
            self.hello = hello
            serverNonce = challenge.nonce
            state = .awaitingWelcome
            return [.send(.hello(hello))]
        case (.awaitingWelcome, .welcome(let welcome)):
            guard let serverNonce, let hello, welcome.version == hello.version else {
                return fail(WireError(.unexpectedMessage, "WELCOME names a version the worker did not choose"))
            }
            let expected = HandshakeMAC.welcome(
                token: token, clientNonce: clientNonce, serverNonce: serverNonce, welcome: welcome)
            guard constantTimeEquals(expected.bytes, welcome.mac.bytes) else {
                return fail(WireError(
                    .authenticationFailed, "the server's WELCOME does not prove the token: not our coordinator"))
            }
            state = .established
            return [.acceptedByServer(welcome)]
        case (.awaitingChallenge, .reject(let reject)), (.awaitingWelcome, .reject(let reject)):
            state = .failed
            return [.rejected(reject), .close(WireError(rejectCode(reject), reject.reason))]
        case (.awaitingChallenge, .error(let error)), (.awaitingWelcome, .error(let error)):
            state = .failed
            return [.close(WireError(error.knownCode ?? .internalError, error.message))]
        case (.established, _), (.failed, _):
            return []
        default:
            return fail(WireError(.unexpectedMessage, "unexpected \(message.type) during the handshake"))
        }
    }

    private func rejectCode(_ reject: Reject) -> WireError.Code {
        switch reject.knownCode {
        case .authenticationFailed: .authenticationFailed
        case .unsupportedVersion: .unsupportedVersion
        case .notAccepting: .shuttingDown
        case .malformedHello, nil: .unexpectedMessage
        }
    }

    /// The handshake deadline passed.
    public mutating func onDeadline() -> [HandshakeDirective] {
        guard state == .awaitingChallenge || state == .awaitingWelcome else { return [] }
        return fail(WireError(.handshakeTimeout, "the server did not complete the handshake before the deadline"))
    }

    private mutating func fail(_ error: WireError) -> [HandshakeDirective] {
        state = .failed
        return [.send(.error(ErrorMessage(error))), .close(error)]
    }
}

/// Protocol versions.
public enum ProtocolVersion {
    /// The newest version this build speaks. Version 2 adds RESULT_STEPS (0x17); version 3 adds REVOKE (0x18) and
    /// REVOKED (0x19), which take back assigned attempts that have not started (work stealing).
    public static let current: UInt16 = 3
    /// Every version this build speaks: a coordinator offers them all, a worker picks the highest in common.
    public static let supported: [UInt16] = [1, 2, 3]
}
