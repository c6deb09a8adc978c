import FlowSpec
import Synchronization

/// A registry whose steps are closures keyed by `verb:target`; unwired keys throw `unknownStep`.
final class ScriptedRegistry: AsyncStepRegistry {
    typealias Handler = @Sendable (Step) async throws -> Void
    let handlers: [String: Handler]
    let executed = Mutex<[String]>([])
    let clock: any WaitClock

    init(clock: any WaitClock = SystemWaitClock.shared, _ handlers: [String: Handler]) {
        self.handlers = handlers
        self.clock = clock
    }

    var waitClock: any WaitClock { clock }

    func execute(_ step: Step) async throws {
        executed.withLock { $0.append(step.key) }
        guard let handler = handlers[step.key] else { throw StepError.unknownStep(step) }
        try await handler(step)
    }
}

func scenario(_ id: String, _ steps: [Step]) -> Scenario {
    Scenario(id: id, title: id, steps: steps)
}

func scenario(_ steps: [Step]) -> Scenario { scenario("s", steps) }
