import FlowSpec
import Foundation
import Wire

/// Runs one assigned job to completion and reports its steps and result as protocol messages.
///
/// Transport-free: `emit` receives the messages to send (STEP per step as it completes, then RESULT), so the same
/// executor serves the networked worker and in-process tests.
public struct JobExecutor: Sendable {
    public let factories: [String: RegistryFactory]

    public init(factories: [RegistryFactory]) {
        var byName: [String: RegistryFactory] = [:]
        for f in factories { byName[f.name] = f }
        self.factories = byName
    }

    /// Runs `assignment` of `scenario`; returns the RESULT it emitted last.
    /// - Parameter deadline: when set, the caller cancels the task at the deadline (one watchdog for many jobs, see
    ///   `WorkerSession`); a run cancelled after it is reported as timed out. When nil, the runner enforces the
    ///   assignment's timeout itself.
    @discardableResult
    public func run(
        _ assignment: JobAssignment, scenario: Scenario, deadline: ContinuousClock.Instant? = nil,
        emit: @escaping @Sendable ([Message]) -> Void
    ) async -> JobResult {
        let timeout = Duration.milliseconds(Int64(clamping: assignment.timeoutMillis))
        var configuration: [String: String] = [:]
        for pair in assignment.configuration { configuration[pair.key] = pair.value }
        let context = JobContext(jobID: assignment.job, attempt: Int(assignment.attempt), configuration: configuration,
                                 seed: assignment.seed, timeout: timeout, scenario: scenario)
        func finish(_ status: Status, failure: Failure?, duration: Duration) -> JobResult {
            let result = JobResult(job: assignment.job, attempt: assignment.attempt, status: status, failure: failure,
                                   durationMicros: duration.microseconds)
            emit([.result(result)])
            return result
        }
        guard let factory = factories[assignment.registry] else {
            return finish(.errored, failure: Failure(step: 0, message: "this worker has no registry '\(assignment.registry)'"),
                          duration: .zero)
        }
        let registry: any AsyncStepRegistry
        do {
            registry = try await factory.make(context)
        } catch {
            return finish(.errored, failure: Failure(step: 0, message: "registry '\(factory.name)' could not be built: \(error)"),
                          duration: .zero)
        }
        let job = assignment.job
        let attempt = assignment.attempt
        let runner = AsyncScenarioRunner(
            registry: registry,
            settings: RunnerSettings(scenarioTimeout: deadline == nil && timeout > .zero ? timeout : nil),
            onStep: { record in
                // A cancelled step is reported after the run, once it is known whether a deadline cancelled it.
                guard record.outcome != .cancelled else { return }
                emit([.step(StepEvent(job: job, attempt: attempt, index: UInt32(record.index), status: Status(record.outcome),
                                      durationMicros: record.duration.microseconds,
                                      message: StepText.encode(message: record.message, interruptions: record.interruptions)))])
            }
        )
        var result = await runner.run(scenario)
        if case .cancelled = result.outcome {
            if let deadline, ContinuousClock.now >= deadline {
                result = AsyncScenarioRunner.timedOut(result, scenario: scenario,
                                                      message: "the job exceeded its timeout of \(timeout.secondsText) during this step")
            }
            if let last = result.steps.last {
                emit([.step(StepEvent(job: job, attempt: attempt, index: UInt32(last.index), status: Status(last.outcome),
                                      durationMicros: last.duration.microseconds, message: last.message ?? ""))])
            }
        }
        switch result.outcome {
        case .passed:
            return finish(.passed, failure: nil, duration: result.duration)
        case .failed(let failure):
            return finish(Status(failure.outcome), failure: Failure(step: UInt32(failure.stepIndex), message: failure.message),
                          duration: result.duration)
        case .cancelled:
            let index = UInt32(max(0, result.steps.count - 1))
            return finish(.cancelled, failure: Failure(step: index, message: "cancelled"), duration: result.duration)
        }
    }
}

extension Status {
    init(_ outcome: StepOutcome) {
        switch outcome {
        case .passed: self = .passed
        case .failed: self = .failed
        case .timedOut: self = .timedOut
        case .cancelled: self = .cancelled
        }
    }
}

extension Duration {
    /// Whole microseconds, never negative.
    var microseconds: UInt64 {
        let (s, atto) = components
        return UInt64(max(0, s)) * 1_000_000 + UInt64(max(0, atto)) / 1_000_000_000_000
    }
}
