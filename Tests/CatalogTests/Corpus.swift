import CatalogApp
import FlowSpec
import Foundation
import MatrixPlan

/// The real scenario corpus of `Workers/Catalog/Scenarios`, found from this file's path.
enum Corpus {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let folder = repositoryRoot.appendingPathComponent("Workers/Catalog/Scenarios")

    /// Every scenario, validated.
    static func scenarios() throws -> [Scenario] {
        let load = ScenarioLoader.loadCorpus(paths: [folder])
        guard load.isClean else { throw ScenarioLoadError(findings: load.findings) }
        return load.scenarios.map(\.scenario).sorted { $0.id < $1.id }
    }

    static func scenario(_ id: String) throws -> Scenario {
        try ScenarioLoader.loadValidated(contentsOf: folder.appendingPathComponent("\(id).json"))
    }

    /// The baseline configuration: en, ltr, portrait, full-window, lte.
    static let baseline: [String: String] = [
        "locale": "en", "direction": "ltr", "orientation": "portrait", "window": "full-window", "network": "lte",
    ]

    /// The baseline with some axes changed.
    static func configuration(_ changes: [String: String]) -> [String: String] {
        baseline.merging(changes) { $1 }
    }

    /// Runs one scenario under a configuration on a fresh registry.
    static func run(_ id: String, _ changes: [String: String] = [:], seed: UInt64 = 1) async throws -> ScenarioResult {
        let registry = try CatalogWorkerKit.makeRegistry(configuration: configuration(changes), seed: seed)
        return await AsyncScenarioRunner(registry: registry).run(try scenario(id))
    }
}
