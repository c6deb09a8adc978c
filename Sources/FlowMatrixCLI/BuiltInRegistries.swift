import CatalogApp
import FlowMatrixTestKit
import Worker

/// The registries `flowmatrix worker` hosts without any code of the user's.
enum BuiltInRegistries {
    static var all: [RegistryFactory] {
        [
            TestRegistry.factory, NoOpRegistry.factory,
            RegistryFactory(name: CatalogWorkerKit.registryName) { job in
                try CatalogWorkerKit.makeRegistry(configuration: job.configuration, seed: job.seed)
            },
        ]
    }
}
