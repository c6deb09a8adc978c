import FlowCrypto
import FlowMatrixCLI
import FlowVocabulary
import Foundation
import Journal
import RunControl
import UVTransport
import Wire

/// `flowmatrix bench floods`: a `flowmatrix serve` process under the floods a hostile peer can send, before and after
/// authenticating, each followed by the coordinator's resident memory, open files, journal size and CPU; then a real
/// worker joins and the run must finish. The bounds these figures show are in docs/PROTOCOL.md ("Bounds").
enum FloodBench {
    static let suite = BenchSuite(
        name: "floods", overview: "a coordinator process under hostile floods: RSS, open files, journal size, CPU",
        missing: WorkerLaunch.testWorkerMissing
    ) { quick in
        try await run(scale: quick ? 10 : 1)
    }

    /// What the coordinator process holds at one moment.
    struct Facts {
        var rss: Int
        var files: Int
        var journal: Int
        var cpu: Double
    }

    static let token = Array("flood-bench-token-0123456789abcdef".utf8)

    /// Samples the coordinator process: its facts now, and the peak resident memory seen so far.
    struct Observer {
        let pid: Int32
        let journal: String
        var peakRSS = 0

        func facts() -> Facts {
            let size = ["", "-wal"].reduce(0) { total, suffix in
                total + ((try? FileManager.default.attributesOfItem(atPath: journal + suffix)[.size] as? Int) ?? 0)
            }
            return Facts(rss: ProcessFacts.residentBytes(pid), files: ProcessFacts.openFiles(pid), journal: size,
                         cpu: ProcessFacts.cpuSeconds(pid))
        }

        /// Prints what a flood did and the process's facts after it.
        mutating func report(_ label: String, _ before: Facts, _ line: String) {
            let after = facts()
            peakRSS = max(peakRSS, after.rss)
            print("  \(label): \(line)")
            print("      then " + FloodBench.describe(after, since: before))
        }
    }

    /// `scale` divides the flood sizes (the quick run).
    static func run(scale: Int) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-floods-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = #"{"id": "slow", "title": "slow", "steps": [{"verb": "tap", "target": "busy", "arg": "50"}]}"#
        try Data(scenario.utf8).write(to: dir.appendingPathComponent("corpus/slow.json"))
        let values = (0..<40).map { "\"\($0)\"" }.joined(separator: ", ")
        let matrix = #"{"name": "floods", "corpus": "corpus", "registry": "test", "policy": {"timeout": 30}, "axes": {"n": [\#(values)]}}"#
        try Data(matrix.utf8).write(to: dir.appendingPathComponent("m.json"))
        try Data(token).write(to: dir.appendingPathComponent("token"))
        chmod(dir.appendingPathComponent("token").path, 0o600)
        // Port 0: the kernel picks a free port, and serve's first line says which.
        let output = dir.appendingPathComponent("serve.out")
        let serve = try ProcessFacts.start(
            ProcessFacts.flowmatrix, ["serve", "m.json", "--listen", "127.0.0.1:0", "--token-file", "token"], in: dir,
            output: output)
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        let port = try await boundPort(saidIn: output, by: serve)
        var observer = Observer(pid: serve.processIdentifier,
                                journal: dir.appendingPathComponent(".flowmatrix/journal.sqlite").path)
        let host = "127.0.0.1"
        // The first authenticated connection doubles as the wait for the server to listen.
        _ = try await connectWhenListening(host: host, port: port, name: "probe").close()
        let baseline = observer.facts()
        print("  coordinator process (flowmatrix serve, 40 jobs of 50 ms, no worker yet) at rest: "
              + describe(baseline, since: nil))
        observer.peakRSS = baseline.rss
        try await preAuthenticationFloods(host: host, port: port, observer: &observer)
        try await reportFloods(host: host, port: port, scale: scale, observer: &observer)
        try await artifactFloods(host: host, port: port, scale: scale, observer: &observer)
        try await finishWithRealWorker(serve, host: host, port: port, in: dir, observer: &observer)
        print(String(format: "  coordinator resident memory: %.1f MB at rest, at most %.1f MB through every flood and the run; "
                     + "journal %.0f KB at the end", Double(baseline.rss) / 1e6, Double(observer.peakRSS) / 1e6,
                     Double(observer.facts().journal) / 1e3))
    }

    /// Before authentication: frames past 64 KiB are refused at their header; 256 handshakes at most. Then HELLOs
    /// past their bounds, authenticated.
    static func preAuthenticationFloods(host: String, port: Int, observer: inout Observer) async throws {
        var before = observer.facts()
        let bigHellos = try await unauthenticatedHellos(host: host, port: port, count: 100, announced: 16 << 20, sent: 1 << 20)
        observer.report("100 unauthenticated connections, each announcing a 16 MiB HELLO and sending 1 MiB", before,
                        "\(bigHellos.closed) of 100 closed by the coordinator, in \(format(bigHellos.seconds)) s")
        before = observer.facts()
        let silent = try await silentConnections(host: host, port: port, count: 400, pid: observer.pid)
        observer.report("400 connections that never send HELLO", before,
                        "the coordinator held at most \(silent.peakFiles - before.files) more files while they were open; "
                            + "\(silent.closedAtAccept) closed at accept (over the 256 pending), the rest at the 10 s deadline "
                            + "(\(format(silent.seconds)) s)")
        before = observer.facts()
        let hugeName = await rejected(host: host, port: port, name: String(repeating: "w", count: 1 << 20), slots: 1)
        let hugeSlots = await rejected(host: host, port: port, name: "slots", slots: UInt32.max)
        observer.report("HELLO with a 1 MB name; HELLO with 2^32-1 slots", before, "\(hugeName); \(hugeSlots)")
    }

    /// Authenticated floods of reports on attempts never assigned.
    static func reportFloods(host: String, port: Int, scale: Int, observer: inout Observer) async throws {
        var before = observer.facts()
        let steps = try await flood(host: host, port: port, frames: 500_000 / scale) { i, _ in
            .step(StepEvent(job: "never-planned", attempt: 4_294_967_295, index: UInt32(i % 100), status: .passed,
                            durationMicros: 1, message: "forged"))
        }
        observer.report("\(500_000 / scale) STEP frames for a job never planned", before, steps)
        before = observer.facts()
        let results = try await flood(host: host, port: port, frames: 200_000 / scale, credit: 1) { _, assigned in
            .result(JobResult(job: assigned?.job ?? "none", attempt: 4_294_967_295, status: .passed, failure: nil,
                              durationMicros: 1))
        }
        observer.report("\(200_000 / scale) RESULT frames for attempt 2^32-1 of a real job", before, results)
    }

    /// Artifact floods on a job this peer holds.
    static func artifactFloods(host: String, port: Int, scale: Int, observer: inout Observer) async throws {
        var before = observer.facts()
        let streams = try await flood(host: host, port: port, frames: 25_000 / scale, credit: 1) { i, assigned in
            .artifactChunk(ArtifactChunk(job: assigned?.job ?? "none", attempt: assigned?.attempt ?? 1, step: 0,
                                         name: "open-\(i)", mediaType: "text/plain", sha256: .zero, offset: 0,
                                         bytes: Array(repeating: 0x41, count: 1024), last: false, rawSize: 1024))
        }
        observer.report("\(25_000 / scale) artifact streams opened and never finished", before, streams)
        before = observer.facts()
        let chunk = Array(repeating: UInt8(0x42), count: 64 << 10)
        let window = try await flood(host: host, port: port, frames: 96_000 / scale, credit: 1) { i, assigned in
            .artifactChunk(ArtifactChunk(job: assigned?.job ?? "none", attempt: assigned?.attempt ?? 1, step: 0,
                                         name: "big", mediaType: "application/octet-stream", sha256: .zero,
                                         offset: UInt64(i) * UInt64(chunk.count), bytes: chunk, last: false,
                                         rawSize: 1 << 40))
        }
        observer.report("one artifact streamed without waiting for acks (\(96_000 / scale * 64 / 1024) MiB offered)",
                        before, window)
    }

    /// A real worker joins: every job must still finish.
    static func finishWithRealWorker(
        _ serve: Process, host: String, port: Int, in dir: URL, observer: inout Observer
    ) async throws {
        let worker = try ProcessFacts.start(try WorkerLaunch.testWorker().executable, [
            "--connect", "\(host):\(port)", "--token-file", "token", "--registry", "test", "--slots", "4",
            "--exit-after-drain", "--give-up-after", "30",
        ], in: dir)
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        let finished = ContinuousClock.now
        while serve.isRunning {
            observer.peakRSS = max(observer.peakRSS, ProcessFacts.residentBytes(observer.pid))
            guard ContinuousClock.now - finished < .seconds(120) else { throw CommandFailure("the run did not finish in 120 s") }
            // A sampling interval for the RSS figure, not a wait for a condition.
            try await Task.sleep(for: .milliseconds(20))
        }
        worker.waitUntilExit()
        let reader = try JournalReader(path: observer.journal)
        guard let runID = try reader.latestRunID() else { throw CommandFailure("the flooded run did not start") }
        let rows = try reader.jobs(run: runID)
        let done = rows.filter { $0.result != nil }.count
        print("  then a real worker joined: serve exited \(serve.terminationStatus) after \(format((ContinuousClock.now - finished).milliseconds / 1000)) s, "
              + "\(done) of \(rows.count) jobs finished (\(rows.filter { $0.result?.outcome == .passed }.count) passed)")
    }

    // MARK: - Attackers

    /// The port `serve --listen 127.0.0.1:0` says it listens on ("workers connecting to 127.0.0.1:<port>"), read
    /// from its output within 20 s.
    static func boundPort(saidIn output: URL, by serve: Process, within limit: Duration = .seconds(20)) async throws -> Int {
        let marker = "workers connecting to 127.0.0.1:"
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline && serve.isRunning {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let range = text.range(of: marker), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) {
                return port
            }
            // Checked every 20 ms until the line is there (or the deadline passes).
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CommandFailure("flowmatrix serve did not say its port within \(limit)")
    }

    /// Connects with the bench's token, retrying while the server is not listening yet (at most 20 s).
    static func connectWhenListening(host: String, port: Int, name: String) async throws -> AsyncFramedClient {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            do {
                return try await AsyncFramedClient.connect(
                    host: host, port: port,
                    handshake: ClientHandshakeSettings(token: token, name: name, slots: 1, registries: ["test"]))
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Opens `count` unauthenticated connections that each send the header of a HELLO of `announced` bytes and
    /// `sent` bytes of its body; returns how many the coordinator closed within 10 s and how long that took.
    static func unauthenticatedHellos(host: String, port: Int, count: Int, announced: Int, sent: Int) async throws
        -> (closed: Int, seconds: Double)
    {
        let started = ContinuousClock.now
        var clients: [AsyncFramedClient] = []
        for _ in 0..<count {
            let client = try await AsyncFramedClient.connect(host: host, port: port)
            var bytes = [UInt8(truncatingIfNeeded: (announced + 1) >> 24), UInt8(truncatingIfNeeded: (announced + 1) >> 16),
                         UInt8(truncatingIfNeeded: (announced + 1) >> 8), UInt8(truncatingIfNeeded: announced + 1),
                         MessageType.hello.rawValue]
            bytes += Array(repeating: 0x55, count: sent)
            let payload = bytes
            client.send(encodedFrames: { payload })
            clients.append(client)
        }
        let closed = await closedWithin(clients, seconds: 10)
        return (closed, (ContinuousClock.now - started).milliseconds / 1000)
    }

    /// Opens `count` connections that send nothing, samples the coordinator's open files while they are open, and
    /// waits for the coordinator to close them all.
    static func silentConnections(host: String, port: Int, count: Int, pid: Int32) async throws
        -> (peakFiles: Int, closedAtAccept: Int, seconds: Double)
    {
        let started = ContinuousClock.now
        var clients: [AsyncFramedClient] = []
        for _ in 0..<count { clients.append(try await AsyncFramedClient.connect(host: host, port: port)) }
        let peakFiles = ProcessFacts.openFiles(pid)
        // Closed at accept: they never got a CHALLENGE. Counted once every connection has closed (deadline 10 s).
        var challenged = 0
        for client in clients {
            let first = await withTaskGroup(of: Bool.self) { group in
                group.addTask { for await batch in client.inbound { return !batch.isEmpty }; return false }
                group.addTask { try? await Task.sleep(for: .seconds(15)); return false }
                let answer = await group.next() ?? false
                group.cancelAll()
                return answer
            }
            if first { challenged += 1 }
        }
        _ = await closedWithin(clients, seconds: 15)
        return (peakFiles, count - challenged, (ContinuousClock.now - started).milliseconds / 1000)
    }

    /// How many of `clients` closed within `seconds`; closes the rest.
    static func closedWithin(_ clients: [AsyncFramedClient], seconds: Int) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for client in clients {
                group.addTask {
                    await withTaskGroup(of: Bool.self) { race in
                        race.addTask { _ = await client.closeReason(); return true }
                        race.addTask { try? await Task.sleep(for: .seconds(seconds)); return false }
                        let closed = await race.next() ?? false
                        race.cancelAll()
                        if !closed { await client.close(graceful: false) }
                        return closed
                    }
                }
            }
            var closed = 0
            for await c in group where c { closed += 1 }
            return closed
        }
    }

    /// A HELLO past its bounds: what the coordinator answered.
    static func rejected(host: String, port: Int, name: String, slots: UInt32) async -> String {
        do {
            let client = try await AsyncFramedClient.connect(
                host: host, port: port,
                handshake: ClientHandshakeSettings(token: token, name: name, slots: slots, registries: ["test"]))
            await client.close()
            return "WELCOMED (bound not enforced)"
        } catch {
            return "refused (\(String(describing: error).prefix(140)))"
        }
    }

    /// An authenticated peer that (with `credit`) waits for an assignment, then sends `frames` messages made by
    /// `make(i, assignment)` in batches of 2,000 until the coordinator closes it. Returns a line of figures.
    static func flood(host: String, port: Int, frames: Int, credit: UInt32 = 0,
                      make: @escaping @Sendable (Int, JobAssignment?) -> Message) async throws -> String {
        let client = try await connectWhenListening(host: host, port: port, name: "flooder")
        var assignment: JobAssignment?
        if credit > 0 {
            client.send(.credit(credit))
            assignment = await firstAssignment(client)
        }
        let started = ContinuousClock.now
        let closing = Task { await client.closeReason() }
        var sent = 0
        var bytes = 0
        let given = assignment
        while sent < frames {
            let batch = min(2_000, frames - sent)
            var encoded: [UInt8] = []
            for i in sent..<(sent + batch) { make(i, given).encodeFrame(into: &encoded) }
            bytes += encoded.count
            let payload = encoded
            client.send(encodedFrames: { payload })
            sent += batch
            // Stop offering once the coordinator has closed the connection.
            if await isClosed(client) { break }
        }
        let reason = await withTaskGroup(of: String?.self) { group in
            group.addTask { String(describing: await closing.value) }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await client.close(graceful: false)
        let elapsed = (ContinuousClock.now - started).milliseconds / 1000
        let held = given.map { " (holding \($0.job) attempt \($0.attempt))" } ?? ""
        guard let reason else {
            return "offered \(sent) frames (\(bytes / 1_000_000) MB) in \(format(elapsed)) s\(held): NOT closed within 10 s"
        }
        // The coordinator closed it, or stopped reading (TCP back-pressure) until the flooder's own queue overflowed.
        let how = reason.contains("overloaded") ? "the coordinator stopped reading; the flooder's own send queue overflowed"
            : reason == "closed by the peer" || reason.contains("peer") ? "closed by the coordinator" : reason
        return "\(how) after \(format(elapsed)) s\(held), \(sent) of \(frames) frames offered (\(bytes / 1_000_000) MB)"
    }

    static func isClosed(_ client: AsyncFramedClient) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { _ = await client.closeReason(); return true }
            group.addTask { await Task.yield(); return false }
            let answer = await group.next() ?? false
            group.cancelAll()
            return answer
        }
    }

    /// The first ASSIGN entry the coordinator sends (within 10 s), skipping CHALLENGE/SCENARIO/heartbeats.
    static func firstAssignment(_ client: AsyncFramedClient) async -> JobAssignment? {
        await withTaskGroup(of: JobAssignment?.self) { group in
            group.addTask {
                for await batch in client.inbound {
                    for frame in batch {
                        if case .assign(let jobs)? = try? Message(frame: frame), let first = jobs.first { return first }
                    }
                }
                return nil
            }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func describe(_ facts: Facts, since before: Facts?) -> String {
        var text = String(format: "RSS %.1f MB, %d open files, journal %.0f KB", Double(facts.rss) / 1e6, facts.files,
                          Double(facts.journal) / 1e3)
        if let before {
            text += String(format: " (RSS %+.1f MB, files %+d, journal %+.0f KB, coordinator CPU %.2f s)",
                           Double(facts.rss - before.rss) / 1e6, facts.files - before.files,
                           Double(facts.journal - before.journal) / 1e3, facts.cpu - before.cpu)
        }
        return text
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
}
