import FlowMatrixCLI
import Foundation
import Synchronization
import UVTransport
import Wire

#if canImport(Glibc)
import Glibc
#endif

/// `flowmatrix bench wire`: the wire codec and the libuv transport against plain POSIX sockets, in one run.
enum WireBench {
    static let suite = BenchSuite(
        name: "wire",
        overview: "Frames/s and GB/s through UVTransport + Wire vs. raw sockets; codec ns/message."
    ) { quick in
        try await run(quick: quick)
    }

    /// An ASSIGN with one job, about 64 bytes on the wire.
    static var assignFrame: Frame {
        Message.assign([JobAssignment(
            job: "j1", attempt: 1, scenarioHash: Bytes32([UInt8](repeating: 0xab, count: 32)) ?? .zero,
            registry: "cat", configuration: [ConfigurationPair("l", "ar")], timeoutMillis: 30000,
            seed: 0x0123_4567_89ab_cdef)]).frame()
    }

    static func run(quick: Bool) async throws {
        let small = assignFrame
        let smallCount = quick ? 200_000 : 20_000_000
        let bulk = Frame(type: MessageType.scenario.rawValue, payload: [UInt8](repeating: 0x5a, count: 1 << 20))
        let bulkCount = quick ? 64 : 3072

        // FLOWMATRIX_BENCH_WIRE_PART=small|bulk|codec runs one part (for profiling).
        let part = ProcessInfo.processInfo.environment["FLOWMATRIX_BENCH_WIRE_PART"]
        if part == nil || part == "small" { try await smallRun(frame: small, count: smallCount) }
        if part == nil || part == "bulk" { try await bulkRun(frame: bulk, count: bulkCount) }
        if part == nil || part == "codec" { codecRun(count: quick ? 100_000 : 2_000_000) }
    }

    static func smallRun(frame small: Frame, count smallCount: Int) async throws {
        print("pipelined ASSIGN frames (\(small.encodedSize) B each), one connection, \(smallCount) frames:")
        var smallSettings = ConnectionSettings()
        smallSettings.outboundHighWater = 2 << 20
        smallSettings.outboundLowWater = 1 << 20
        let ours = try await transportRun(frame: small, count: smallCount, batch: 4096, settings: smallSettings)
        let raw = try rawRun(frame: small, count: smallCount)
        report("frames/s", ours: Double(smallCount) / ours, raw: Double(smallCount) / raw, scale: 1e6, unit: "M")
    }

    static func bulkRun(frame bulk: Frame, count bulkCount: Int) async throws {

        print("bulk frames (1 MiB each), one connection, \(bulkCount) frames:")
        var bulkSettings = ConnectionSettings()
        bulkSettings.outboundHighWater = 8 << 20
        bulkSettings.outboundLowWater = 4 << 20
        bulkSettings.maxOutboundBytes = 64 << 20
        let bulkOurs = try await transportRun(frame: bulk, count: bulkCount, batch: 1, settings: bulkSettings)
        let bulkRaw = try rawRun(frame: bulk, count: bulkCount)
        let bytes = Double(bulkCount * bulk.encodedSize)
        report("GB/s", ours: bytes / bulkOurs, raw: bytes / bulkRaw, scale: 1e9, unit: "")
    }

    static func report(_ what: String, ours: Double, raw: Double, scale: Double, unit: String) {
        let o = String(format: "%.2f", ours / scale)
        let r = String(format: "%.2f", raw / scale)
        let ratio = String(format: "%.2f", ours / raw)
        print("  UVTransport + Wire: \(o)\(unit) \(what)   raw POSIX sockets: \(r)\(unit) \(what)   ratio: \(ratio)×")
        fflush(nil)
    }

    // MARK: Through the project's transport

    /// Sends `count` copies of `frame` from a client loop to a server loop; returns seconds until the server
    /// has decoded the last one.
    static func transportRun(frame: Frame, count: Int, batch: Int, settings: ConnectionSettings) async throws -> Double {
        let serverLoop = EventLoop()
        let clientLoop = EventLoop()
        serverLoop.start()
        clientLoop.start()
        defer {
            clientLoop.shutdown()
            serverLoop.shutdown()
        }
        let finish = FinishLine(expected: count)
        let server = try await TCPServer.listen(on: serverLoop, host: "127.0.0.1", port: 0, settings: settings) {
            CountingReceiver(finish: finish)
        }
        let frames = [Frame](repeating: frame, count: batch)
        let elapsed: Double = await withCheckedContinuation { continuation in
            finish.onDone = { seconds in continuation.resume(returning: seconds) }
            clientLoop.execute {
                let sender = PumpingSender(frames: frames, total: count, finish: finish)
                do {
                    _ = try TCPClient.connectInLoop(
                        on: clientLoop, host: "127.0.0.1", port: server.port, settings: settings, handler: sender)
                } catch {
                    finish.fail()
                }
            }
        }
        server.close()
        return elapsed
    }

    /// Counts frames; signals the finish line at the expected count.
    final class CountingReceiver: FramedConnectionHandler {
        let finish: FinishLine
        var received = 0
        init(finish: FinishLine) { self.finish = finish }
        func onOpen(_ connection: FramedConnection) {}
        func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {
            received += frames.count
            if received >= finish.expected { finish.done() }
        }
        func onClose(_ connection: FramedConnection, _ reason: CloseReason) {}
    }

    /// Sends batches while the connection is writable.
    final class PumpingSender: FramedConnectionHandler {
        let frames: [Frame]
        let total: Int
        let finish: FinishLine
        var sent = 0
        init(frames: [Frame], total: Int, finish: FinishLine) {
            self.frames = frames
            self.total = total
            self.finish = finish
        }
        func onOpen(_ connection: FramedConnection) {
            finish.start()
            pump(connection)
        }
        func onFrames(_ connection: FramedConnection, _ frames: FrameBatch) {}
        func onWritabilityChanged(_ connection: FramedConnection) { pump(connection) }
        func onClose(_ connection: FramedConnection, _ reason: CloseReason) {}
        func pump(_ connection: FramedConnection) {
            while connection.isWritable && sent < total {
                let n = min(frames.count, total - sent)
                if let first = frames.first, first.payload.count < 4096 {
                    // Small frames: framed one by one from the payload bytes, inside one access to the
                    // connection's outbound buffer.
                    first.payload.withUnsafeBytes { payload in
                        connection.withOutboundBuffer { out in
                            for _ in 0..<n { out.write(type: first.type, payload: payload) }
                        }
                    }
                } else if n == frames.count {
                    connection.send(contentsOf: frames)
                } else {
                    connection.send(contentsOf: frames[..<n])
                }
                sent += n
                connection.flush()
            }
        }
    }

    /// Start and end of one measurement, across the two loop threads.
    final class FinishLine: Sendable {
        let expected: Int
        private let lock = Mutex<(start: ContinuousClock.Instant?, fired: Bool)>((nil, false))
        var onDone: (@Sendable (Double) -> Void)? {
            get { callback.withLock { $0 } }
            set { callback.withLock { $0 = newValue } }
        }
        private let callback = Mutex<(@Sendable (Double) -> Void)?>(nil)

        init(expected: Int) { self.expected = expected }

        func start() { lock.withLock { $0.start = ContinuousClock.now } }

        func done() {
            let elapsed = lock.withLock { state -> Double? in
                guard !state.fired, let start = state.start else { return nil }
                state.fired = true
                let d = ContinuousClock.now - start
                return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            }
            if let elapsed { onDone?(elapsed) }
        }

        func fail() {
            let fire = lock.withLock { state -> Bool in
                defer { state.fired = true }
                return !state.fired
            }
            if fire { onDone?(.infinity) }
        }
    }

    // MARK: Raw POSIX sockets, two threads

    /// The same stream over a blocking loopback TCP pair: a writer thread writes pre-encoded frames in 256 KiB
    /// writes (the same coalescing), a reader thread reads 256 KiB at a time and walks the frame headers.
    static func rawRun(frame: Frame, count: Int) throws -> Double {
        let (writerFD, readerFD) = try loopbackPair()
        defer {
            close(writerFD)
            close(readerFD)
        }
        let encoded = frame.encoded()
        let framesPerWrite = max(1, (256 << 10) / encoded.count)
        let block = [[UInt8]](repeating: encoded, count: framesPerWrite).flatMap { $0 }
        let done = DispatchSemaphore(value: 0)
        let counted = Mutex(0)
        let start = ContinuousClock.now
        let writer = Thread {
            var left = count
            while left > 0 {
                let n = min(left, framesPerWrite)
                block.withUnsafeBytes { raw in
                    var offset = 0
                    let length = n * encoded.count
                    while offset < length {
                        guard let base = raw.baseAddress else { return }
                        let w = send(writerFD, base + offset, length - offset, noSignal)
                        if w <= 0 { return }
                        offset += w
                    }
                }
                left -= n
            }
        }
        let reader = Thread {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: (2 << 20) + 256 << 10, alignment: 16)
            defer { buffer.deallocate() }
            var have = 0
            var frames = 0
            while frames < count {
                let r = recv(readerFD, buffer + have, 256 << 10, 0)
                if r <= 0 { break }
                have += r
                var offset = 0
                while have - offset >= 5 {
                    let length = Int(UInt32(bigEndian: (buffer + offset).loadUnaligned(as: UInt32.self)))
                    guard have - offset >= 4 + length else { break }
                    offset += 4 + length
                    frames += 1
                }
                if offset > 0 {
                    (buffer).copyMemory(from: buffer + offset, byteCount: have - offset)
                    have -= offset
                }
            }
            counted.withLock { $0 = frames }
            done.signal()
        }
        writer.start()
        reader.start()
        done.wait()
        let d = ContinuousClock.now - start
        guard counted.withLock({ $0 }) == count else { throw CommandFailure("raw socket run lost frames") }
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// `SOCK_STREAM` as `socket` takes it (an enum on Linux, an integer on Darwin).
    static var streamSocket: Int32 {
        #if canImport(Darwin)
            SOCK_STREAM
        #else
            Int32(SOCK_STREAM.rawValue)
        #endif
    }

    /// `send` flags that keep a closed peer from raising SIGPIPE on Linux (Darwin has no MSG_NOSIGNAL; the process
    /// ignores SIGPIPE once an EventLoop exists).
    static var noSignal: Int32 {
        #if canImport(Darwin)
            0
        #else
            Int32(MSG_NOSIGNAL)
        #endif
    }

    static func loopbackPair() throws -> (Int32, Int32) {
        let listener = socket(AF_INET, streamSocket, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(listener, p, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, p, &length) == 0
            }
        }
        guard bound else { throw CommandFailure("cannot open a loopback listener: errno \(errno)") }
        let client = socket(AF_INET, streamSocket, 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        guard connected else { throw CommandFailure("cannot connect on loopback: errno \(errno)") }
        let server = accept(listener, nil, nil)
        var one: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return (client, server)
    }

    // MARK: Codec alone

    static func codecRun(count: Int) {
        let message = Message.assign([JobAssignment(
            job: "3f2a9c0e-job", attempt: 1, scenarioHash: .zero, registry: "catalog",
            configuration: [ConfigurationPair("locale", "ar"), ConfigurationPair("direction", "rtl")],
            timeoutMillis: 30000, seed: 42)])
        let frame = message.frame()
        var checksum = 0
        let encodeStart = ContinuousClock.now
        for _ in 0..<count { checksum &+= message.frame().payload.count }
        let encodeTime = ContinuousClock.now - encodeStart
        let decodeStart = ContinuousClock.now
        for _ in 0..<count {
            if case .assign(let jobs) = try? Message(frame: frame) { checksum &+= jobs.count }
        }
        let decodeTime = ContinuousClock.now - decodeStart
        func ns(_ d: Duration) -> String {
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return String(format: "%.0f", seconds * 1e9 / Double(count))
        }
        print("message codec, ASSIGN of one job (\(frame.encodedSize) B), one thread:")
        print("  encode: \(ns(encodeTime)) ns/message   decode: \(ns(decodeTime)) ns/message   (checksum \(checksum % 10))")
    }
}
