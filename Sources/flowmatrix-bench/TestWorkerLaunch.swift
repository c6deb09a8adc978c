import FlowMatrixCLI
import Foundation
import RunControl

extension WorkerLaunch {
    /// The benches' `test-worker` (the `test` and `noop` registries of FlowMatrixTestKit, with its crashing
    /// targets), built beside this executable by `swift build` (every target) but never by `--product flowmatrix`.
    /// - Throws: `CommandFailure` when it is not there.
    static func testWorker(registries: [String] = []) throws -> WorkerLaunch {
        let url = testWorkerExecutable
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw CommandFailure("this bench starts test-worker, which is not built beside \(ProcessFacts.executable.path): "
                + "build every target ('swift build -c release')")
        }
        return WorkerLaunch(executable: url, trailingArguments: registries.flatMap { ["--registry", $0] },
                            hostedRegistries: Set(registries.isEmpty ? ["test", "noop"] : registries))
    }

    /// Why a bench that starts `test-worker` cannot run (it is not built beside this executable), or nil.
    @Sendable static func testWorkerMissing() -> String? {
        FileManager.default.isExecutableFile(atPath: testWorkerExecutable.path) ? nil
            : "it starts test-worker, which is not built beside \(ProcessFacts.executable.path) "
                + "(build every target: 'swift build -c release')"
    }

    /// Where `test-worker` is: beside this executable.
    static var testWorkerExecutable: URL {
        ProcessFacts.executable.deletingLastPathComponent().appendingPathComponent("test-worker")
    }
}
