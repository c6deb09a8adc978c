import Coordinator
import FlowCrypto
import FlowMatrixCLI
import FlowSpec
import FlowVocabulary
import Foundation
import Journal
import MatrixPlan
import RunControl
import Wire

/// `flowmatrix bench dispatch`: end-to-end job throughput, memory per queued job, makespan of longest-first.
enum DispatchBench {
    static let suite = BenchSuite(name: "dispatch", overview: "no-op jobs/s through coordinator + 2 worker processes; bytes per queued job; makespan") { quick in
        try await throughput(jobs: quick ? 2_000 : 100_000, journal: false)
        // The headline case, five times: the machine may be shared, so every round is printed, then the median.
        var rates: [(endToEnd: Double, durable: Double)] = []
        for round in 1...(quick ? 1 : 5) {
            if !quick { print("  round \(round):") }
            if let rate = try await throughput(jobs: quick ? 2_000 : 100_000, journal: true) { rates.append(rate) }
        }
        if rates.count > 1 {
            let endToEnd = rates.map(\.endToEnd).sorted(), durable = rates.map(\.durable).sorted()
            print(String(format: "  journal on, %d rounds: end to end best %.0f, median %.0f jobs/s; durable best %.0f, median %.0f jobs/s (target >= 100,000)",
                         rates.count, endToEnd.last ?? 0, endToEnd[endToEnd.count / 2], durable.last ?? 0, durable[durable.count / 2]))
        }
        memory(jobs: quick ? 20_000 : 1_000_000)
        // Long jobs on real workers, and the 2,000-job simulated case: `bench makespan`.
    }

    /// The one scenario of the no-op benches: three steps that the `noop` registry does nothing for.
    static let scenario = Scenario(id: "noop", title: "three no-op steps", steps: [
        Step(verb: .open, target: "home"), Step(verb: .tap, target: "button"), Step(verb: .assert, target: "label"),
    ])

    /// The id of the bench's job `i`, shaped like a planned job's (`JobIdentity`: 16 hex digits of a SHA-256):
    /// ids that long are not small strings, so every one decoded from a frame is an allocation, as in a real run.
    static func jobID(_ i: Int) -> String {
        String(Hex.encode(SHA256.hash(Array("bench-job-\(i)".utf8))).prefix(16))
    }

    /// A run definition of `count` no-op jobs of one 3-step scenario.
    static func definition(jobs count: Int, runID: String) -> RunDefinition {
        let body = Array(JobIdentity.canonicalJSON(scenario).utf8)
        let hash = Bytes32(SHA256.hash(body)) ?? .zero
        let keys = scenario.steps.map(\.key)
        var jobs: [RunJob] = []
        jobs.reserveCapacity(count)
        // One shared table of value indices, as a planned run has: configuration i is n=i.
        let configurations = ConfigurationTable(names: ["n"], values: [(0..<count).map(String.init)],
                                                rows: (0..<count).map(Int32.init)) ?? ConfigurationTable([])
        for i in 0..<count {
            jobs.append(RunJob(id: jobID(i), scenarioID: "noop", scenarioTitle: scenario.title, scenarioHash: hash,
                               stepKeys: keys, registry: "noop", requiredLabels: [:], configurations: configurations,
                               configurationIndex: i, seed: UInt64(i), expectedDuration: .zero))
        }
        return RunDefinition(runID: runID, jobs: jobs, scenarioBodies: [hash: body],
                             scheduler: SchedulerSettings(jobTimeout: .seconds(60), maximumBatch: 1024))
    }

    /// Runs `count` no-op jobs through a coordinator and 2 worker processes and prints the figures.
    /// - Returns: with the journal on, the end-to-end and until-durable rates (jobs/s).
    @discardableResult
    static func throughput(jobs count: Int, journal: Bool, live: Bool = false) async throws -> (endToEnd: Double, durable: Double)? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-dispatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let writer = try JournalWriter(path: dir.appendingPathComponent("journal.sqlite").path)
        let runID = "bench"
        let definition = definition(jobs: count, runID: runID)
        try writer.submit([
            .runStarted(RunInfo(runID: runID, matrixName: "bench", matrixPath: "-", seed: 0, startedAt: Date())),
            .jobsPlanned(runID: runID, jobs: definition.jobs.map {
                PlannedJob(jobID: $0.id, scenarioID: "noop", scenarioTitle: "noop", configuration: "n=\($0.seed)",
                           configurationJSON: "{}", registry: "noop")
            }),
        ])
        try writer.flushSync()
        let planned = writer.statistics
        let token = Hex.encode(secureRandomBytes(16))
        var settings = CoordinatorSettings(host: "127.0.0.1", port: 0, token: Array(token.utf8))
        let viewer = live ? try await LiveViewer.start(runID: runID, jobs: count, journalPath: dir.appendingPathComponent("journal.sqlite").path) : nil
        settings.observer = viewer?.server.feed
        let server = try await CoordinatorServer.start(definition: definition, settings: settings) { records in
            if journal { try? writer.submit(records) }
        }
        let started = ContinuousClock.now
        let selfBefore = cpuSeconds(children: false)
        let childrenBefore = cpuSeconds(children: true)
        let workers = try LocalWorkers(count: 2, slots: 64, port: server.port, token: token,
                                       launch: .flowmatrixWorker(registries: ["noop"]))
        let final = await server.waitForCompletion()
        let elapsed = ContinuousClock.now - started
        try writer.flushSync()
        let journalDone = ContinuousClock.now - started
        await server.shutdown(grace: .seconds(5))
        await workers.waitForExit(grace: .seconds(5))
        let stats = writer.statistics
        try writer.close()
        if let viewer { await viewer.stop() }
        let coordinatorCPU = cpuSeconds(children: false) - selfBefore
        let workersCPU = cpuSeconds(children: true) - childrenBefore
        let rate = Double(final.done) / (elapsed.milliseconds / 1000)
        let durable = Double(final.done) / (journalDone.milliseconds / 1000)
        print(String(format: "  %d no-op jobs (3 steps), 2 worker processes x 64 slots, journal %@%@: %.2f s, %.0f jobs/s (target >= 100,000)",
                     final.done, journal ? "on" : "off", live ? ", live view with 1 SSE client" : "", elapsed.milliseconds / 1000, rate))
        print(String(format: "  CPU: coordinator process %.2f s (%.1f µs per job%@), 2 worker processes %.2f s (%.1f µs per job)",
                     coordinatorCPU, coordinatorCPU * 1e6 / Double(final.done), journal ? ", journal writer included" : "",
                     workersCPU, workersCPU * 1e6 / Double(final.done)))
        guard journal else { return nil }
        print(String(format: "  ... with every journal record durable: %.0f jobs/s; %d records in %d transactions (group commit); journal writer thread %.1f µs per job",
                     durable, stats.recordsApplied - planned.recordsApplied, stats.transactionsCommitted - planned.transactionsCommitted,
                     (stats.writerCPUSeconds - planned.writerCPUSeconds) * 1e6 / Double(final.done)))
        if let pool = poolRate(tasks: min(count, 100_000)) {
            print(String(format: "  peer, same sitting: Python multiprocessing.Pool, 2 processes, imap_unordered chunksize 1: %.0f tasks/s -> %.1fx Pool",
                         pool, rate / pool))
        } else {
            print("  peer: python3 not available, no ratio printed")
        }
        return (rate, durable)
    }

    /// Python's multiprocessing.Pool with 2 worker processes dispatching no-op tasks one by one (results
    /// returned one by one, as FlowMatrix's are), measured now; nil without python3.
    static func poolRate(tasks: Int) -> Double? {
        let script = """
            import multiprocessing, time, sys
            def noop(i): return i
            if __name__ == "__main__":
                n = int(sys.argv[1])
                with multiprocessing.Pool(2) as pool:
                    list(pool.imap_unordered(noop, range(1000), chunksize=1))
                    t = time.perf_counter()
                    for _ in pool.imap_unordered(noop, range(n), chunksize=1): pass
                    print(n / (time.perf_counter() - t))
            """
        guard let (status, data) = try? ProcessFacts.runCapturing("/usr/bin/env", ["python3", "-c", script, String(tasks)]),
              status == 0
        else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func memory(jobs count: Int) {
        let before = residentBytes()
        let definition = definition(jobs: count, runID: "memory")
        let engine = CoordinatorEngine(definition: definition, now: { .zero })
        let after = residentBytes()
        let perJob = Double(after - before) / Double(count)
        print(String(format: "  %d queued jobs: coordinator RSS grew %.1f MB, %.0f bytes per job (target <= 512)",
                     count, Double(after - before) / 1e6, perJob))
        withExtendedLifetime(engine) {}
    }

    /// Simulates `jobs` with skewed durations on 4 single-slot workers through the real scheduler, ordered
    /// longest-first from history, and compares the makespan with the lower bound max(total / 4, longest job).
    static func makespan(jobs count: Int) {
        var rng = SplitMix64(seed: 42)
        // Pareto-like skew: most jobs short, a few very long.
        let durations: [Duration] = (0..<count).map { _ in
            let u = Double(rng.next() % 1_000_000 + 1) / 1_000_001
            return .milliseconds(Int64(min(100 / pow(u, 0.8), 60_000)))
        }
        let specs = durations.map { SchedulableJob(registry: "r", expectedDuration: $0) }
        var scheduler = Scheduler(jobs: specs, settings: SchedulerSettings(jobTimeout: .seconds(3600)))
        var now: Duration = .zero
        var running: [(end: Duration, worker: WorkerID, job: Assignment)] = []
        func take(_ directives: [SchedulerDirective]) {
            for case .assign(let w, let batch) in directives {
                for a in batch { running.append((now + durations[a.job], w, a)) }
            }
        }
        for w in 1...4 {
            take(scheduler.onWorkerJoined(WorkerID(UInt64(w)), name: "w\(w)", registries: ["r"], labels: [:], slots: 1, now: now))
            take(scheduler.onCredit(WorkerID(UInt64(w)), count: 1, now: now))
        }
        while let next = running.min(by: { $0.end < $1.end }) {
            running.removeAll { $0.job == next.job }
            now = next.end
            take(scheduler.onResult(next.worker, next.job, status: .passed, now: now))
            take(scheduler.onCredit(next.worker, count: 1, now: now))
        }
        let total = durations.reduce(Duration.zero, +)
        let bound = max(total / 4, durations.max() ?? .zero)
        print(String(format: "  makespan of %d skewed jobs on 4 workers: %.1f s vs lower bound %.1f s: %.2f%% over (target <= 5%%)",
                     count, now.milliseconds / 1000, bound.milliseconds / 1000, (now.milliseconds / bound.milliseconds - 1) * 100))
    }

    /// User + system CPU seconds of this process or of its reaped children.
    static func cpuSeconds(children: Bool) -> Double { ProcessFacts.cpuSeconds(children: children) }

    /// The process's resident set size.
    static func residentBytes() -> Int { ProcessFacts.residentBytes() }
}
