import CatalogApp
import Foundation
import Worker

// The Catalog sample app's headless worker: hosts the `catalog` registry (a fresh app per job, built from the
// job's configuration and seed). Usage: catalog-worker --connect <host:port> --token-file <file> [--slots n] …
let catalog = RegistryFactory(name: CatalogWorkerKit.registryName, manifest: CatalogRegistry.manifest) { job in
    try CatalogWorkerKit.makeRegistry(configuration: job.configuration, seed: job.seed)
}
exit(await WorkerMain.run(registries: [catalog]))
