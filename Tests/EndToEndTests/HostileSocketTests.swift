import Foundation
import Journal
import Testing
import UVTransport
import Wire

/// The forged frames of docs/PROTOCOL.md "Bounds", sent by an authenticated peer to a real `flowmatrix serve` over
/// loopback: each is refused (the connection closed), nothing it claimed reaches the journal, and a real worker then
/// finishes the run with every job passing.
@Suite("Hostile peers against a coordinator process", .serialized, .timeLimit(.minutes(2)))
struct HostileSocketTests {
    static let token = Array("hostile-socket-token-0123456789ab".utf8)

    private func connect(_ port: Int, name: String, labels: [String] = []) async throws -> AsyncFramedClient {
        try await AsyncFramedClient.connect(
            host: "127.0.0.1", port: port,
            handshake: ClientHandshakeSettings(token: Self.token, name: name, slots: 1, registries: ["test"], labels: labels))
    }

    /// The first assignment sent to `client` after its CREDIT, within 20 s.
    private func assignment(_ client: AsyncFramedClient) async throws -> JobAssignment {
        client.send(.credit(1))
        let found = await withTaskGroup(of: JobAssignment?.self) { group in
            group.addTask {
                for await batch in client.inbound {
                    for frame in batch {
                        if case .assign(let jobs)? = try? Message(frame: frame), let first = jobs.first { return first }
                    }
                }
                return nil
            }
            group.addTask { try? await Task.sleep(for: .seconds(20)); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return try #require(found, "no ASSIGN within 20 s")
    }

    /// Whether the coordinator closes `client` within 10 s.
    private func closedByCoordinator(_ client: AsyncFramedClient) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { _ = await client.closeReason(); return true }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return false }
            let closed = await group.next() ?? false
            group.cancelAll()
            return closed
        }
    }

    @Test("labels \"\" and \"=\", RESULT for attempt 2^32-1, a raw size of 2^63, a report on another's attempt: refused; the run finishes")
    func forgedFramesOverASocket() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for i in 0..<4 { try ws.scenario("job-\(i)", ["busy:200", "pass"]) }
        let matrix = try ws.matrix(locales: ["en", "de"])
        try Data(Self.token).write(to: ws.root.appendingPathComponent("token"))
        chmod(ws.root.appendingPathComponent("token").path, 0o600)
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        var probe: AsyncFramedClient?
        try await waitUntil("the coordinator listens", timeout: .seconds(30)) {
            probe = try? await connect(port, name: "probe")
            return probe != nil
        }
        await probe?.close()

        // HELLO labels with an empty key: refused at the handshake, the coordinator lives on.
        for labels in [[""], ["="]] {
            await #expect(throws: ConnectionClosedError.self) { _ = try await connect(port, name: "labels", labels: labels) }
        }
        // RESULT for an attempt never assigned, on a job this peer holds.
        let forger = try await connect(port, name: "forger")
        let held = try await assignment(forger)
        forger.send(.result(JobResult(job: held.job, attempt: UInt32.max, status: .passed, failure: nil, durationMicros: 1)))
        #expect(await closedByCoordinator(forger))
        // An artifact chunk claiming a raw size of 2^63.
        let huge = try await connect(port, name: "huge")
        let hugeJob = try await assignment(huge)
        huge.send(.artifactChunk(ArtifactChunk(job: hugeJob.job, attempt: hugeJob.attempt, step: 0, name: "a", mediaType: "text/plain",
                                               sha256: .zero, offset: 0, bytes: [1], last: true, rawSize: 1 << 63)))
        #expect(await closedByCoordinator(huge))
        // A peer reporting on another peer's live attempt: ignored (nothing journaled); the holder's report decides.
        let holder = try await connect(port, name: "holder")
        let live = try await assignment(holder)
        let liar = try await connect(port, name: "liar")
        liar.send(.result(JobResult(job: live.job, attempt: live.attempt, status: .failed,
                                    failure: Failure(step: 0, message: "a lie"), durationMicros: 1)))
        holder.send(.result(JobResult(job: live.job, attempt: live.attempt, status: .passed, failure: nil, durationMicros: 1)))
        try await waitUntil("the holder's result is journaled", timeout: .seconds(30)) {
            (try? ws.latestRunID()).flatMap { $0 }.flatMap { try? ws.outcomes(run: $0)[live.job] } == .passed
        }
        await liar.close()
        await holder.close()

        // A real worker finishes the run.
        let worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--slots", "2",
                                   "--exit-after-drain", "--give-up-after", "20"], label: "worker")
        try await ws.waitForExit(serve, timeout: .seconds(60))
        #expect(serve.terminationStatus == 0, "\(ws.output("serve"))")
        try await ws.waitForExit(worker, timeout: .seconds(30))
        let runID = try #require(try ws.latestRunID())
        let outcomes = try ws.outcomes(run: runID)
        #expect(outcomes.count == 8 && outcomes.values.allSatisfy { $0 == .passed }, "\(outcomes)")
        let reader = try JournalReader(path: ws.journalPath)
        for jobID in outcomes.keys {
            for attempt in try reader.attempts(run: runID, job: jobID) {
                #expect(attempt.attempt < 100, "attempt \(attempt.attempt) of \(jobID) journaled")
                #expect(attempt.worker != "liar" && attempt.result?.message != "a lie")
            }
            #expect(try reader.artifacts(run: runID).allSatisfy { $0.artifact.rawSize < 1 << 40 })
        }
    }
}
