import Testing
import Wire

@Suite("Handshake state machines")
struct HandshakeTests {
    func client(token: [UInt8] = Vectors.token, versions: [UInt16] = [1], nonce: Bytes32 = Vectors.clientNonce) -> ClientHandshake {
        ClientHandshake(token: token, name: "w", slots: 2, registries: ["catalog"], versions: versions, nonce: nonce)
    }

    func sent(_ directives: [HandshakeDirective]) -> [Message] {
        directives.compactMap { if case .send(let m) = $0 { m } else { nil } }
    }

    func helloFor(_ challenge: [HandshakeDirective], client c: inout ClientHandshake) -> Message? {
        sent(challenge).first.flatMap { sent(c.onMessage($0)).first }
    }

    @Test("a full handshake: both sides authenticate and agree on the version")
    func success() throws {
        var server = ServerHandshake(token: Vectors.token)
        var c = client()
        let hello = try #require(helloFor(server.onStart(), client: &c))
        let reply = server.onMessage(hello)
        #expect(server.state == .established)
        guard case .send(.welcome(let welcome)) = reply.first else {
            Issue.record("expected WELCOME, got \(reply)")
            return
        }
        #expect(reply.contains { if case .acceptedPeer(let h, 1) = $0 { h.name == "w" } else { false } })
        #expect(c.onMessage(.welcome(welcome)) == [.acceptedByServer(welcome)])
        #expect(c.state == .established)
    }

    @Test("a wrong token gets REJECT(authentication-failed) and a close")
    func wrongToken() throws {
        var server = ServerHandshake(token: Vectors.token)
        var c = client(token: Array("guess".utf8))
        let hello = try #require(helloFor(server.onStart(), client: &c))
        let reply = server.onMessage(hello)
        guard case .send(.reject(let reject)) = reply.first, case .close(let error) = reply.last else {
            Issue.record("expected REJECT then close, got \(reply)")
            return
        }
        #expect(reject.knownCode == .authenticationFailed)
        #expect(error.code == .authenticationFailed)
        #expect(server.state == .failed)
    }

    @Test("a HELLO replayed on another connection fails: its MAC covers the first connection's nonce")
    func replay() throws {
        var first = ServerHandshake(token: Vectors.token)
        var c = client()
        let hello = try #require(helloFor(first.onStart(), client: &c))
        #expect(first.onMessage(hello).contains { if case .acceptedPeer = $0 { true } else { false } })
        var second = ServerHandshake(token: Vectors.token)
        _ = second.onStart()
        let reply = second.onMessage(hello)
        #expect(reply.contains { if case .send(.reject(let r)) = $0 { r.knownCode == .authenticationFailed } else { false } })
        #expect(second.state == .failed)
        // And on the same connection a second HELLO does nothing more.
        #expect(first.onMessage(hello).isEmpty)
    }

    @Test("a reflected nonce (client nonce = server nonce) is refused even with a valid MAC")
    func reflection() throws {
        var server = ServerHandshake(token: Vectors.token, nonce: Vectors.serverNonce)
        var c = client(nonce: Vectors.serverNonce)
        let hello = try #require(helloFor(server.onStart(), client: &c))
        #expect(server.onMessage(hello).contains { if case .send(.reject) = $0 { true } else { false } })
    }

    @Test("a tampered HELLO field breaks the MAC")
    func tampered() throws {
        var server = ServerHandshake(token: Vectors.token)
        var c = client()
        guard case .hello(var hello) = try #require(helloFor(server.onStart(), client: &c)) else { return }
        hello.slots = 1000
        #expect(server.onMessage(.hello(hello)).contains { if case .send(.reject) = $0 { true } else { false } })
    }

    @Test("the highest common version wins")
    func negotiation() throws {
        var server = ServerHandshake(token: Vectors.token, versions: [1, 2, 3])
        var c = client(versions: [2, 3, 4])
        guard case .hello(let hello) = try #require(helloFor(server.onStart(), client: &c)) else { return }
        #expect(hello.version == 3)
        let reply = server.onMessage(.hello(hello))
        guard case .send(.welcome(let welcome)) = reply.first else { return }
        #expect(welcome.version == 3)
        #expect(c.onMessage(.welcome(welcome)) == [.acceptedByServer(welcome)])
    }

    @Test("no common version: REJECT(unsupported-version) with a readable reason on both sides")
    func noCommonVersion() throws {
        var server = ServerHandshake(token: Vectors.token, versions: [1])
        var c = client(versions: [2])
        let hello = try #require(helloFor(server.onStart(), client: &c))
        let reply = server.onMessage(hello)
        guard case .send(.reject(let reject)) = reply.first else {
            Issue.record("expected REJECT, got \(reply)")
            return
        }
        #expect(reject.knownCode == .unsupportedVersion)
        #expect(reject.reason == "unsupported protocol version 2: this coordinator speaks version(s) 1")
        let clientSide = c.onMessage(.reject(reject))
        #expect(clientSide.first == .rejected(reject))
        #expect(clientSide.last == .close(WireError(.unsupportedVersion, reject.reason)))
    }

    @Test("before authentication only HELLO is accepted")
    func onlyHello() {
        var server = ServerHandshake(token: Vectors.token)
        _ = server.onStart()
        let reply = server.onMessage(.assign([]))
        #expect(reply.first == .send(.error(ErrorMessage(code: 10, message: "expected HELLO, got assign"))))
        #expect(server.state == .failed)
        var malformed = ServerHandshake(token: Vectors.token)
        _ = malformed.onStart()
        let bad = malformed.onFrame(Frame(type: MessageType.hello.rawValue, payload: [0x01]))
        #expect(bad.contains { if case .close(let e) = $0 { e.code == .truncated } else { false } })
    }

    @Test("the deadline closes an unfinished handshake on either side and is ignored after success")
    func deadlines() throws {
        var server = ServerHandshake(token: Vectors.token)
        _ = server.onStart()
        #expect(server.onDeadline().contains { if case .close(let e) = $0 { e.code == .handshakeTimeout } else { false } })
        var c = client()
        #expect(c.onDeadline().contains { if case .close(let e) = $0 { e.code == .handshakeTimeout } else { false } })
        var done = ServerHandshake(token: Vectors.token)
        var c2 = client()
        let hello = try #require(helloFor(done.onStart(), client: &c2))
        _ = done.onMessage(hello)
        #expect(done.onDeadline().isEmpty)
    }

    @Test("a worker refuses a WELCOME from a server that does not know the token")
    func impostor() throws {
        var impostor = ServerHandshake(token: Array("impostor".utf8))
        var c = client()
        let hello = try #require(helloFor(impostor.onStart(), client: &c))
        // The impostor cannot verify the HELLO; suppose it answers WELCOME anyway with its own MAC.
        var welcome = Welcome(version: 1, heartbeatMillis: 0, maxFrameSize: 1024, mac: .zero)
        guard case .hello(let h) = hello else { return }
        welcome.mac = HandshakeMAC.welcome(
            token: Array("impostor".utf8), clientNonce: h.nonce, serverNonce: c.serverNonce ?? .zero, welcome: welcome)
        let reply = c.onMessage(.welcome(welcome))
        #expect(reply.contains { if case .close(let e) = $0 { e.code == .authenticationFailed } else { false } })
        #expect(c.state == .failed)
    }
}
