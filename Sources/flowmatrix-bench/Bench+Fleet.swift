import FlowMatrixCLI
import Foundation
import Synchronization
import UVTransport
import Wire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// `flowmatrix bench fleet`: a fleet of N two-slot workers with 4 s jobs (± 25 %) against a real `flowmatrix serve`
/// process, over real sockets and the real protocol. The fake workers authenticate, grant credit and heartbeat as the
/// reference worker does, and all live on one libuv loop (a connection each, no thread each). Per N it prints jobs/s
/// against the ideal (N × 2 slots / 4 s), the coordinator's CPU per job, slot refill gaps (a RESULT that leaves a
/// slot idle to the worker's next ASSIGN), the time to connect all N, and workers dropped.
enum FleetBench {
    static let suite = BenchSuite(
        name: "fleet", overview: "N two-slot fake workers (4 s jobs) against a serve process: jobs/s, CPU/job, refill gaps",
        missing: { nil }
    ) { quick in
        let sizes = quick ? [20] : (requestedSizes.withLock { $0 } ?? defaultSizes)
        print("  fleet size | jobs/s (ideal)      | coord. CPU/job | coord. CPU | fleet CPU | refill p50 / p99  | connect all | dropped")
        for n in sizes {
            let figures = try await run(Plan(workers: n, quick: quick))
            print(figures.line)
        }
    }

    static let defaultSizes = [100, 1_000, 2_000, 5_000, 10_000]
    /// `--workers 100,1000`: the fleet sizes to run (set by the bench command before the suite runs).
    static let requestedSizes = Mutex<[Int]?>(nil)
    static let token = Array("fleet-bench-token-0123456789abcdef".utf8)

    /// One fleet size's workload.
    struct Plan {
        var workers: Int
        var slots = 2
        /// The mean job length (jobs take it ± 25 %).
        var jobSeconds: Double
        /// Measured after all workers connected and this warm-up passed, for `window` seconds.
        var warmUp: Double
        var window: Double
        /// Jobs per slot: enough that the queue lasts past the window even when connecting is slow.
        var rounds: Int

        init(workers: Int, quick: Bool) {
            self.workers = workers
            jobSeconds = quick ? 0.2 : 4
            warmUp = quick ? 0.4 : 4
            window = quick ? 1 : 10
            rounds = quick ? 12 : 6
        }

        var jobs: Int { workers * slots * rounds }
        var idealRate: Double { Double(workers * slots) / jobSeconds }
    }

    struct Figures {
        var plan: Plan
        var rate: Double
        var cpuPerJob: Double
        var cpuShare: Double
        /// The fake fleet's own CPU (this process) over the window, per second.
        var fleetShare: Double
        var refill: (p50: Double, p99: Double)?
        var connectSeconds: Double?
        var connected: Int
        var dropped: Int

        var line: String {
            let connect = connectSeconds.map { String(format: "%.2f s", $0) } ?? "\(connected) of \(plan.workers) in 60 s"
            let refillText = refill.map { String(format: "%.1f / %.1f ms", $0.p50 * 1000, $0.p99 * 1000) } ?? "none"
            return String(format: "  %10d | %7.0f (%6.0f) %3.0f%% | %10.1f µs | %8.0f%% | %8.0f%% | %-17@ | %11@ | %d",
                          plan.workers, rate, plan.idealRate, rate / plan.idealRate * 100, cpuPerJob * 1e6,
                          cpuShare * 100, fleetShare * 100, refillText, connect, dropped)
        }
    }

    /// Runs one fleet size: a serve process, the fleet, the measured window; kills both after.
    static func run(_ plan: Plan) async throws -> Figures {
        // The fleet's connections are this process's descriptors too.
        let limit = DescriptorLimit.raiseSoftLimitToHard() ?? 0
        guard limit > UInt64(plan.workers + 64) else {
            throw CommandFailure("bench fleet needs \(plan.workers + 64) open files for \(plan.workers) workers; the "
                + "hard limit here is \(limit) (raise it with ulimit -Hn)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try writeRun(plan, in: dir)
        let output = dir.appendingPathComponent("serve.out")
        let serve = try ProcessFacts.start(
            ProcessFacts.flowmatrix, ["serve", "m.json", "--listen", "127.0.0.1:0", "--token-file", "token"], in: dir,
            output: output)
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        let port = try await FloodBench.boundPort(saidIn: output, by: serve, within: .seconds(180))
        let fleet = FakeFleet(plan: plan, port: port)
        defer { fleet.stop() }
        let started = ContinuousClock.now
        fleet.start()
        let connectSeconds = try await fleet.waitUntilConnected(within: .seconds(60))
            .map { ($0 - started).seconds }
        // Measurement intervals, not waits for a condition: the fleet runs for a fixed time before and during the window.
        try await Task.sleep(for: .seconds(plan.warmUp))
        let cpuBefore = ProcessFacts.cpuSeconds(serve.processIdentifier)
        let fleetCPUBefore = ProcessFacts.cpuSeconds(children: false)
        let resultsBefore = fleet.beginWindow()
        let windowStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(plan.window))
        let window = fleet.endWindow()
        let elapsed = (ContinuousClock.now - windowStart).seconds
        let cpu = ProcessFacts.cpuSeconds(serve.processIdentifier) - cpuBefore
        let fleetCPU = ProcessFacts.cpuSeconds(children: false) - fleetCPUBefore
        let done = window.results - resultsBefore
        kill(serve.processIdentifier, SIGKILL)
        let gaps = window.gaps.sorted()
        return Figures(
            plan: plan, rate: Double(done) / elapsed, cpuPerJob: done > 0 ? cpu / Double(done) : 0, cpuShare: cpu / elapsed,
            fleetShare: fleetCPU / elapsed,
            refill: gaps.isEmpty ? nil : (gaps[gaps.count / 2], gaps[min(gaps.count - 1, gaps.count * 99 / 100)]),
            connectSeconds: connectSeconds, connected: window.connected,
            dropped: plan.workers - window.connected + window.dropped)
    }

    /// The run: `plan.jobs` jobs of one one-step scenario (the fake workers decide how long each takes).
    static func writeRun(_ plan: Plan, in dir: URL) throws {
        let scenario = #"{"id": "work", "title": "work", "steps": [{"verb": "tap", "target": "busy", "arg": "1"}]}"#
        try Data(scenario.utf8).write(to: dir.appendingPathComponent("corpus/work.json"))
        let columns = 100
        let rows = (plan.jobs + columns - 1) / columns
        let a = (0..<columns).map { "\"\($0)\"" }.joined(separator: ", ")
        let b = (0..<rows).map { "\"\($0)\"" }.joined(separator: ", ")
        let matrix = #"{"name": "fleet", "corpus": "corpus", "registry": "test", "policy": {"timeout": 60}, "#
            + #""axes": {"a": [\#(a)], "b": [\#(b)]}}"#
        try Data(matrix.utf8).write(to: dir.appendingPathComponent("m.json"))
        try Data(token).write(to: dir.appendingPathComponent("token"))
        chmod(dir.appendingPathComponent("token").path, 0o600)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
