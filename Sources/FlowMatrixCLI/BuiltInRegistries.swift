import CommandJobs
import CatalogApp
import FlowSpec
import MatrixPlan
import Foundation
import WebRegistry
import Worker

/// The registries `flowmatrix worker` hosts without any code of the user's: `noop` (three do-nothing steps, what the
/// dispatch benches and overhead measurements run), `catalog` (the sample app) and `web`. The tests' `test` registry,
/// whose `crash` target ends the process, is hosted by the separate `test-worker` executable only.
enum BuiltInRegistries {
    /// The `web` registry's host: one browser per worker process, started by the first web job
    /// (`FLOWMATRIX_WEB_PREWARM=1` keeps the next job's page ready; see `SharedBrowser`).
    static let web = WebHost(
        browser: SharedBrowser(prewarm: ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_PREWARM"] == "1"))

    static var all: [RegistryFactory] {
        [
            NoOpRegistry.factory,
            RegistryFactory(name: CatalogWorkerKit.registryName, manifest: CatalogRegistry.manifest) { job in
                try CatalogWorkerKit.makeRegistry(configuration: job.configuration, seed: job.seed)
            },
            RegistryFactory(name: WebHost.registryName, manifest: web.manifest) { job in
                try await web.makeRegistry(
                    configuration: job.configuration, seed: job.seed, scenarioTags: job.scenario.tags)
            },
        ]
    }

    /// The manifests of the built-in registries and of `command`: what `validate`, `plan` and `run` check scenarios
    /// against when the matrix names one of them (and no `--worker-executable` publishes its own).
    static var manifests: [RegistryManifest] { all.map(\.manifest) + [CommandRegistry.manifest] }

    /// The `web` manifest of a site a matrix names (`web.pages`, or `Pages` beside `web.root`): its page objects'
    /// steps, what the workers `run` starts will resolve targets through; nil without page objects.
    @Sendable static func webSiteManifest(_ site: WebSite) -> RegistryManifest? {
        guard let folder = site.pageObjects else { return nil }
        return WebHost(pageObjects: folder).manifest
    }
}
