import Coordinator
import FlowCrypto
import FlowMatrixCLI
import FlowSpec
import Foundation
import Journal
import MatrixPlan
import RunControl
import Wire

/// `flowmatrix bench makespan`: jobs of a second or more on real worker processes (the `test` registry's `busy`
/// step sleeps for real), first assignment to last result against the lower bound, beside the same run with the
/// previous release's feeding (64 jobs per slot, no work stealing) in the same sitting; then the 2,000-job
/// simulated case through the scheduler alone.
enum MakespanBench {
    static let suite = BenchSuite(name: "makespan", overview: "long jobs on 2 real workers vs the lower bound; before/after hoarding fix",
                                  missing: WorkerLaunch.testWorkerMissing) { quick in
        print("  lower bound = max(total work / slots, longest job); 2 local worker processes x 2 slots; no history")
        try await compare(label: "8 jobs of 1 s", durations: Array(repeating: 1000, count: 8), target: true)
        var rng = SplitMix64(seed: 7)
        let mixed = (0..<(quick ? 12 : 30)).map { _ in 100 + Int(rng.next() % 1901) }
        try await compare(label: "\(mixed.count) jobs of 100 ms-2 s, no history", durations: mixed, target: false)
        // The same jobs the next night: the journal's history orders them longest first.
        let withHistory = try await makespan(mixed, hoarding: false, history: true)
        let bound = max(Double(mixed.reduce(0, +)) / 4, Double(mixed.max() ?? 0)) / 1000
        print(String(format: "  the same %d jobs with history (longest first): %.2f s vs bound %.2f s (%.1f%% over)",
                     mixed.count, withHistory.seconds, bound, (withHistory.seconds / bound - 1) * 100))
        print(String(format: "    (greedy list scheduling in plan order, the best possible without durations: %.2f s)",
                     greedy(mixed, slots: 4)))
        DispatchBench.makespan(jobs: quick ? 200 : 2_000)
    }

    /// Runs `durations` (ms) with today's scheduler and with the old feeding, and prints both against the bound.
    static func compare(label: String, durations: [Int], target: Bool) async throws {
        let bound = max(Double(durations.reduce(0, +)) / 4, Double(durations.max() ?? 0)) / 1000
        let now = try await makespan(durations, hoarding: false)
        let before = try await makespan(durations, hoarding: true)
        print(String(format: "  %@: %.2f s vs bound %.2f s (%.1f%% over%@); previous feeding %.2f s (%.1f%% over)",
                     label, now.seconds, bound, (now.seconds / bound - 1) * 100, target ? "; target <= 10%" : "",
                     before.seconds, (before.seconds / bound - 1) * 100))
        print("    jobs per worker: now \(now.perWorker), previous feeding \(before.perWorker)")
    }

    /// The makespan (s) of assigning jobs in plan order, each to the first free slot.
    static func greedy(_ durations: [Int], slots: Int) -> Double {
        var free = Array(repeating: 0, count: slots)
        for d in durations {
            let i = free.indices.min { free[$0] < free[$1] } ?? 0
            free[i] += d
        }
        return Double(free.max() ?? 0) / 1000
    }

    /// One run: a coordinator, 2 local workers × 2 slots, one `busy:<ms>` scenario per job.
    /// - Parameter hoarding: feed as the previous release did (up to 64 jobs per slot, never take any back).
    static func makespan(_ durations: [Int], hoarding: Bool, history: Bool = false) async throws
        -> (seconds: Double, perWorker: [Int])
    {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-makespan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var bodies: [Bytes32: [UInt8]] = [:]
        var jobs: [RunJob] = []
        for (i, ms) in durations.enumerated() {
            let scenario = Scenario(id: "busy-\(i)", title: "busy \(ms) ms", steps: [Step(verb: .tap, target: "busy", arg: "\(ms)")])
            let body = Array(JobIdentity.canonicalJSON(scenario).utf8)
            let hash = Bytes32(SHA256.hash(body)) ?? .zero
            bodies[hash] = body
            jobs.append(RunJob(id: DispatchBench.jobID(i), scenarioID: scenario.id, scenarioTitle: scenario.title,
                               scenarioHash: hash, stepKeys: scenario.steps.map(\.key), registry: "test", requiredLabels: [:],
                               configuration: [ConfigurationPair("i", String(i))], seed: UInt64(i),
                               expectedDuration: history ? .milliseconds(ms) : .zero))
        }
        var scheduler = SchedulerSettings(jobTimeout: .seconds(60))
        scheduler.adaptiveFeeding = !hoarding
        let definition = RunDefinition(runID: "makespan", jobs: jobs, scenarioBodies: bodies, scheduler: scheduler)
        let path = dir.appendingPathComponent("journal.sqlite").path
        let writer = try JournalWriter(path: path)
        try writer.submit([
            .runStarted(RunInfo(runID: "makespan", matrixName: "makespan", matrixPath: "-", seed: 0, startedAt: Date())),
            .jobsPlanned(runID: "makespan", jobs: jobs.map {
                PlannedJob(jobID: $0.id, scenarioID: $0.scenarioID, scenarioTitle: $0.scenarioTitle, configuration: "i=\($0.seed)",
                           configurationJSON: "{}", registry: "test")
            }),
        ])
        let token = Hex.encode(secureRandomBytes(16))
        let server = try await CoordinatorServer.start(
            definition: definition, settings: CoordinatorSettings(host: "127.0.0.1", port: 0, token: Array(token.utf8))
        ) { records in try? writer.submit(records) }
        let workers = try LocalWorkers(count: 2, slots: 2, port: server.port, token: token,
                                       launch: try .testWorker(registries: ["test"]), quiet: true)
        _ = await server.waitForCompletion()
        await server.shutdown(grace: .seconds(5))
        await workers.waitForExit(grace: .seconds(5))
        try writer.close()
        let reader = try JournalReader(path: path)
        var starts: [Date] = [], ends: [Date] = [], perWorker: [String: Int] = [:]
        for job in jobs {
            for attempt in try reader.attempts(run: "makespan", job: job.id) where attempt.result?.outcome == .passed {
                if let s = attempt.startedAt { starts.append(s) }
                if let e = attempt.result?.finishedAt { ends.append(e) }
                perWorker[attempt.worker, default: 0] += 1
            }
        }
        guard let first = starts.min(), let last = ends.max() else { return (0, []) }
        return (last.timeIntervalSince(first), perWorker.keys.sorted().map { perWorker[$0] ?? 0 })
    }
}
