import Artifacts
import FlowSpec
import Foundation
import Worker

/// A registry for end-to-end tests and benchmarks whose steps do what their target says.
///
/// Any verb works; the target picks the behaviour:
/// - `pass` (or anything not listed): succeeds at once.
/// - `fail`: fails the step.
/// - `flaky`: fails on the job's first attempt, passes on every retry (fail-then-pass → flaky).
/// - `infra`: the machinery under the registry fails (`StepError.infrastructure`) on every attempt;
///   `infra-once` only on the first attempt.
/// - `chance`: fails with probability `arg` percent (default 50), drawn from the attempt's seed: the same job and
///   retry fail or pass the same way on every rerun and resume, and a retry (another seed) can turn out otherwise.
/// - `hang`: waits for a change that never comes (cancellable), so the job's timeout stops it.
/// - `crash`: ends the worker process at once (`_exit(3)`), as a native crash would.
/// - `crash-once`: crashes on the first attempt only.
/// - `work`: takes `arg` milliseconds of simulated time on a virtual clock (no wall time).
/// - `busy`: takes `arg` milliseconds of real time, like a step driving a slow device (so tests can act mid-run).
/// - `unwired`: throws `unknownStep`, as a registry does for machinery it lacks.
/// - `fail-with`: fails when the job's configuration holds every `axis=value` of `arg` (`locale=ar+network=edge`): a
///   planted failure-inducing combination. `flaky-with` does so on the first attempt only (a retry passes).
/// - `attach`: attaches an artifact to the step through `ArtifactSink.current`; `arg` is `<name>:<bytes>`, the
///   content `TestRegistry.artifactBytes(name:count:)` (deterministic, incompressible).
/// - `fail-in`: fails when the registry hosting the step is named in `arg` (`test-ui`, `test+test-ui`): a renderer
///   defect planted in one registry (`TestRegistry.uiFactory` hosts the same steps as `test-ui`).
/// - `attach-stored`: attaches `<count>` distinct artifacts of `<MiB>` each, stored without deflate (level 0), for
///   the ingest benchmark; `arg` is `<count>:<MiB>`.
public struct TestRegistry: AsyncStepRegistry {
    public static let name = "test"
    public let attempt: Int
    public let jobID: String
    /// The attempt's seed (see `chance`).
    public let seed: UInt64
    /// The job's configuration (see `fail-with`).
    public let configuration: [String: String]
    /// The name it is hosted under (see `fail-in`).
    public var registryName = TestRegistry.name
    private let clock = VirtualClock()

    public init(attempt: Int, jobID: String = "", seed: UInt64 = 0, configuration: [String: String] = [:]) {
        self.attempt = attempt
        self.jobID = jobID
        self.seed = seed
        self.configuration = configuration
    }

    /// Whether `configuration` holds every `axis=value` of `combination` (`locale=ar+network=edge`).
    public static func holds(_ configuration: [String: String], _ combination: String) -> Bool {
        combination.split(separator: "+").allSatisfy { part in
            let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
            return kv.count == 2 && configuration[kv[0]] == kv[1]
        }
    }

    /// Whether a `chance:<percent>` step fails for `seed`: one SplitMix64 draw, compared with the percentage.
    public static func chanceFails(seed: UInt64, percent: Int) -> Bool {
        var z = seed &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % 100) < percent
    }

    public var waitClock: any WaitClock { clock }

    public func execute(_ step: Step) async throws {
        switch step.target {
        case "fail":
            throw StepError.assertionFailed(step.arg ?? "the test registry was told to fail")
        case "flaky":
            if attempt == 1 { throw StepError.failed("flaky: fails on the first attempt") }
        case "infra":
            throw StepError.infrastructure("the test registry's device went away")
        case "infra-once":
            if attempt == 1 { throw StepError.infrastructure("the test registry's device went away once") }
        case "chance":
            let percent = Int(step.arg ?? "") ?? 50
            if Self.chanceFails(seed: seed, percent: percent) {
                throw StepError.failed("chance: failed with probability \(percent) % for this attempt's seed")
            }
        case "hang":
            let signal = ChangeSignal()
            await signal.waitForChange(after: signal.generation)
            try Task.checkCancellation()
        case "crash":
            FileHandle.standardError.write(Data("test registry: crashing the worker on purpose\n".utf8))
            _exit(3)
        case "crash-once":
            if attempt == 1 { _exit(3) }
        case "work":
            let ms = Int64(step.arg ?? "") ?? 10
            await clock.advance(by: .milliseconds(ms))
        case "busy":
            // Simulated device work that really takes time; it is the work, not a wait for a condition.
            try await Task.sleep(for: .milliseconds(Int64(step.arg ?? "") ?? 100))
        case "gate":
            // Holds the job until the file named by `arg` exists, after marking `arg.waiting-<job>`: a test knows
            // this job is mid-run when the marker appears, and releases it by creating the file. A polled condition
            // (a file another process creates), bounded by the job's own timeout through cancellation.
            let path = step.arg ?? ""
            _ = FileManager.default.createFile(atPath: "\(path).waiting-\(jobID)", contents: nil)
            while !FileManager.default.fileExists(atPath: path) {
                try await Task.sleep(for: .milliseconds(20))
            }
        case "attach":
            let parts = (step.arg ?? "blob.bin:1024").split(separator: ":")
            let name = parts.first.map(String.init) ?? "blob.bin"
            let count = parts.count > 1 ? Int(parts[1]) ?? 1024 : 1024
            _ = try ArtifactSink.current?.attach(name: name, mediaType: "application/octet-stream",
                                                 bytes: Self.artifactBytes(name: name, count: count))
        case "attach-stored":
            let parts = (step.arg ?? "1:1").split(separator: ":").compactMap { Int($0) }
            let count = parts.first ?? 1
            let mebibytes = parts.count > 1 ? parts[1] : 1
            var bytes = Self.artifactBytes(name: "stored", count: mebibytes << 20)
            for i in 0..<count {
                // A distinct first block per artifact and job, so the store cannot deduplicate them.
                let salt = Array("\(jobID)/\(attempt)/\(i)".utf8)
                for (k, b) in salt.enumerated() where k < bytes.count { bytes[k] = b }
                _ = try ArtifactSink.current?.attach(name: "stored-\(i).bin", mediaType: "application/octet-stream",
                                                     bytes: bytes, level: 0)
            }
        case "unwired":
            throw StepError.unknownStep(step)
        case "fail-in" where (step.arg ?? "").split(separator: "+").contains(Substring(registryName)):
            throw StepError.assertionFailed("fails in registry \(registryName)")
        case "fail-with" where Self.holds(configuration, step.arg ?? ""):
            throw StepError.assertionFailed("fails with \(step.arg ?? "")")
        case "flaky-with" where attempt == 1 && Self.holds(configuration, step.arg ?? ""):
            throw StepError.failed("fails with \(step.arg ?? "") on the first attempt")
        default:
            break
        }
    }

    /// Deterministic pseudo-random bytes for an artifact name (xorshift; incompressible, so size survives gzip).
    public static func artifactBytes(name: String, count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for b in name.utf8 { state = (state ^ UInt64(b)) &* 0x100_0000_01B3 }
        var out = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out[i] = UInt8(truncatingIfNeeded: state)
        }
        return out
    }

    /// A second renderer with the same vocabulary: the `test` registry hosted as `test-ui` (registry-parity tests).
    public static let uiName = "test-ui"
    public static let uiFactory = RegistryFactory(name: uiName) { context in
        var registry = TestRegistry(attempt: context.attempt, jobID: context.jobID, seed: context.seed,
                                    configuration: context.configuration)
        registry.registryName = uiName
        return registry
    }

    /// The factory a worker hosts.
    public static let factory = RegistryFactory(name: name) { context in
        TestRegistry(attempt: context.attempt, jobID: context.jobID, seed: context.seed, configuration: context.configuration)
    }
}
