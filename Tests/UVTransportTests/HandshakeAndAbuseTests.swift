import Foundation
import Synchronization
import Testing
import UVTransport
import Wire

extension TransportTests {
    @Suite("Handshake over sockets")
    struct HandshakeTests {
        @Test("a worker with the right token is welcomed; the server sees its HELLO and frames flow both ways")
        func success() async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            let server = try await TCPServer.listen(
                on: loop, host: "127.0.0.1", port: 0, handshake: handshakeSettings()
            ) { RecordingHandler(log: log) }
            let client = try await AsyncFramedClient.connect(
                host: "127.0.0.1", port: server.port, handshake: clientHandshake(), loop: loop)
            #expect(client.welcome?.version == 1)
            try await log.wait("authenticated open") { $0.openedCount == 1 }
            #expect(log.events.contains { if case .opened(_, let peer) = $0 { peer == "worker-1" } else { false } })
            client.send(.credit(8))
            let echoed = try await withTimeout(10, "echo") {
                for await batch in client.inbound { return Array(batch) }
                return [Frame]()
            }
            #expect(try echoed.map { try Message(frame: $0) } == [.credit(8)])
            await client.close()
            server.close()
            shutdownAndCheck(loop)
        }

        @Test("a wrong token gets REJECT(authentication-failed) and the connection closes; no handler opens")
        func wrongToken() async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            let server = try await TCPServer.listen(
                on: loop, host: "127.0.0.1", port: 0, handshake: handshakeSettings()
            ) { RecordingHandler(log: log) }
            // Through the handshake client: a typed failure.
            do {
                _ = try await AsyncFramedClient.connect(
                    host: "127.0.0.1", port: server.port, handshake: clientHandshake(token: Array("wrong".utf8)),
                    loop: loop)
                Issue.record("a wrong token must not connect")
            } catch let error as ConnectionClosedError {
                guard case .protocolError(let wire) = error.reason else {
                    Issue.record("unexpected reason \(error.reason)")
                    return
                }
                #expect(wire.code == .authenticationFailed)
            }
            // Through a bare client: the REJECT frame itself, then the close.
            let raw = try await AsyncFramedClient.connect(host: "127.0.0.1", port: server.port, loop: loop)
            var machine = ClientHandshake(
                token: Array("wrong".utf8), name: "intruder", slots: 1, registries: [])
            var frames: [Frame] = []
            for await batch in raw.inbound {
                for frame in batch {
                    frames.append(frame)
                    for case .send(let m) in machine.onFrame(frame) { raw.send(m) }
                }
            }
            let messages = try frames.map { try Message(frame: $0) }
            #expect(messages.count == 2)
            guard case .reject(let reject) = messages.last else {
                Issue.record("expected REJECT, got \(messages)")
                return
            }
            #expect(reject.knownCode == .authenticationFailed)
            #expect(reject.reason.contains("token"))
            #expect(await raw.closeReason() == .peerClosed)
            #expect(log.events.openedCount == 0)
            server.close()
            shutdownAndCheck(loop)
        }

        @Test("a worker that speaks only an unsupported version gets REJECT(unsupported-version) with a readable reason")
        func unsupportedVersion() async throws {
            let loop = EventLoop()
            let server = try await TCPServer.listen(
                on: loop, host: "127.0.0.1", port: 0, handshake: handshakeSettings()
            ) { RecordingHandler(log: EventLog()) }
            do {
                _ = try await AsyncFramedClient.connect(
                    host: "127.0.0.1", port: server.port, handshake: clientHandshake(versions: [7, 9]), loop: loop)
                Issue.record("version 9 must be rejected")
            } catch let error as ConnectionClosedError {
                guard case .protocolError(let wire) = error.reason else {
                    Issue.record("unexpected reason \(error.reason)")
                    return
                }
                #expect(wire.code == .unsupportedVersion)
                #expect(wire.message.contains("unsupported protocol version 9"))
                #expect(wire.message.contains("speaks version(s) 1"))
            }
            server.close()
            shutdownAndCheck(loop)
        }

        @Test("a server that does not know the token cannot give a worker jobs")
        func impostorServer() async throws {
            let loop = EventLoop()
            var impostor = handshakeSettings()
            impostor.token = Array("impostor".utf8)
            let server = try await TCPServer.listen(on: loop, host: "127.0.0.1", port: 0, handshake: impostor) {
                RecordingHandler(log: EventLog())
            }
            await #expect(throws: ConnectionClosedError.self) {
                _ = try await AsyncFramedClient.connect(
                    host: "127.0.0.1", port: server.port, handshake: clientHandshake(), loop: loop)
            }
            server.close()
            shutdownAndCheck(loop)
        }
    }

    @Suite("Misbehaving peers")
    struct AbuseTests {
        /// A server with one well-behaved authenticated client that must keep being served.
        struct Fixture {
            let loop: EventLoop
            let server: TCPServer
            let log: EventLog<ServerEvent>
            let good: AsyncFramedClient

            static func make(
                deadline: Duration = .seconds(10), settings: ConnectionSettings = ConnectionSettings(),
                onOpen: @escaping @Sendable (FramedConnection) -> Void = { _ in },
                onWritable: @escaping @Sendable (FramedConnection) -> Void = { _ in }
            ) async throws -> Fixture {
                let loop = EventLoop()
                let log = EventLog<ServerEvent>()
                let server = try await TCPServer.listen(
                    on: loop, host: "127.0.0.1", port: 0, settings: settings,
                    handshake: handshakeSettings(deadline: deadline)
                ) { RecordingHandler(log: log, onOpen: onOpen, onWritable: onWritable) }
                let good = try await AsyncFramedClient.connect(
                    host: "127.0.0.1", port: server.port, handshake: clientHandshake(), loop: loop)
                return Fixture(loop: loop, server: server, log: log, good: good)
            }

            /// The good client still gets an echo.
            func stillServed() async throws {
                good.send(.credit(3))
                let echoed = try await withTimeout(10, "echo to the good client") { [good] in
                    for await batch in good.inbound { return Array(batch) }
                    return [Frame]()
                }
                #expect(try echoed.map { try Message(frame: $0) } == [.credit(3)])
            }

            func finish() async {
                await good.close()
                server.close()
                shutdownAndCheck(loop)
            }
        }

        @Test("garbage from a peer gets ERROR(frame-too-large) and a close; other connections go on")
        func garbage() async throws {
            let f = try await Fixture.make()
            let raw = try RawSocket(port: f.server.port)
            raw.write([0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03])
            let (bytes, closed) = raw.readUntilClosed()
            #expect(closed)
            let messages = try Message.decodeAll(bytes)
            #expect(messages.first?.type == .challenge)
            guard case .error(let error) = messages.last else {
                Issue.record("expected ERROR, got \(messages)")
                return
            }
            #expect(error.knownCode == .frameTooLarge)
            raw.close()
            try await f.stillServed()
            await f.finish()
        }

        @Test("before authentication a frame over 64 KiB is refused at its header (a 16 MiB HELLO holds no memory)")
        func largeUnauthenticatedFrame() async throws {
            let f = try await Fixture.make()
            let raw = try RawSocket(port: f.server.port)
            // The header of a 16 MiB HELLO, and a little of its body.
            raw.write([0x01, 0x00, 0x00, 0x00, 0x02] + Array(repeating: 0x41, count: 1000))
            let (bytes, closed) = raw.readUntilClosed()
            #expect(closed)
            guard case .error(let error) = try Message.decodeAll(bytes).last else {
                Issue.record("expected ERROR")
                return
            }
            #expect(error.knownCode == .frameTooLarge)
            raw.close()
            try await f.stillServed()
            await f.finish()
        }

        @Test("at most 256 handshakes pend at once: a new connection closes the oldest pending one, authenticated ones go on")
        func pendingHandshakeCap() async throws {
            let f = try await Fixture.make()
            var idle: [RawSocket] = []
            for _ in 0..<256 { idle.append(try RawSocket(port: f.server.port)) }
            for socket in idle.prefix(3) { #expect(socket.readChallenge()) }
            try await waitForPending(f, 256)
            // The next connection is challenged; the oldest silent one makes room for it.
            let extra = try RawSocket(port: f.server.port)
            #expect(extra.readChallenge())
            let (_, oldestClosed) = idle[0].readUntilClosed()
            #expect(oldestClosed)
            #expect(f.server.pendingHandshakeCount <= 256)
            extra.close()
            try await f.stillServed()
            for socket in idle { socket.close() }
            // Closed peers free their places: a new one is challenged again.
            try await waitForPending(f, 0)
            let again = try RawSocket(port: f.server.port)
            #expect(again.readChallenge())
            again.close()
            await f.finish()
        }

        @Test("300 silent unauthenticated connections do not lock out a real worker: it joins at once")
        func silentFloodDoesNotLockOut() async throws {
            let f = try await Fixture.make()
            var idle: [RawSocket] = []
            for _ in 0..<300 { idle.append(try RawSocket(port: f.server.port)) }
            try await waitForPending(f, 256)
            let started = ContinuousClock.now
            let worker = try await AsyncFramedClient.connect(
                host: "127.0.0.1", port: f.server.port, handshake: clientHandshake(), loop: f.loop)
            #expect(ContinuousClock.now - started < .seconds(5), "the worker waited for the silent peers' deadline")
            try await f.log.wait("the late worker opens") { $0.openedCount == 2 }
            #expect(f.server.pendingHandshakeCount <= 256)
            await worker.close()
            for socket in idle { socket.close() }
            try await f.stillServed()
            await f.finish()
        }

        private func waitForPending(_ f: Fixture, _ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while f.server.pendingHandshakeCount != count {
                guard ContinuousClock.now < deadline else { throw TimedOut(what: "\(count) pending handshakes") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        @Test("a peer that sends a frame other than HELLO before authenticating is refused")
        func unauthenticatedFrame() async throws {
            let f = try await Fixture.make()
            let raw = try RawSocket(port: f.server.port)
            raw.write(Message.credit(100).encoded())
            let (bytes, closed) = raw.readUntilClosed()
            #expect(closed)
            let messages = try Message.decodeAll(bytes)
            guard case .error(let error) = messages.last else {
                Issue.record("expected ERROR, got \(messages)")
                return
            }
            #expect(error.knownCode == .unexpectedMessage)
            #expect(f.log.events.openedCount == 1)
            raw.close()
            try await f.stillServed()
            await f.finish()
        }

        @Test("a peer that stalls mid-frame is closed by the handshake deadline")
        func stallMidFrame() async throws {
            let f = try await Fixture.make(deadline: .milliseconds(300))
            let raw = try RawSocket(port: f.server.port)
            raw.write([0x00, 0x00, 0x00, 0x40, 0x02, 0x01])
            let (bytes, closed) = raw.readUntilClosed()
            #expect(closed)
            let messages = try Message.decodeAll(bytes)
            guard case .error(let error) = messages.last else {
                Issue.record("expected ERROR, got \(messages)")
                return
            }
            #expect(error.knownCode == .handshakeTimeout)
            raw.close()
            try await f.stillServed()
            await f.finish()
        }

        @Test("a peer that never reads: writability stops the sender and queued memory stays bounded")
        func neverReads() async throws {
            var settings = ConnectionSettings()
            settings.outboundHighWater = 256 << 10
            settings.outboundLowWater = 64 << 10
            let peak = Atomic<Int>(0)
            let chunk = Frame(type: MessageType.scenario.rawValue, payload: [UInt8](repeating: 7, count: 16 << 10))
            // Sends while writable; stops when not (the documented contract for producers).
            let pump: @Sendable (FramedConnection) -> Void = { c in
                guard c.authenticatedPeer?.name == "slow" else { return }
                while c.isWritable && c.state == .open {
                    c.send(chunk)
                    c.flush()
                    peak.max(c.outboundBytes)
                }
            }
            let f = try await Fixture.make(settings: settings, onOpen: pump, onWritable: pump)
            // The slow peer authenticates, then never reads again.
            let raw = try RawSocket(port: f.server.port)
            var machine = ClientHandshake(token: testToken, name: "slow", slots: 1, registries: [])
            let challenge = try readFrames(raw, count: 1)
            for case .send(let m) in machine.onFrame(challenge[0]) { raw.write(m.encoded()) }
            try await f.log.wait("writability turns off for the slow peer") {
                $0.contains { if case .writability(_, false, _) = $0 { true } else { false } }
            }
            #expect(peak.load(ordering: .relaxed) <= settings.outboundHighWater + chunk.encodedSize)
            try await f.stillServed()
            raw.reset()
            try await f.log.wait("the slow peer's connection closes") {
                $0.closeReasons.contains { if case .ioError = $0 { true } else { $0 == .peerClosed } }
            }
            try await f.stillServed()
            await f.finish()
        }

        @Test("a sender that ignores writability is closed at the hard outbound limit")
        func hardLimit() async throws {
            var settings = ConnectionSettings()
            settings.maxOutboundBytes = 2 << 20
            let chunk = Frame(type: MessageType.scenario.rawValue, payload: [UInt8](repeating: 7, count: 64 << 10))
            let flood: @Sendable (FramedConnection) -> Void = { c in
                guard c.authenticatedPeer?.name == "slow" else { return }
                for _ in 0..<1000 where c.state == .open { c.send(chunk) }
            }
            let f = try await Fixture.make(settings: settings, onOpen: flood)
            let raw = try RawSocket(port: f.server.port)
            var machine = ClientHandshake(token: testToken, name: "slow", slots: 1, registries: [])
            let challenge = try readFrames(raw, count: 1)
            for case .send(let m) in machine.onFrame(challenge[0]) { raw.write(m.encoded()) }
            try await f.log.wait("overloaded close") {
                $0.closeReasons.contains { if case .protocolError(let e) = $0 { e.code == .overloaded } else { false } }
            }
            raw.close()
            try await f.stillServed()
            await f.finish()
        }

        @Test("a peer that disconnects in the middle of a large write does not disturb the server")
        func disconnectMidWrite() async throws {
            let big = Frame(type: MessageType.scenario.rawValue, payload: [UInt8](repeating: 1, count: 4 << 20))
            let f = try await Fixture.make(onOpen: { c in
                if c.authenticatedPeer?.name == "slow" { c.send(big); c.send(big) }
            })
            let raw = try RawSocket(port: f.server.port)
            var machine = ClientHandshake(token: testToken, name: "slow", slots: 1, registries: [])
            let challenge = try readFrames(raw, count: 1)
            for case .send(let m) in machine.onFrame(challenge[0]) { raw.write(m.encoded()) }
            _ = try readFrames(raw, count: 1, maxBytes: 1024)
            raw.reset()
            try await f.log.wait("the server notices the hang-up") { $0.closeReasons.count == 1 }
            try await f.stillServed()
            await f.finish()
        }
    }

    @Suite("Back-pressure")
    struct BackPressureTests {
        @Test("an async client whose consumer lags stops reading, so the server turns unwritable; then all arrive")
        func consumerLag() async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            var settings = ConnectionSettings()
            settings.outboundHighWater = 64 << 10
            settings.outboundLowWater = 16 << 10
            // 40 MB: far more than loopback socket buffers and the client's 4 buffered batches can absorb, so the
            // server must turn unwritable however large the kernel's autotuned buffers are.
            let total = 40_000
            let sentCount = Mutex(0)
            let pump: @Sendable (FramedConnection) -> Void = { c in
                while c.isWritable && c.state == .open {
                    let n = sentCount.withLock { n -> Int in
                        defer { if n < total { n += 1 } }
                        return n
                    }
                    guard n < total else { return }
                    c.send(Frame(type: 0x42, payload: [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 1000)))
                    c.flush()
                }
            }
            let server = try await TCPServer.listen(on: loop, host: "127.0.0.1", port: 0, settings: settings) {
                RecordingHandler(log: log, onOpen: pump, onFrames: { _, _ in }, onWritable: pump)
            }
            let client = try await AsyncFramedClient.connect(
                host: "127.0.0.1", port: server.port, loop: loop, maxBufferedBatches: 4)
            try await log.wait("server unwritable while the consumer sleeps", timeout: 30) {
                $0.contains { if case .writability(_, false, _) = $0 { true } else { false } }
            }
            let received = try await withTimeout(60, "all frames") {
                var count = 0
                for await batch in client.inbound {
                    count += batch.count
                    if count >= total { break }
                }
                return count
            }
            #expect(received == total)
            await client.close()
            server.close()
            shutdownAndCheck(loop)
        }
    }
}

extension Atomic where Value == Int {
    func max(_ value: Int) {
        var current = load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = compareExchange(expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// Reads `count` frames from a raw socket (blocking, with a timeout).
func readFrames(_ raw: RawSocket, count: Int, maxBytes: Int = 1 << 20) throws -> [Frame] {
    var buffer = ByteBuffer()
    var decoder = FrameDecoder()
    var frames: [Frame] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    let deadline = Date().addingTimeInterval(10)
    while frames.count < count {
        guard Date() < deadline else { throw TimedOut(what: "\(count) raw frames") }
        var p = pollfd(fd: raw.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 100) > 0 else { continue }
        let n = chunk.withUnsafeMutableBytes { recv(raw.fd, $0.baseAddress, Swift.min($0.count, maxBytes), 0) }
        guard n > 0 else { throw TimedOut(what: "raw frames (closed)") }
        buffer.append(contentsOf: chunk[0..<n])
        if maxBytes < 4096 { return frames }
        try decoder.decodeAll(buffer: &buffer, into: &frames)
    }
    return frames
}
