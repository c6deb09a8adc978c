import Foundation
import Testing
import UVTransport
import Wire

extension TransportTests {
    @Suite("Heartbeats")
    struct HeartbeatTests {
        @Test("an idle authenticated pair exchanges HEARTBEATs; a silent peer is closed with heartbeat-timeout")
        func heartbeats() async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            var settings = handshakeSettings()
            settings.heartbeatInterval = .milliseconds(40)
            let server = try await TCPServer.listen(on: loop, host: "127.0.0.1", port: 0, handshake: settings) {
                RecordingHandler(log: log, onFrames: { _, _ in })
            }
            // A live client: its transport answers silence with HEARTBEATs, so it stays connected.
            let client = try await AsyncFramedClient.connect(
                host: "127.0.0.1", port: server.port, handshake: clientHandshake(), loop: loop)
            #expect(client.welcome?.heartbeatMillis == 40)
            let beats = try await withTimeout(10, "three heartbeats") {
                var beats = 0
                for await batch in client.inbound {
                    beats += batch.filter { $0.messageType == .heartbeat }.count
                    if beats >= 3 { break }
                }
                return beats
            }
            #expect(beats >= 3)
            // A peer that authenticates and then goes silent.
            let raw = try RawSocket(port: server.port)
            var machine = ClientHandshake(token: testToken, name: "silent", slots: 1, registries: [])
            let challenge = try readFrames(raw, count: 1)
            for case .send(let m) in machine.onFrame(challenge[0]) { raw.write(m.encoded()) }
            let (bytes, closed) = raw.readUntilClosed()
            #expect(closed)
            let messages = try Message.decodeAll(bytes)
            guard case .error(let error) = messages.last else {
                Issue.record("expected ERROR, got \(messages)")
                return
            }
            #expect(error.knownCode == .heartbeatTimeout)
            try await log.wait("the live client is still open") { $0.closeReasons.count == 1 }
            #expect(log.events.closeReasons.first.map {
                if case .protocolError(let e) = $0 { e.code == .heartbeatTimeout } else { false }
            } == true)
            raw.close()
            await client.close()
            server.close()
            shutdownAndCheck(loop)
        }
    }
}
