import Artifacts
import FlowMatrixTestKit
import Foundation
import Journal
import Testing

/// Per-step artifacts through real worker processes: streamed, verified, deduplicated, extracted.
@Suite("Artifacts end to end", .serialized, .timeLimit(.minutes(3)))
struct ArtifactFlowTests {
    @Test("bytes attached on the worker are the bytes extracted on the coordinator; blobs pass gzip -t")
    func roundTrip() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("attaches", ["attach:evidence.bin:200000", "fail"])
        let matrix = try ws.matrix(locales: ["en"])
        let (status, output) = try await ws.run(["run", matrix, "--workers", "1"], label: "run")
        #expect(status == 1, "\(output)")
        let (extractStatus, extractOutput) = try await ws.run(["artifacts", "extract", "last", "--out", "out"], label: "extract")
        #expect(extractStatus == 0, "\(extractOutput)")
        let runID = try #require(try ws.latestRunID())
        let jobID = try #require(try ws.outcomes(run: runID).keys.first)
        let extracted = try Data(contentsOf: ws.root.appendingPathComponent("out/\(jobID)/attempt-1/step-0/evidence.bin"))
        #expect(Array(extracted) == TestRegistry.artifactBytes(name: "evidence.bin", count: 200_000))
        let log = try String(contentsOf: ws.root.appendingPathComponent("out/\(jobID)/attempt-1/step-1/step.log"), encoding: .utf8)
        #expect(log.contains("step 2 tap:fail: failed"))
        let blobs = try BlobStore(root: ws.root.appendingPathComponent(".flowmatrix")).allHashes()
        #expect(!blobs.isEmpty)
        for hash in blobs {
            let path = ws.root.appendingPathComponent(".flowmatrix/blobs/\(hash.prefix(2))/\(hash).gz").path
            let (gzipStatus, _) = try await ws.runTool("/bin/sh", ["-c", "gzip -t '\(path)'"])
            #expect(gzipStatus == 0, "gzip -t \(path)")
        }
    }

    @Test("a corrupted chunk is caught by the hash check, re-sent, and never stored wrong")
    func corruptedChunk() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("attaches", ["attach:fragile.bin:150000", "fail"])
        let matrix = try ws.matrix(locales: ["en"])
        let (status, output) = try await ws.run(["run", matrix, "--workers", "1"], label: "run",
                                                environment: ["FLOWMATRIX_FAULT_CORRUPT_ARTIFACT": "fragile.bin"])
        #expect(status == 1, "\(output)")
        #expect(output.contains("1 re-sent after failing verification"), "\(output)")
        let reader = try JournalReader(path: ws.journalPath)
        let runID = try #require(try reader.latestRunID())
        let rows = try reader.artifacts(run: runID).filter { $0.artifact.name == "fragile.bin" }
        #expect(rows.count == 1)
        let store = try BlobStore(root: ws.root.appendingPathComponent(".flowmatrix"))
        let hash = try #require(rows.first?.artifact.sha256)
        #expect(try store.read(hash, maxSize: 1 << 24) == TestRegistry.artifactBytes(name: "fragile.bin", count: 150_000))
        // The blob on disk hashes to its name: nothing corrupt became visible.
        let compressed = try store.compressedBytes(hash, maxSize: 1 << 24)
        #expect(try await SHA256Hex.of(compressed) == hash)
    }

    @Test("every attempt keeps its own artifacts: a job retried twice has three sets")
    func everyAttempt() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("always-fails", ["attach:a.bin:1000", "fail"])
        let matrix = try ws.matrix(locales: ["en"], retries: 2)
        _ = try await ws.run(["run", matrix, "--workers", "2"], label: "run")
        let reader = try JournalReader(path: ws.journalPath)
        let runID = try #require(try reader.latestRunID())
        let rows = try reader.artifacts(run: runID)
        #expect(Set(rows.map(\.attempt)) == [1, 2, 3])
        for attempt in 1...3 {
            #expect(Set(rows.filter { $0.attempt == attempt }.map(\.artifact.name)) == ["a.bin", "step.log"])
        }
    }

    @Test("identical artifacts of different jobs are stored once; keep=failures sends nothing for passing jobs")
    func dedupAndKeepPolicy() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("same-bytes", ["attach:shared.bin:50000", "fail"])
        try ws.scenario("passes", ["attach:passing.bin:50000"])
        let matrix = try ws.matrix(locales: ["en", "de", "fr"])
        _ = try await ws.run(["run", matrix, "--workers", "2"], label: "run")
        let reader = try JournalReader(path: ws.journalPath)
        let runID = try #require(try reader.latestRunID())
        let shared = try reader.artifacts(run: runID).filter { $0.artifact.name == "shared.bin" }
        #expect(shared.count == 3)
        #expect(Set(shared.map(\.artifact.sha256)).count == 1)
        #expect(try reader.artifacts(run: runID).filter { $0.artifact.name == "passing.bin" }.isEmpty)
        let store = try BlobStore(root: ws.root.appendingPathComponent(".flowmatrix"))
        #expect(try store.allHashes().filter { $0 == shared[0].artifact.sha256 }.count == 1)
    }

    @Test("the coordinator's memory stays bounded while a worker streams an artifact far larger than its buffers")
    func boundedMemory() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        let size = 96 << 20
        try ws.scenario("huge", ["attach:huge.bin:\(size)", "fail"])
        let matrix = try ws.matrix(locales: ["en"], timeout: 120)
        try Data("memory-token-0123456789".utf8).write(to: ws.root.appendingPathComponent("token"))
        let (serve, port) = try await ws.startServe(["serve", matrix, "--token-file", "token"], label: "serve")
        let worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--slots", "1",
                                   "--exit-after-drain"], label: "worker")
        var peak = 0
        try await waitUntil("the run completes", timeout: .seconds(150)) {
            peak = max(peak, residentPeak(of: serve.processIdentifier))
            return !serve.isRunning
        }
        try await ws.waitForExit(worker, timeout: .seconds(30))
        let reader = try JournalReader(path: ws.journalPath)
        let runID = try #require(try reader.latestRunID())
        #expect(try reader.artifacts(run: runID).contains { $0.artifact.name == "huge.bin" && $0.artifact.rawSize == size })
        #expect(peak > 0 && peak < 64 << 20, "coordinator peak RSS \(peak / 1_048_576) MiB while ingesting \(size >> 20) MiB")
    }
}

/// The peak resident set size (VmHWM) of a process, in bytes; 0 once it has exited.
func residentPeak(of pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

enum SHA256Hex {
    /// The SHA-256 of `bytes` in hex, by `sha256sum` (another implementation than the store's).
    static func of(_ bytes: [UInt8]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (_, output) = try await runProgram("/usr/bin/sha256sum", [file.path])
        return output.split(separator: " ").first.map(String.init) ?? ""
    }
}
