import FlowVocabulary

/// Timeouts of a scenario run. Both are wall-clock watchdogs against a registry that hangs; waits inside a
/// step run on the registry's own clock.
public struct RunnerSettings: Sendable, Hashable {
    /// The longest one step may take in wall time; nil for no limit.
    public var stepTimeout: Duration?
    /// The longest the whole scenario may take in wall time; nil for no limit.
    public var scenarioTimeout: Duration?

    public init(stepTimeout: Duration? = nil, scenarioTimeout: Duration? = nil) {
        self.stepTimeout = stepTimeout
        self.scenarioTimeout = scenarioTimeout
    }
}

/// Runs a scenario's steps in order against an `AsyncStepRegistry`, stopping at the first failure.
public struct AsyncScenarioRunner: Sendable {
    public let registry: any AsyncStepRegistry
    public let settings: RunnerSettings
    /// Called after each step with its record (a worker streams these as they happen). It runs on the runner's
    /// executor (`nonisolated(nonsending)`): calling it costs no hop, once per step of every job.
    public let onStep: (nonisolated(nonsending) @Sendable (StepRecord) async -> Void)?
    /// Called before each step with its index (a worker points its artifact sink at the step); on the runner's
    /// executor, like `onStep`.
    public let willRunStep: (nonisolated(nonsending) @Sendable (Int) async -> Void)?

    public init(
        registry: any AsyncStepRegistry, settings: RunnerSettings = RunnerSettings(),
        willRunStep: (nonisolated(nonsending) @Sendable (Int) async -> Void)? = nil,
        onStep: (nonisolated(nonsending) @Sendable (StepRecord) async -> Void)? = nil
    ) {
        self.registry = registry
        self.settings = settings
        self.willRunStep = willRunStep
        self.onStep = onStep
    }

    /// Runs `scenario`; never throws: the result carries the failure (scenario id and step index).
    nonisolated(nonsending) public func run(_ scenario: Scenario) async -> ScenarioResult {
        guard let limit = settings.scenarioTimeout else { return await runSteps(scenario) }
        // One watchdog for the whole scenario (not one per step): the steps run in a child task that the
        // watchdog cancels when the limit passes.
        let deadline = ContinuousClock.now + limit
        return await withTaskGroup(of: ScenarioResult?.self) { group in
            group.addTask { await self.runSteps(scenario) }
            group.addTask {
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return nil
                } catch {
                    return nil
                }
            }
            var result: ScenarioResult?
            while let next = await group.next() {
                if let next {
                    result = next
                    break
                }
                group.cancelAll()
            }
            group.cancelAll()
            guard var result else { return ScenarioResult(scenarioID: scenario.id, outcome: .cancelled, steps: [], duration: .zero) }
            if case .cancelled = result.outcome, !Task.isCancelled, ContinuousClock.now >= deadline {
                result = Self.timedOut(result, scenario: scenario,
                                       message: "the scenario exceeded its timeout of \(limit.secondsText) during this step")
            }
            return result
        }
    }

    /// Rewrites a result cancelled by a deadline as a timeout of the step that was running (for shells that enforce
    /// a job's deadline themselves, e.g. one watchdog for many jobs).
    public static func timedOut(_ result: ScenarioResult, scenario: Scenario, message: String) -> ScenarioResult {
        var result = result
        let index = max(0, result.steps.count - 1)
        if result.steps.isEmpty {
            let key = scenario.steps.first?.key ?? "-"
            result.steps.append(StepRecord(index: 0, key: key, outcome: .timedOut, duration: .zero, message: message))
        } else {
            result.steps[index].outcome = .timedOut
            result.steps[index].message = message
        }
        let record = result.steps[index]
        result.outcome = .failed(ScenarioFailure(scenarioID: scenario.id, stepIndex: record.index, stepKey: record.key,
                                                 outcome: .timedOut, message: message, stepError: nil))
        return result
    }

    /// Runs `scenario` and throws its failure.
    /// - Throws: `ScenarioFailure` when a step fails; `CancellationError` when cancelled.
    @discardableResult
    public func runOrThrow(_ scenario: Scenario) async throws -> ScenarioResult {
        let result = await run(scenario)
        switch result.outcome {
        case .passed: return result
        case .failed(let failure): throw failure
        case .cancelled: throw CancellationError()
        }
    }

    /// Runs the steps with one `StepRecorder` bound for the whole run (one task-local binding, not one per step).
    nonisolated(nonsending) private func runSteps(_ scenario: Scenario) async -> ScenarioResult {
        let recorder = StepRecorder()
        return await StepContext.$current.withValue(recorder) { await runSteps(scenario, recorder: recorder) }
    }

    nonisolated(nonsending) private func runSteps(_ scenario: Scenario, recorder: StepRecorder) async -> ScenarioResult {
        var records: [StepRecord] = []
        records.reserveCapacity(scenario.steps.count)
        var total: Duration = .zero
        let clock = registry.waitClock
        for (index, step) in scenario.steps.enumerated() {
            if Task.isCancelled {
                return ScenarioResult(scenarioID: scenario.id, outcome: .cancelled, steps: records, duration: total)
            }
            if let willRunStep { await willRunStep(index) }
            recorder.beginStep(index)
            let started = clock.now()
            let outcome: ExecuteOutcome
            if let stepTimeout = settings.stepTimeout {
                outcome = await Self.execute(step, on: registry, wallLimit: ContinuousClock.now + stepTimeout)
            } else {
                // The common case, inline: no watchdog task, no closure (each async call costs a frame and a hop).
                do {
                    try await registry.execute(step)
                    outcome = Task.isCancelled ? .cancelled : .passed
                } catch {
                    outcome = Self.classify(error)
                }
            }
            let duration = clock.now() - started
            total += duration
            let (interruptions, log, notes) = recorder.endStep()
            var record = StepRecord(index: index, key: step.key, outcome: .passed, duration: duration,
                                    message: notes.isEmpty ? nil : notes.joined(separator: "; "),
                                    interruptions: interruptions, log: log)
            var failure: ScenarioFailure?
            switch outcome {
            case .passed:
                break
            case .failed(let error):
                let stepError = error as? StepError
                if case .conditionTimedOut = stepError { record.outcome = .timedOut } else { record.outcome = .failed }
                record.message = stepError?.description ?? String(describing: error)
            case .wallTimeout:
                record.outcome = .timedOut
                record.message = "the step exceeded its timeout of \(settings.stepTimeout?.secondsText ?? "?")"
            case .cancelled:
                record.outcome = .cancelled
                record.message = "cancelled"
            }
            if record.outcome != .passed {
                failure = ScenarioFailure(scenarioID: scenario.id, stepIndex: index, stepKey: record.key,
                                          outcome: record.outcome, message: record.message ?? "failed",
                                          stepError: { if case .failed(let e) = outcome { return e as? StepError }; return nil }())
            }
            records.append(record)
            if let onStep { await onStep(record) }
            if record.outcome == .cancelled {
                return ScenarioResult(scenarioID: scenario.id, outcome: .cancelled, steps: records, duration: total)
            }
            if let failure {
                return ScenarioResult(scenarioID: scenario.id, outcome: .failed(failure), steps: records, duration: total)
            }
        }
        return ScenarioResult(scenarioID: scenario.id, outcome: .passed, steps: records, duration: total)
    }

    private enum ExecuteOutcome: Sendable {
        case passed
        case failed(any Error)
        case wallTimeout
        case cancelled
    }

    /// Runs one step under a wall-clock limit: the step in a child task, raced by a watchdog.
    nonisolated(nonsending) private static func execute(_ step: Step, on registry: any AsyncStepRegistry,
                                                        wallLimit: ContinuousClock.Instant) async -> ExecuteOutcome {
        // The child task inherits the task-locals (`StepContext.current`, a worker's artifact sink).
        return await withTaskGroup(of: ExecuteOutcome?.self) { group in
            group.addTask {
                do {
                    try await registry.execute(step)
                    return Task.isCancelled ? .cancelled : .passed
                } catch {
                    return classify(error)
                }
            }
            group.addTask {
                do {
                    try await Task.sleep(until: wallLimit, clock: .continuous)
                    return .wallTimeout
                } catch {
                    return nil
                }
            }
            var result: ExecuteOutcome = .cancelled
            if let first = await group.next() {
                if let first { result = first } else if let second = await group.next(), let second { result = second }
            }
            group.cancelAll()
            return result
        }
    }

    private static func classify(_ error: any Error) -> ExecuteOutcome {
        error is CancellationError ? .cancelled : .failed(error)
    }
}
