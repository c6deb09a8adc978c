import FlowMatrixCLI
import FlowMatrixTestKit
import FlowSpec
import FlowVocabulary
import Foundation
import Synchronization
import Wire
import Worker

/// `flowmatrix bench worker`: the CPU cost of one no-op job on a worker's own path (registry, runner, its reports as
/// frames), in process and without sockets, so it can be profiled apart from the coordinator.
enum WorkerBench {
    static let suite = BenchSuite(name: "worker", overview: "CPU µs per no-op 3-step job through JobExecutor, in process") { quick in
        await executor(jobs: quick ? 2_000 : 100_000, rounds: quick ? 1 : 5)
    }

    /// Runs `rounds` rounds of `count` jobs one at a time and prints the best and the median round (the machine
    /// may be shared: the best round is the cost, the median shows the noise).
    static func executor(jobs count: Int, rounds: Int) async {
        let executor = JobExecutor(factories: [NoOpRegistry.factory])
        // Reports are encoded as a protocol version 2 runner encodes them (one RESULT_STEPS frame per short job),
        // into one reused buffer.
        let reports = EncodedReports()
        let ids = (0..<count).map(DispatchBench.jobID)
        var perJob: [Double] = []
        var rates: [Double] = []
        for _ in 0..<rounds {
            let cpuBefore = DispatchBench.cpuSeconds(children: false)
            let started = ContinuousClock.now
            for i in 0..<count {
                let job = JobAssignment(job: ids[i], attempt: 1, scenarioHash: .zero, registry: NoOpRegistry.name,
                                        configuration: [ConfigurationPair("n", String(i))], timeoutMillis: 60_000, seed: UInt64(i))
                // An upload closure, as a worker passes: evidence is captured in case the attempt fails.
                await executor.run(job, scenario: DispatchBench.scenario, deadline: ContinuousClock.now + .seconds(60),
                                   upload: { _ in }, reports: reports)
            }
            let elapsed = ContinuousClock.now - started
            perJob.append((DispatchBench.cpuSeconds(children: false) - cpuBefore) * 1e6 / Double(count))
            rates.append(Double(count) / (elapsed.milliseconds / 1000))
        }
        perJob.sort()
        rates.sort()
        print(String(format: "  %d no-op jobs (3 steps) one at a time, %d rounds: CPU %.2f µs per job (median %.2f), %.0f jobs/s (best), %d bytes emitted",
                     count, rounds, perJob[0], perJob[perJob.count / 2], rates[rates.count - 1], reports.total))
    }
}

/// A runner's reports for the bench: encoded, counted and dropped.
private final class EncodedReports: JobReports {
    private let state = Mutex((frames: ReportFrames(protocolVersion: ProtocolVersion.current), total: 0))

    var total: Int { state.withLock { $0.total + $0.frames.bytes.count } }

    func step(_ event: StepEvent) { state.withLock { $0.frames.step(event) } }

    func result(_ result: JobResult) {
        state.withLock { s in
            s.frames.result(result)
            if s.frames.bytes.count > 1 << 16 {
                s.total += s.frames.bytes.count
                s.frames.removeBytes()
            }
        }
    }
}
