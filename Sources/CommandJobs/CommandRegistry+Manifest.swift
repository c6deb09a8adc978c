import FlowSpec
import MatrixPlan

/// What the `command` registry publishes: its one step, `request:command`, no assert clause, and every axis (each
/// one reaches the command through its placeholder, `{locale}`; whether the command uses it is its own business).
extension CommandRegistry {
    public static let manifest = RegistryManifest(
        name: CommandTemplate.registry,
        steps: [.init(verb: Verb.request.rawValue, targets: [CommandTemplate.stepTarget])],
        assertClauses: [],
        axes: [RegistryManifest.everyAxis])
}
