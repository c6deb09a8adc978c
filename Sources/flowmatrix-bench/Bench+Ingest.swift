import FlowMatrixCLI
import FlowVocabulary
import Foundation
import Journal
import RunControl

/// `flowmatrix bench ingest`: compressed artifacts streamed by 2 worker processes through the protocol into a
/// coordinator process's blob store; MB/s to disk and the coordinator's peak RSS.
enum IngestBench {
    static let suite = BenchSuite(
        name: "ingest", overview: "artifact ingest through a coordinator process from 2 worker processes: MB/s, RSS",
        missing: WorkerLaunch.testWorkerMissing
    ) { quick in
        try await run(jobs: quick ? 2 : 16, artifactsPerJob: quick ? 2 : 16, mebibytes: quick ? 1 : 8)
    }

    static func run(jobs: Int, artifactsPerJob: Int, mebibytes: Int) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = #"{"id": "stored", "title": "attaches stored artifacts", "steps": [{"verb": "tap", "target": "attach-stored", "arg": "\#(artifactsPerJob):\#(mebibytes)"}]}"#
        try Data(scenario.utf8).write(to: dir.appendingPathComponent("corpus/stored.json"))
        let values = (0..<jobs).map { "\"\($0)\"" }.joined(separator: ", ")
        let matrix = #"{"name": "ingest", "corpus": "corpus", "registry": "test", "policy": {"timeout": 600, "keep": "all"}, "axes": {"n": [\#(values)]}}"#
        try Data(matrix.utf8).write(to: dir.appendingPathComponent("m.json"))
        try Data("ingest-bench-token-0123456789".utf8).write(to: dir.appendingPathComponent("token"))
        let port = Int.random(in: 20_000...60_000)
        func start(_ args: [String]) throws -> Process { try ProcessFacts.startFlowmatrix(args, in: dir) }
        let started = ContinuousClock.now
        let serve = try start(["serve", "m.json", "--listen", "127.0.0.1:\(port)", "--token-file", "token", "--quiet"])
        let testWorker = try WorkerLaunch.testWorker().executable
        let workers = try (0..<2).map { _ in
            try ProcessFacts.start(testWorker, [
                "--connect", "127.0.0.1:\(port)", "--token-file", "token", "--registry", "test", "--slots", "2",
                "--exit-after-drain", "--give-up-after", "30",
            ], in: dir)
        }
        var peak = 0
        var coordinatorCPU = 0.0
        while serve.isRunning {
            peak = max(peak, peakRSS(serve.processIdentifier))
            coordinatorCPU = max(coordinatorCPU, cpuSeconds(serve.processIdentifier))
            // A sampling interval for the RSS figure, not a wait for a condition.
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = ContinuousClock.now - started
        for w in workers { w.waitUntilExit() }
        let reader = try JournalReader(path: dir.appendingPathComponent(".flowmatrix/journal.sqlite").path)
        guard let runID = try reader.latestRunID() else { throw CommandFailure("the ingest run did not start") }
        let rows = try reader.artifacts(run: runID)
        let bytes = rows.reduce(0) { $0 + $1.artifact.compressedSize }
        let seconds = elapsed.milliseconds / 1000
        print(String(format: "  %d artifacts (%d jobs x %d x %d MiB, stored gzip), 2 worker processes -> coordinator process",
                     rows.count, jobs, artifactsPerJob, mebibytes))
        print(String(format: "  %.2f GB ingested in %.2f s (whole run, incl. process start and hashing on the workers): "
                     + "%.0f MB/s to disk (target >= 300), fsync per blob", Double(bytes) / 1e9, seconds,
                     Double(bytes) / 1e6 / seconds))
        print(String(format: "  coordinator peak RSS (VmHWM): %.0f MB (target < 256 MB)", Double(peak) / 1e6))
        print(String(format: "  coordinator CPU %.2f s: %.0f MB ingested per coordinator CPU-second (the 2 cores are shared "
                     + "with the workers' generation and hashing)", coordinatorCPU, Double(bytes) / 1e6 / max(coordinatorCPU, 0.001)))
    }

    static func cpuSeconds(_ pid: Int32) -> Double { ProcessFacts.cpuSeconds(pid) }
    static func peakRSS(_ pid: Int32) -> Int { ProcessFacts.peakRSS(pid) }
}
