import FlowSpec
import Foundation
import Worker

// A worker hosting your own registry: the whole program. The "app" here is a counter screen's pre-UI model; a real
// worker drives your app's model (headless) or a device, the same way.

/// The app's model: one screen with a counter and a label.
actor CounterModel {
    private(set) var count = 0
    private(set) var screen = "none"
    let signal = ChangeSignal()

    func open(_ name: String) { screen = name; signal.notify() }
    func increment() { count += 1; signal.notify() }
}

/// The registry: one `verb:target` per action the scenarios use; anything else is `unknownStep`.
struct CounterRegistry: AsyncStepRegistry {
    let model = CounterModel()
    let clock = VirtualClock()
    var waitClock: any WaitClock { clock }

    func execute(_ step: Step) async throws {
        switch (step.verb, step.target) {
        case (.open, "counter"):
            await model.open("counter")
        case (.tap, "counter.increment"):
            await model.increment()
        case (.assert, "counter.value"):
            let assertion = try StepArguments.assertion(step).get()
            let expected = assertion.value(of: "text") ?? "0"
            try await ConditionWaiter(clock: clock, signal: model.signal)
                .wait(for: "counter.value to read \(expected)", timeout: assertion.timeout ?? .seconds(2)) {
                    await String(model.count) == expected
                }
        default:
            throw StepError.unknownStep(step)
        }
    }
}

/// What the registry understands, published by `example-worker --list-registries --json`: `flowmatrix validate
/// --worker-executable` checks scenarios against it, and a run says the counter ignores the `locale` axis.
let manifest = RegistryManifest(
    name: "counter",
    steps: [.init(verb: "open", targets: ["counter"]), .init(verb: "tap", targets: ["counter.increment"]),
            .init(verb: "assert", targets: ["counter.value"])],
    assertClauses: [.init(targets: ["counter.value"], clauses: ["text="])],
    axes: [])

exit(await WorkerMain.run(registries: [RegistryFactory(name: "counter", manifest: manifest) { _ in CounterRegistry() }]))
