import CatalogApp
import FlowSpec
import Testing

@Suite("The headless registry")
struct RegistryTests {
    func registry() throws -> CatalogRegistry {
        try CatalogWorkerKit.makeRegistry(configuration: Corpus.baseline, seed: 1)
    }

    @Test(
        "an unwired verb:target throws unknownStep",
        arguments: [
            Step(verb: .tap, target: "catalog.teleport"), Step(verb: .open, target: "moon"),
            Step(verb: .ambient, target: "earthquake"), Step(verb: .request, target: "database.drop"),
            Step(verb: .rotate, target: "table", arg: "landscape"), Step(verb: .wait, target: "ghost"),
            Step(verb: .assert, target: "ghost.label"), Step(verb: .type, target: "catalog.title", arg: "x"),
            Step(verb: .swipe, target: "item.name", arg: "up"),
        ])
    func unknownStep(step: Step) async throws {
        let registry = try registry()
        await #expect(throws: StepError.unknownStep(step)) { try await registry.execute(step) }
    }

    @Test("the runner stops at an unwired step and names it")
    func runnerReportsUnknownStep() async throws {
        let scenario = Scenario(
            id: "typo", title: "typo",
            steps: [
                Step(verb: .open, target: "catalog"), Step(verb: .tap, target: "catalog.buy-now"),
            ])
        let result = await AsyncScenarioRunner(registry: try registry()).run(scenario)
        #expect(result.failure?.stepIndex == 1)
        #expect(result.failure?.stepError == .unknownStep(scenario.steps[1]))
    }

    @Test(
        "bad arguments are invalid, not unknown",
        arguments: [
            Step(verb: .request, target: "catalog.products", arg: "gigantic"),
            Step(verb: .assert, target: "layout", arg: "pretty"),
            Step(verb: .assert, target: "catalog.title", arg: "shiny"),
            Step(verb: .ambient, target: "push.notification", arg: "spam"),
        ])
    func invalidArguments(step: Step) async throws {
        let registry = try registry()
        do {
            try await registry.execute(step)
            Issue.record("expected an error")
        } catch let error as StepError {
            guard case .invalidArgument = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test("waits get past the permission alert through the interruption monitor, recorded on the step")
    func permissionInterruption() async throws {
        let result = try await Corpus.run("browse-catalog")
        #expect(result.passed)
        #expect(result.steps[1].key == "wait:catalog.list")
        #expect(result.steps[1].interruptions == ["notification-permission"])
        #expect(result.steps[1].log.contains { $0.contains("handled interruption 'notification-permission'") })
    }

    @Test("the rate prompt after three additions is handled by the next tap's wait")
    func rateInterruption() async throws {
        let result = try await Corpus.run("rate-prompt-after-actions")
        #expect(result.passed, "\(result.failure?.description ?? "")")
        let tap = try #require(result.steps.first { $0.key == "tap:catalog.cart-button" })
        #expect(tap.interruptions == ["rate-app-prompt"])
    }

    @Test("a returning user sees no interruption")
    func noInterruption() async throws {
        let result = try await Corpus.run("returning-user-no-prompt")
        #expect(result.passed)
        #expect(result.steps.allSatisfy { $0.interruptions.isEmpty })
    }
}
