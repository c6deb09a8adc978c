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
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `flowmatrix bench command`: command jobs of `true`, one per configuration, on 2 local worker processes (journal
/// on, as in a run), beside `xargs -P2 -n1 true` and GNU `parallel -j2 true` over the same count in the same sitting;
/// then what a job costs beyond forking and exec'ing its process (CPU beyond xargs', which does little else).
enum CommandBench {
    static let suite = BenchSuite(name: "command", overview: "command jobs of `true`/s on 2 local workers vs xargs -P2 and GNU parallel") { quick in
        let count = quick ? 200 : 3_000
        print(String(format: "  bare posix_spawn + waitpid of /bin/true, one at a time, in this process: %.0f µs each",
                     spawnSeconds(count: quick ? 100 : 1_000) * 1e6))
        print("  \(count) jobs per measurement; each round runs the peers and FlowMatrix back to back (the machine is shared)")
        for round in 1...(quick ? 1 : 3) {
            let xargs = peer("seq \(count) | xargs -P2 -n1 true", count: count)
            let parallel = peer("seq \(count) | parallel -j2 true", count: count)
            var best = 0.0
            for slots in [1, 2] {
                let run = try await throughput(jobs: count, slots: slots)
                best = max(best, run.rate)
                var line = String(format: "  round %d: FlowMatrix, 2 workers x %d slot(s): %.0f jobs/s; CPU per job: coordinator %.0f µs, workers + commands %.0f µs",
                                  round, slots, run.rate, run.coordinatorCPU * 1e6, run.workersCPU * 1e6)
                if let xargs {
                    // What a job costs beyond forking and exec'ing `true`, which xargs does with almost nothing else.
                    line += String(format: "; beyond fork/exec (minus xargs' CPU per job): %.0f µs CPU, %+.0f µs wall per lane",
                                   (run.coordinatorCPU + run.workersCPU - xargs.cpu) * 1e6, (2 / run.rate - 2 / xargs.rate) * 1e6)
                }
                print(line)
            }
            if let xargs {
                print(String(format: "  round %d: xargs -P2 -n1 true: %.0f jobs/s, %.0f µs CPU per job -> FlowMatrix %.2fx xargs (target >= 0.8x)",
                             round, xargs.rate, xargs.cpu * 1e6, best / xargs.rate))
            } else {
                print("  peer: xargs not available")
            }
            if let parallel {
                print(String(format: "  round %d: GNU parallel -j2 true: %.0f jobs/s, %.0f µs CPU per job -> FlowMatrix %.1fx parallel",
                             round, parallel.rate, parallel.cpu * 1e6, best / parallel.rate))
            } else {
                print("  peer: GNU parallel not installed (scripts/install-deps.sh bench)")
            }
        }
    }

    /// Jobs per second and CPU seconds per job (the pipeline and everything it ran) of a shell pipeline running
    /// `count` commands; nil when it fails (the tool is missing).
    static func peer(_ pipeline: String, count: Int) -> (rate: Double, cpu: Double)? {
        let cpuBefore = ProcessFacts.cpuSeconds(children: true)
        let started = ContinuousClock.now
        guard let (status, _) = try? ProcessFacts.runCapturing("/bin/sh", ["-c", pipeline]), status == 0 else { return nil }
        let seconds = (ContinuousClock.now - started).milliseconds / 1000
        return (Double(count) / seconds, (ProcessFacts.cpuSeconds(children: true) - cpuBefore) / Double(count))
    }

    /// Seconds per `posix_spawn` + `waitpid` of `/bin/true`, serially: the floor any runner pays per job.
    static func spawnSeconds(count: Int) -> Double {
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]
        defer { free(argv[0]) }
        let started = ContinuousClock.now
        for _ in 0..<count {
            var pid: pid_t = 0
            guard posix_spawn(&pid, "/bin/true", nil, nil, argv, environment) == 0 else { return 0 }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        return (ContinuousClock.now - started).milliseconds / 1000 / Double(count)
    }

    /// `count` command jobs of `true` (axis `i`, one value per job) through a coordinator (journal on) and 2 local
    /// workers with `slots` each; first assignment to last result.
    static func throughput(jobs count: Int, slots: Int) async throws
        -> (done: Int, rate: Double, coordinatorCPU: Double, workersCPU: Double)
    {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-bench-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = CommandTemplate(argv: ["true"]).scenario(item: nil)
        let body = Array(JobIdentity.canonicalJSON(scenario).utf8)
        let hash = Bytes32(SHA256.hash(body)) ?? .zero
        let jobs = (0..<count).map { i in
            let configuration = Configuration(["i": String(i)])
            return RunJob(id: JobIdentity.id(scenario: scenario, configuration: configuration, registry: CommandTemplate.registry),
                          scenarioID: scenario.id, scenarioTitle: scenario.title, scenarioHash: hash,
                          stepKeys: scenario.steps.map(\.key), registry: CommandTemplate.registry, requiredLabels: [:],
                          configuration: [ConfigurationPair("i", String(i))], seed: UInt64(i), expectedDuration: .zero)
        }
        let definition = RunDefinition(runID: "command", jobs: jobs, scenarioBodies: [hash: body],
                                       scheduler: SchedulerSettings(jobTimeout: .seconds(60)))
        let writer = try JournalWriter(path: dir.appendingPathComponent("journal.sqlite").path)
        try writer.submit([
            .runStarted(RunInfo(runID: "command", matrixName: "command", matrixPath: "-", seed: 0, startedAt: Date())),
            .jobsPlanned(runID: "command", jobs: jobs.map {
                PlannedJob(jobID: $0.id, scenarioID: $0.scenarioID, scenarioTitle: $0.scenarioTitle, configuration: "i=\($0.seed)",
                           configurationJSON: "{}", registry: CommandTemplate.registry)
            }),
        ])
        try writer.flushSync()
        let token = Hex.encode(secureRandomBytes(16))
        let server = try await CoordinatorServer.start(
            definition: definition, settings: CoordinatorSettings(host: "127.0.0.1", port: 0, token: Array(token.utf8))
        ) { records in try? writer.submit(records) }
        let selfBefore = ProcessFacts.cpuSeconds(children: false)
        let childrenBefore = ProcessFacts.cpuSeconds(children: true)
        let workers = try LocalWorkers(count: 2, slots: slots, port: server.port, token: token,
                                       launch: .flowmatrixWorker(registries: [CommandTemplate.registry]), quiet: true)
        // Timed from the first assignment, as `bench makespan` does: worker start-up is not per job.
        try await waitForFirstAssignment(server)
        let started = ContinuousClock.now
        let final = await server.waitForCompletion()
        let elapsed = ContinuousClock.now - started
        await server.shutdown(grace: .seconds(5))
        await workers.waitForExit(grace: .seconds(5))
        try writer.close()
        let done = Double(max(final.done, 1))
        return (final.done, Double(final.done) / (elapsed.milliseconds / 1000),
                (ProcessFacts.cpuSeconds(children: false) - selfBefore) / done,
                (ProcessFacts.cpuSeconds(children: true) - childrenBefore) / done)
    }

    private static func waitForFirstAssignment(_ server: CoordinatorServer) async throws {
        while server.progress.attempts == 0 { try await Task.sleep(for: .microseconds(200)) }
    }
}
