import Artifacts
import FlowSpec
import FlowVocabulary
import Foundation
import Gzip
import Synchronization
import Wire

/// Runs one assigned job to completion and reports its steps, artifacts and result as protocol messages.
///
/// Transport-free: `emit` receives the messages to send (STEP per step as it completes, then RESULT), and
/// `upload` streams the attempt's artifacts (before the RESULT, so a finished job's evidence is already stored),
/// so the same executor serves the networked worker and in-process tests.
public struct JobExecutor: Sendable {
    public let factories: [String: RegistryFactory]
    /// gzip level for artifacts (1 = fast, the default; 9 = smallest).
    public let compressionLevel: Int
    /// Whether a registry type provides evidence, by type: a failed `as? any StepEvidenceProviding` searches the
    /// runtime's conformance tables, once per job of every registry without evidence. Shared by all executors (a
    /// type's conformances never change), and static so that `JobExecutor`'s layout stays what clients compiled.
    private static let providesEvidence = ConformanceCache { $0 is any StepEvidenceProviding }
    /// The same for `NamedResultsProviding` (command jobs).
    private static let providesNamedResults = ConformanceCache { $0 is any NamedResultsProviding }

    public init(factories: [RegistryFactory], compressionLevel: Int = GzipCodec.defaultLevel) {
        var byName: [String: RegistryFactory] = [:]
        for f in factories { byName[f.name] = f }
        self.factories = byName
        self.compressionLevel = compressionLevel
    }

    /// Runs `assignment` of `scenario`, handing each report to `emit` as a one-message array; returns the RESULT
    /// it emitted last. See ``run(_:scenario:deadline:upload:reports:)``.
    @discardableResult
    public func run(
        _ assignment: JobAssignment, scenario: Scenario, deadline: ContinuousClock.Instant? = nil,
        upload: (@Sendable ([CompressedArtifact]) async -> Void)? = nil,
        emit: @escaping @Sendable ([Message]) -> Void
    ) async -> JobResult {
        await run(assignment, scenario: scenario, deadline: deadline, upload: upload, reports: MessageReports(emit: emit))
    }

    /// Runs `assignment` of `scenario`; returns the RESULT it reported last.
    /// - Parameters:
    ///   - deadline: when set, the caller cancels the task at the deadline (one watchdog for many jobs, see
    ///     `WorkerSession`); a run cancelled after it is reported as timed out. When nil, the runner enforces the
    ///     assignment's timeout itself.
    ///   - upload: streams artifacts and returns when the coordinator stored them; nil drops them.
    ///   - reports: receives a STEP event per step as it completes, then the RESULT.
    @discardableResult
    public func run<Reports: JobReports>(
        _ assignment: JobAssignment, scenario: Scenario, deadline: ContinuousClock.Instant? = nil,
        upload: (@Sendable ([CompressedArtifact]) async -> Void)? = nil,
        reports: Reports
    ) async -> JobResult {
        let timeout = Duration.milliseconds(Int64(clamping: assignment.timeoutMillis))
        let job = assignment.job
        let attempt = assignment.attempt
        let capture = upload != nil && assignment.keep != .none
        let sink = ArtifactSink(level: compressionLevel)

        func finish(_ status: StepOutcome, failure: Failure?, duration: Duration, evidence: EvidenceLog? = nil,
                    records: [StepRecord] = []) async -> JobResult {
            if let upload, capture, assignment.keep.keepsArtifacts(of: status, attempt: Int(attempt)) {
                let artifacts = EvidenceLog.compress(records, steps: scenario.steps, attachments: evidence, into: sink)
                if !artifacts.isEmpty { await upload(artifacts) }
            }
            let result = JobResult(job: job, attempt: attempt, status: status, failure: failure,
                                   durationMicros: duration.microseconds)
            reports.result(result)
            return result
        }
        let registry: any AsyncStepRegistry
        switch await makeRegistry(for: assignment, scenario: scenario, timeout: timeout) {
        case .success(let made): registry = made
        case .failure(let unavailable):
            return await finish(.errored, failure: Failure(step: 0, message: unavailable.message), duration: .zero)
        }
        // Evidence a registry captures after each step, kept raw until the outcome says whether it is sent.
        let evidence = capture && Self.providesEvidence.check(registry)
            ? (registry as? any StepEvidenceProviding).map { EvidenceLog(provider: $0) } : nil
        let steps = scenario.steps
        @Sendable func stepEvent(_ record: StepRecord) -> StepEvent {
            StepEvent(job: job, attempt: attempt, index: UInt32(record.index), status: record.outcome,
                      durationMicros: record.duration.microseconds, message: record.message ?? "",
                      interruptions: record.interruptions)
        }
        let runner = AsyncScenarioRunner(
            registry: registry,
            settings: RunnerSettings(scenarioTimeout: deadline == nil && timeout > .zero ? timeout : nil),
            willRunStep: { index in sink.beginStep(index) },
            onStep: { record in
                if let evidence { await evidence.capture(afterStep: record.index, step: steps[record.index]) }
                // A cancelled step is reported after the run, once it is known whether a deadline cancelled it.
                guard record.outcome != .cancelled else { return }
                reports.step(stepEvent(record))
            }
        )
        var result = await ArtifactSink.$current.withValue(sink) { await runner.run(scenario) }
        // The records as the steps reported them (their logs are rendered from these if the evidence is kept).
        let records = result.steps
        // A registry whose step stands for many results (a command's tests) reports them after the declared steps.
        let named = Self.providesNamedResults.check(registry) ? registry as? any NamedResultsProviding : nil
        if let named { await Self.report(named, job: job, attempt: attempt, after: steps.count, to: reports) }
        if case .cancelled = result.outcome {
            if let deadline, ContinuousClock.now >= deadline {
                result = AsyncScenarioRunner.timedOut(result, scenario: scenario,
                                                      message: "the job exceeded its timeout of \(timeout.secondsText) during this step")
            }
            if let last = result.steps.last { reports.step(stepEvent(last)) }
        }
        switch result.outcome {
        case .passed:
            return await finish(.passed, failure: nil, duration: result.duration, evidence: evidence, records: records)
        case .failed(let failure):
            return await finish(Self.status(of: failure, namedResults: named != nil),
                                failure: Failure(step: UInt32(failure.stepIndex), message: failure.message),
                                duration: result.duration, evidence: evidence, records: records)
        case .cancelled:
            let index = UInt32(max(0, result.steps.count - 1))
            return await finish(.cancelled, failure: Failure(step: index, message: "cancelled"), duration: result.duration,
                                evidence: evidence, records: records)
        }
    }
}

extension JobExecutor {
    /// Why no registry runs an assignment (the attempt is `errored`).
    private struct RegistryUnavailable: Error {
        var message: String
    }

    /// The registry that runs `assignment` of `scenario`, built from its factory with the job's context.
    private func makeRegistry(for assignment: JobAssignment, scenario: Scenario, timeout: Duration) async
        -> Result<any AsyncStepRegistry, RegistryUnavailable> {
        guard let factory = factories[assignment.registry] else {
            return .failure(RegistryUnavailable(message: "this worker has no registry '\(assignment.registry)'"))
        }
        var configuration = [String: String](minimumCapacity: assignment.configuration.count)
        for pair in assignment.configuration { configuration[pair.key] = pair.value }
        let context = JobContext(jobID: assignment.job, attempt: Int(assignment.attempt), configuration: configuration,
                                 seed: assignment.seed, timeout: timeout, scenario: scenario)
        do {
            return .success(try await factory.make(context))
        } catch {
            return .failure(RegistryUnavailable(message: "registry '\(factory.name)' could not be built: \(error)"))
        }
    }

    /// Reports the results a registry's step stood for (a command's tests), numbered after the scenario's
    /// `stepCount` declared steps.
    private static func report(_ named: any NamedResultsProviding, job: String, attempt: UInt32, after stepCount: Int,
                               to reports: some JobReports) async {
        for (i, r) in await named.namedResults().enumerated() {
            reports.step(StepEvent(job: job, attempt: attempt, index: UInt32(stepCount + i), status: r.status,
                                   durationMicros: r.duration.microseconds,
                                   message: NamedStep.message(name: r.name, message: r.message ?? "")))
        }
    }

    /// The status of an attempt whose scenario failed at a step. A wait whose condition never held is a failed
    /// expectation, not a job that ran out of time: only a deadline (the job's timeout, a step watchdog) makes the
    /// attempt `timedOut`; a registry whose machinery died (`StepError.infrastructure`) makes it `lost`.
    /// - Parameter namedResults: the registry reports named results (a command job).
    private static func status(of failure: ScenarioFailure, namedResults: Bool) -> StepOutcome {
        if case .infrastructure? = failure.stepError { return .lost }
        // A command that outlived its own time limit (its process group killed) timed out too.
        return failure.outcome == .timedOut && (failure.stepError == nil || namedResults) ? .timedOut : .failed
    }
}

/// Where a running job's reports go: a worker's runner buffer, a test's message list.
public protocol JobReports: Sendable {
    /// A step finished (a cancelled step is reported once the run knows whether a deadline cancelled it).
    func step(_ event: StepEvent)
    /// The attempt's result, its last report.
    func result(_ result: JobResult)
}

/// Reports as one-message arrays to a closure (the `emit:` form of `JobExecutor.run`).
struct MessageReports: JobReports {
    let emit: @Sendable ([Message]) -> Void

    func step(_ event: StepEvent) { emit([.step(event)]) }
    func result(_ result: JobResult) { emit([.result(result)]) }
}

/// Remembers, per registry type, whether it conforms to a protocol (`StepEvidenceProviding`, `NamedResultsProviding`).
private final class ConformanceCache: Sendable {
    private let known = Mutex<[ObjectIdentifier: Bool]>([:])
    private let conforms: @Sendable (any AsyncStepRegistry) -> Bool

    init(_ conforms: @escaping @Sendable (any AsyncStepRegistry) -> Bool) { self.conforms = conforms }

    /// False only when `registry`'s type is known not to conform (then the cast can be skipped).
    func check(_ registry: any AsyncStepRegistry) -> Bool {
        let type = ObjectIdentifier(Swift.type(of: registry))
        if let provides = known.withLock({ $0[type] }) { return provides }
        let provides = conforms(registry)
        known.withLock { $0[type] = provides }
        return provides
    }
}

extension Duration {
    /// Whole microseconds, never negative.
    var microseconds: UInt64 {
        let (s, atto) = components
        return UInt64(max(0, s)) * 1_000_000 + UInt64(max(0, atto)) / 1_000_000_000_000
    }
}
