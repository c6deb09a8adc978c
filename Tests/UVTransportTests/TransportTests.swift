import Foundation
import Synchronization
import Testing
import UVTransport
import Wire

/// Every transport test runs on real loopback sockets, one at a time (they count threads and handles).
@Suite("UVTransport", .serialized)
struct TransportTests {}

extension TransportTests {
    @Suite("Event loop")
    struct EventLoopTests {
        @Test("execute runs work on the loop thread in order, and shutdown joins the thread with no handle left")
        func executeAndShutdown() async throws {
            let threadsBefore = EventLoop.runningThreads
            let loop = EventLoop()
            loop.start()
            let log = EventLog<Int>()
            for i in 0..<100 {
                loop.execute {
                    precondition(loop.inLoopThread)
                    log.append(i)
                }
            }
            try await log.wait("100 work items") { $0.count == 100 }
            #expect(log.events == Array(0..<100))
            #expect(!loop.inLoopThread)
            #expect(EventLoop.runningThreads == threadsBefore + 1)
            shutdownAndCheck(loop)
            #expect(EventLoop.runningThreads == threadsBefore)
            #expect(loop.execute {} == false)
        }

        @Test("timers fire once or repeatedly, and a cancelled timer stops")
        func timers() async throws {
            let loop = EventLoop()
            loop.start()
            let log = EventLog<String>()
            loop.schedule(after: .milliseconds(5)) { log.append("once") }
            let repeating = loop.scheduleRepeating(every: .milliseconds(2)) { log.append("tick") }
            let cancelled = loop.schedule(after: .milliseconds(50)) { log.append("never") }
            cancelled.cancel()
            try await log.wait("three ticks and the one-shot") {
                $0.filter { $0 == "tick" }.count >= 3 && $0.contains("once")
            }
            repeating.cancel()
            // A marker scheduled after the cancelled timer's deadline proves it did not fire.
            loop.schedule(after: .milliseconds(80)) { log.append("marker") }
            try await log.wait("marker") { $0.contains("marker") }
            #expect(!log.events.contains("never"))
            shutdownAndCheck(loop)
        }
    }

    @Suite("Framed connections")
    struct ConnectionTests {
        @Test("frames echo over IPv4 and IPv6 loopback, batch by batch", arguments: ["127.0.0.1", "::1"])
        func echo(host: String) async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            let server = try await TCPServer.listen(on: loop, host: host, port: 0) { RecordingHandler(log: log) }
            #expect(server.port > 0)
            let client = try await AsyncFramedClient.connect(host: host, port: server.port, loop: loop)
            let sent = (0..<1000).map { Frame(type: 0x42, payload: Array("frame \($0)".utf8)) }
            client.send(Array(sent[..<500]))
            client.send(Array(sent[500...]))
            var received: [Frame] = []
            try await withTimeout(10, "1000 echoed frames") { [received] in
                var got = received
                for await batch in client.inbound {
                    got += batch
                    if got.count >= 1000 { break }
                }
                return got
            }.forEach { received.append($0) }
            #expect(received == sent)
            try await log.wait("server open") { $0.openedCount == 1 }
            let reason = await client.close()
            #expect(reason == .closedLocally)
            try await log.wait("server sees the close") { $0.closeReasons == [.peerClosed] }
            server.close()
            shutdownAndCheck(loop)
        }

        @Test("large frames (attached on send, read straight into their payload) interleave with small ones in order")
        func largeFrames() async throws {
            let loop = EventLoop()
            let server = try await TCPServer.listen(on: loop, host: "127.0.0.1", port: 0) {
                RecordingHandler(log: EventLog())
            }
            let client = try await AsyncFramedClient.connect(host: "127.0.0.1", port: server.port, loop: loop)
            var sent: [Frame] = []
            for i in 0..<12 {
                let size = [3, 70_000, 300_000, 3 << 20][i % 4]
                var payload = [UInt8](repeating: UInt8(i), count: size)
                for j in stride(from: 0, to: size, by: 4093) { payload[j] = UInt8(truncatingIfNeeded: j / 4093) }
                sent.append(Frame(type: UInt8(i), payload: payload))
            }
            client.send(sent)
            let received = try await withTimeout(20, "12 echoed frames") {
                var got: [Frame] = []
                for await batch in client.inbound {
                    got += batch
                    if got.count >= 12 { break }
                }
                return got
            }
            #expect(received.count == sent.count)
            for (a, b) in zip(received, sent) {
                #expect(a.type == b.type)
                #expect(a.payload.count == b.payload.count)
                let same = a.payload.withUnsafeBytes { x in
                    b.payload.withUnsafeBytes { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
                }
                #expect(same)
            }
            await client.close()
            server.close()
            shutdownAndCheck(loop)
        }

        @Test("TCPClient.connect from a task: a loop-confined client handler with the handshake")
        func loopClient() async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            let server = try await TCPServer.listen(
                on: loop, host: "127.0.0.1", port: 0, handshake: handshakeSettings()
            ) { RecordingHandler(log: log) }
            let clientLog = EventLog<ServerEvent>()
            let connection = try await TCPClient.connect(
                on: loop, host: "127.0.0.1", port: server.port, handshake: clientHandshake()
            ) { RecordingHandler(log: clientLog, onFrames: { _, _ in }) }
            loop.execute {
                #expect(connection.value.welcome?.version == 1)
                connection.value.send(.credit(2))
            }
            try await clientLog.wait("echo") { $0.contains { if case .frames = $0 { true } else { false } } }
            loop.execute { connection.value.close() }
            try await clientLog.wait("client close") { $0.closeReasons == [.closedLocally] }
            await #expect(throws: ConnectionClosedError.self) {
                _ = try await TCPClient.connect(
                    on: loop, host: "127.0.0.1", port: server.port, handshake: clientHandshake(token: [1])
                ) { RecordingHandler(log: EventLog()) }
            }
            server.close()
            shutdownAndCheck(loop)
        }

        @Test("connecting to a closed port fails with connect-failed")
        func refused() async throws {
            let loop = EventLoop()
            let server = try await TCPServer.listen(on: loop, host: "127.0.0.1", port: 0) {
                RecordingHandler(log: EventLog())
            }
            let port = server.port
            server.close()
            await #expect(throws: ConnectionClosedError.self) {
                _ = try await AsyncFramedClient.connect(host: "127.0.0.1", port: port, loop: loop)
            }
            shutdownAndCheck(loop)
        }

        @Test("a bad address is a typed error")
        func badAddress() async throws {
            let loop = EventLoop()
            await #expect(throws: TransportError.self) {
                _ = try await TCPServer.listen(on: loop, host: "not-an-ip", port: 0) { RecordingHandler(log: EventLog()) }
            }
            shutdownAndCheck(loop)
        }

        @Test("a dropped async client closes its connection and its private loop thread")
        func droppedClientDoesNotLeak() async throws {
            let loop = EventLoop()
            let log = EventLog<ServerEvent>()
            let server = try await TCPServer.listen(on: loop, host: "127.0.0.1", port: 0) { RecordingHandler(log: log) }
            let threadsBefore = EventLoop.runningThreads
            do {
                let client = try await AsyncFramedClient.connect(host: "127.0.0.1", port: server.port)
                #expect(EventLoop.runningThreads == threadsBefore + 1)
                client.send(Frame(type: 1, payload: [1]))
                try await log.wait("frame") { $0.contains { if case .frames = $0 { true } else { false } } }
            }
            try await log.wait("server sees the dropped client close") { $0.closeReasons.count == 1 }
            #expect(EventLoop.runningThreads == threadsBefore)
            shutdownAndCheck(loop)
        }
    }
}
