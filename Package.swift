// swift-tools-version: 6.0
// FlowMatrix: a distributed configuration-matrix orchestrator for declarative UI scenarios.
// Only the toolchain and system C libraries (Debian packages named in each module map's target).
import PackageDescription

/// One settings list for every Swift target: Swift 6 language mode with complete strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "FlowMatrix",
    platforms: [.macOS(.v15)],
    products: [
        // What a user's worker depends on (Workers/README.md): the scenario API, the worker runtime, and the
        // modules its job context speaks in (configurations; what they mean at run time).
        .library(name: "FlowVocabulary", targets: ["FlowVocabulary"]),
        .library(name: "FlowSpec", targets: ["FlowSpec"]),
        .library(name: "FlowMatrixWorker", targets: ["Worker"]),
        .library(name: "MatrixPlan", targets: ["MatrixPlan"]),
        .library(name: "RunConditions", targets: ["RunConditions"]),
        .executable(name: "flowmatrix", targets: ["flowmatrix"]),
        .executable(name: "catalog-worker", targets: ["catalog-worker"]),
        .executable(name: "example-worker", targets: ["example-worker"]),
        .executable(name: "flowmatrix-bench", targets: ["flowmatrix-bench"]),
        // The run API: plan → run definition → serve (local workers, live view, reports injected) → summary.
        .library(name: "RunControl", targets: ["RunControl"]),
    ],
    targets: [
        // C boundary: one two-file module map per system library.
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),

        // Pure layers, lowest first. FlowVocabulary: the outcome and keep vocabulary every layer shares.
        .target(name: "FlowVocabulary", swiftSettings: swiftSettings),
        .target(name: "FlowSpec", dependencies: ["FlowVocabulary"], swiftSettings: swiftSettings),
        .target(name: "MatrixPlan", dependencies: ["FlowSpec", "FlowCrypto", "FlowVocabulary"], swiftSettings: swiftSettings),
        .target(name: "RunConditions", dependencies: ["MatrixPlan", "FlowSpec"], swiftSettings: swiftSettings),
        // `flowmatrix isolate`'s pure core (docs/ISOLATE.md): candidate ranking, follow-up generation, the session.
        .target(name: "Isolation", dependencies: ["MatrixPlan"], swiftSettings: swiftSettings),
        .target(name: "FlowCrypto", dependencies: ["CCrypto"], swiftSettings: swiftSettings),
        .target(name: "Wireframe", dependencies: ["CCairo", "Gzip"], swiftSettings: swiftSettings),
        .target(name: "Wire", dependencies: ["FlowCrypto", "FlowVocabulary"], swiftSettings: swiftSettings),
        .target(name: "UVTransport", dependencies: ["Wire", "CLibUV"], swiftSettings: swiftSettings),
        // gzip and zlib streams over CZlib, with their own error (`GzipError`): artifacts, reports, PNGs.
        .target(name: "Gzip", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        .target(name: "Artifacts", dependencies: ["Gzip", "FlowCrypto"], swiftSettings: swiftSettings),
        // Visual baselines (docs/VISUAL.md): PNG decode and the perceptual compare (pure), and the baseline store, its
        // folders and a run's comparison with it (the store's files and blobs).
        .target(name: "Visual", dependencies: ["Gzip"], swiftSettings: swiftSettings),
        .target(
            name: "Baselines", dependencies: ["Visual", "Artifacts", "Journal", "MatrixPlan", "FlowCrypto", "FlowSpec", "Gzip", "Wireframe", "FlowVocabulary"],
            swiftSettings: swiftSettings
        ),
        .target(name: "Journal", dependencies: ["CSQLite", "FlowVocabulary"], swiftSettings: swiftSettings),
        .target(
            name: "Coordinator",
            dependencies: ["Wire", "UVTransport", "Artifacts", "Journal", "MatrixPlan", "FlowCrypto", "FlowVocabulary"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Worker",
            dependencies: ["Wire", "UVTransport", "Artifacts", "Gzip", "FlowSpec", "FlowCrypto", "FlowVocabulary"],
            swiftSettings: swiftSettings
        ),
        .target(name: "Reports", dependencies: ["Journal", "Artifacts", "Gzip", "FlowCrypto", "MatrixPlan", "FlowVocabulary", "FlowSpec", "Isolation", "Visual"], swiftSettings: swiftSettings),
        // Command jobs (docs/COMMAND-JOBS.md): the `command` registry, process groups, JUnit results.
        .target(
            name: "CommandJobs",
            dependencies: ["Artifacts", "FlowSpec", "MatrixPlan", "RunConditions", "Wire", "Worker", "FlowVocabulary", "ProcessSpawn"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LiveView", dependencies: ["Coordinator", "UVTransport", "Reports", "Journal", "FlowCrypto"],
            swiftSettings: swiftSettings
        ),
        // The run API above the coordinator: the journal, resume, local worker processes, the live view and report
        // writing are its injected steps (docs/ARCHITECTURE.md, "Run API").
        .target(
            name: "RunControl",
            dependencies: ["Coordinator", "Journal", "MatrixPlan", "Artifacts", "FlowCrypto", "FlowSpec", "FlowVocabulary", "Wire"],
            swiftSettings: swiftSettings
        ),
        .target(name: "FlowMatrixTestKit", dependencies: ["FlowSpec", "Worker", "Artifacts", "Wire"], swiftSettings: swiftSettings),
        // The tests' and benches' worker: the test kit's registries (`test`, whose `crash` target exits the process;
        // `noop`) hosted by WorkerMain. Not shipped: `flowmatrix worker` does not host `test`.
        .executableTarget(name: "test-worker", dependencies: ["FlowMatrixTestKit", "Worker", "FlowVocabulary"], swiftSettings: swiftSettings),

        // Starting a child process (posix_spawn): shared by command jobs and the browser; Foundation only.
        .target(name: "ProcessSpawn", swiftSettings: swiftSettings),
        // Browser driving: the DevTools protocol client, and the `web` registry that maps FlowSpec onto it.
        .target(name: "DevTools", dependencies: ["ProcessSpawn"], swiftSettings: swiftSettings),
        .target(name: "WebRegistry", dependencies: ["DevTools", "FlowSpec", "MatrixPlan", "RunConditions", "FlowVocabulary", "UVTransport"], swiftSettings: swiftSettings),

        // The sample app's headless worker (a pre-UI model and its registry) and its executable.
        .target(
            name: "CatalogApp",
            dependencies: ["FlowSpec", "MatrixPlan", "RunConditions", "Wireframe", "FlowVocabulary"],
            path: "Workers/Catalog/Sources/CatalogApp",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "catalog-worker",
            dependencies: ["CatalogApp", "Worker"],
            path: "Workers/Catalog/Sources/catalog-worker",
            swiftSettings: swiftSettings
        ),

        // The smallest real worker: a user's own registry hosted by WorkerMain.
        .executableTarget(
            name: "example-worker",
            dependencies: ["FlowSpec", "Worker"],
            path: "Workers/Example/Sources/example-worker",
            swiftSettings: swiftSettings
        ),

        // The CLI: commands live in a library so tests can reach them; main.swift only dispatches.
        .target(
            name: "FlowMatrixCLI",
            dependencies: [
                "FlowSpec", "MatrixPlan", "RunConditions", "UVTransport", "Artifacts", "Journal",
                "Coordinator", "Worker", "Reports", "CatalogApp", "FlowCrypto",
                "WebRegistry", "CommandJobs", "LiveView", "RunControl", "FlowVocabulary", "ProcessSpawn", "Isolation", "Baselines", "Visual",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "flowmatrix", dependencies: ["FlowMatrixCLI"], swiftSettings: swiftSettings),
        // The benchmark suites (`flowmatrix bench` runs this executable from beside itself): they link the test kit's
        // `test-worker` launch and in-process registries, which the shipped `flowmatrix` does not.
        .executableTarget(
            name: "flowmatrix-bench",
            dependencies: [
                "FlowMatrixCLI", "FlowSpec", "MatrixPlan", "Wire", "UVTransport", "Artifacts", "Gzip", "Journal", "Coordinator",
                "Worker", "Reports", "CatalogApp", "FlowMatrixTestKit", "FlowCrypto", "DevTools", "WebRegistry",
                "LiveView", "RunControl", "FlowVocabulary", "Isolation", "Visual",
            ],
            swiftSettings: swiftSettings
        ),

        // Tests: one target per module, plus end-to-end tests that start real processes.
        .testTarget(name: "FlowVocabularyTests", dependencies: ["FlowVocabulary", "Wire"], swiftSettings: swiftSettings),
        .testTarget(name: "CLibrariesTests", dependencies: ["CLibUV", "CZlib", "CSQLite", "CCrypto", "CCairo", "ProcessSpawn"], swiftSettings: swiftSettings),
        .testTarget(name: "FlowSpecTests", dependencies: ["FlowSpec"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "MatrixPlanTests", dependencies: ["MatrixPlan", "FlowSpec"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "IsolationTests", dependencies: ["Isolation", "MatrixPlan"], swiftSettings: swiftSettings),
        .testTarget(name: "RunConditionsTests", dependencies: ["RunConditions", "MatrixPlan", "FlowSpec", "FlowVocabulary"], swiftSettings: swiftSettings),
        .testTarget(name: "WireTests", dependencies: ["Wire", "FlowCrypto"], swiftSettings: swiftSettings),
        .testTarget(name: "UVTransportTests", dependencies: ["UVTransport", "Wire"], swiftSettings: swiftSettings),
        // What the Gzip and Artifacts tests share (temporary folders, the real gzip tool, sample bytes).
        .target(name: "CodecFixtures", dependencies: ["ProcessSpawn"], path: "Tests/CodecFixtures", swiftSettings: swiftSettings),
        .testTarget(name: "GzipTests", dependencies: ["Gzip", "CodecFixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "VisualTests", dependencies: ["Visual", "Wireframe", "Gzip"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "ArtifactsTests", dependencies: ["Artifacts", "FlowCrypto", "Gzip", "CodecFixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "JournalTests", dependencies: ["Journal", "MatrixPlan", "FlowVocabulary"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CoordinatorTests",
            dependencies: ["Coordinator", "FlowMatrixTestKit", "MatrixPlan", "Artifacts", "FlowCrypto", "FlowSpec", "Journal", "Wire", "Worker", "FlowVocabulary"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WorkerTests", dependencies: ["Worker", "UVTransport", "Wire", "FlowSpec", "FlowCrypto", "FlowMatrixTestKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CatalogTests", dependencies: ["CatalogApp", "RunConditions", "MatrixPlan", "FlowSpec", "Wireframe"], swiftSettings: swiftSettings),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "Isolation", "Journal", "Artifacts", "Gzip", "FlowVocabulary", "MatrixPlan", "FlowSpec", "DevTools", "FlowMatrixTestKit", "ProcessSpawn", "Visual", "Wireframe"], exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FlowMatrixCLI", "Artifacts", "Coordinator", "FlowMatrixTestKit", "Journal", "UVTransport", "Wire", "DevTools",
                "RunControl", "FlowVocabulary", "ProcessSpawn", "Isolation", "MatrixPlan",
                // The bench executable, for `bench all`'s skip rule (`@testable import flowmatrix_bench`).
                "flowmatrix-bench",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ProcessSpawnTests", dependencies: ["ProcessSpawn"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CommandJobsTests",
            dependencies: ["CommandJobs", "Artifacts", "Gzip", "FlowSpec", "MatrixPlan", "Wire", "Worker"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LiveViewTests", dependencies: ["LiveView", "UVTransport", "Coordinator", "Journal", "Artifacts", "FlowVocabulary", "MatrixPlan"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RunControlTests", dependencies: ["RunControl", "Coordinator", "Journal", "MatrixPlan"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DevToolsTests", dependencies: ["DevTools"], swiftSettings: swiftSettings),
        .testTarget(
            name: "WebRegistryTests",
            dependencies: ["WebRegistry", "DevTools", "FlowSpec", "RunConditions", "ProcessSpawn", "CatalogApp", "Visual", "FlowMatrixTestKit"],
            swiftSettings: swiftSettings
        ),
    ]
)
