import FlowSpec

/// The `noop` registry: every step passes at once. `flowmatrix worker` hosts it (the dispatch benches and the
/// overhead figures in README run through the production worker), and so does the tests' `test-worker`.
public struct NoOpRegistry: AsyncStepRegistry {
    public static let name = "noop"
    public init() {}
    public func execute(_ step: Step) async throws {}
    /// Every step passes, assert clauses are not read, and no axis changes anything.
    public static let manifest = RegistryManifest(name: name, steps: RegistryManifest.everyStep, axes: [])
    public static let factory = RegistryFactory(name: name, manifest: manifest) { _ in NoOpRegistry() }
}
