import FlowSpec
import Testing

@Suite("Async scenario runner")
struct AsyncScenarioRunnerTests {
    @Test("steps run in order and each gets a record with index, key and outcome")
    func runsInOrder() async {
        let registry = ScriptedRegistry(["open:home": { _ in }, "tap:buy": { _ in }, "tap:pay": { _ in }])
        let result = await AsyncScenarioRunner(registry: registry).run(scenario([
            Step(verb: .open, target: "home"), Step(verb: .tap, target: "buy"), Step(verb: .tap, target: "pay"),
        ]))
        #expect(result.passed)
        #expect(result.steps.map(\.index) == [0, 1, 2])
        #expect(result.steps.map(\.key) == ["open:home", "tap:buy", "tap:pay"])
        #expect(result.steps.allSatisfy { $0.outcome == .passed })
        #expect(registry.executed.withLock { $0 } == ["open:home", "tap:buy", "tap:pay"])
    }

    @Test("the runner stops at the first failure and the failure names scenario id and step index")
    func stopsAtFirstFailure() async throws {
        let registry = ScriptedRegistry([
            "open:home": { _ in },
            "tap:buy": { _ in throw StepError.assertionFailed("button disabled") },
            "tap:pay": { _ in },
        ])
        let result = await AsyncScenarioRunner(registry: registry).run(scenario("buy-flow", [
            Step(verb: .open, target: "home"), Step(verb: .tap, target: "buy"), Step(verb: .tap, target: "pay"),
        ]))
        let failure = try #require(result.failure)
        #expect(failure.scenarioID == "buy-flow")
        #expect(failure.stepIndex == 1)
        #expect(failure.stepKey == "tap:buy")
        #expect(failure.message.contains("button disabled"))
        #expect(result.steps.count == 2)
        #expect(registry.executed.withLock { $0 } == ["open:home", "tap:buy"])
    }

    @Test("an unwired verb:target throws unknownStep and fails the scenario there")
    func unknownStep() async throws {
        let registry = ScriptedRegistry(["open:home": { _ in }])
        let steps = [Step(verb: .open, target: "home"), Step(verb: .swipe, target: "carousel", arg: "left")]
        await #expect(throws: ScenarioFailure.self) {
            try await AsyncScenarioRunner(registry: registry).runOrThrow(scenario(steps))
        }
        let result = await AsyncScenarioRunner(registry: registry).run(scenario(steps))
        let failure = try #require(result.failure)
        #expect(failure.stepError == .unknownStep(steps[1]))
        #expect(failure.stepIndex == 1)
    }

    @Test("a step that hangs is stopped by the step timeout and recorded as timed out")
    func stepTimeout() async throws {
        let registry = ScriptedRegistry(["wait:forever": { _ in
            let signal = ChangeSignal()
            await signal.waitForChange(after: signal.generation)
            try Task.checkCancellation()
        }])
        let runner = AsyncScenarioRunner(registry: registry, settings: RunnerSettings(stepTimeout: .milliseconds(50)))
        let result = await runner.run(scenario([Step(verb: .wait, target: "forever")]))
        let failure = try #require(result.failure)
        #expect(failure.outcome == .timedOut)
        #expect(failure.message.contains("step exceeded its timeout"))
    }

    @Test("the scenario timeout bounds the whole run")
    func scenarioTimeout() async throws {
        let registry = ScriptedRegistry(["open:a": { _ in }, "wait:forever": { _ in
            let signal = ChangeSignal()
            await signal.waitForChange(after: signal.generation)
        }])
        let runner = AsyncScenarioRunner(registry: registry, settings: RunnerSettings(scenarioTimeout: .milliseconds(50)))
        let result = await runner.run(scenario([Step(verb: .open, target: "a"), Step(verb: .wait, target: "forever")]))
        let failure = try #require(result.failure)
        #expect(failure.stepIndex == 1)
        #expect(failure.message.contains("scenario exceeded its timeout"))
    }

    @Test("cancelling the task stops the run and reports it cancelled")
    func cancellation() async {
        let started = ChangeSignal()
        let registry = ScriptedRegistry(["open:a": { _ in }, "wait:forever": { _ in
            started.notify()
            let signal = ChangeSignal()
            await signal.waitForChange(after: signal.generation)
            try Task.checkCancellation()
        }, "tap:never": { _ in }])
        let before = started.generation
        let task = Task {
            await AsyncScenarioRunner(registry: registry).run(scenario([
                Step(verb: .open, target: "a"), Step(verb: .wait, target: "forever"), Step(verb: .tap, target: "never"),
            ]))
        }
        await started.waitForChange(after: before)
        task.cancel()
        let result = await task.value
        #expect(result.outcome == .cancelled)
        #expect(result.steps.last?.outcome == .cancelled)
        #expect(!registry.executed.withLock { $0 }.contains("tap:never"))
    }

    @Test("step records are delivered to the observer as they complete")
    func observer() async {
        let seen = RecordCollector()
        let registry = ScriptedRegistry(["open:a": { _ in StepContext.log("opened") }, "tap:b": { _ in }])
        _ = await AsyncScenarioRunner(registry: registry, onStep: { await seen.add($0) })
            .run(scenario([Step(verb: .open, target: "a"), Step(verb: .tap, target: "b")]))
        let records = await seen.records
        #expect(records.map(\.key) == ["open:a", "tap:b"])
        #expect(records.first?.log == ["opened"])
    }
}

actor RecordCollector {
    var records: [StepRecord] = []
    func add(_ r: StepRecord) { records.append(r) }
}
