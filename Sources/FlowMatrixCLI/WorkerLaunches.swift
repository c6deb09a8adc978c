import CommandJobs
import Foundation
import MatrixPlan
import RunControl

/// The worker executables `flowmatrix` starts as local workers.
extension WorkerLaunch {
    /// `flowmatrix worker` (this executable) with the built-in registries, or only `registries`. Command jobs are
    /// allowed by default: the person who ran `flowmatrix run` on a matrix with a command asked for it to run here
    /// (docs/COMMAND-JOBS.md, "Safety").
    static func flowmatrixWorker(registries: [String] = [], allowCommands: Bool = true) -> WorkerLaunch {
        let builtIn = BuiltInRegistries.all.map(\.name) + (allowCommands ? [CommandTemplate.registry] : [])
        return WorkerLaunch(
            executable: ProcessFacts.executable, leadingArguments: ["worker"],
            trailingArguments: registries.flatMap { ["--registry", $0] } + (allowCommands ? ["--allow-commands"] : []),
            hostedRegistries: Set(registries.isEmpty ? builtIn : registries))
    }

    /// `run --worker-executable <path>`: a worker built on `WorkerMain` (catalog-worker, example-worker, one of the
    /// user's, the tests' test-worker). Its registries are not known before it connects, so they are not checked.
    /// - Throws: `UsageError` when `path` is not an executable file.
    static func userWorker(_ path: String) throws -> WorkerLaunch {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw UsageError("'--worker-executable' takes an executable file, not '\(path)'")
        }
        return WorkerLaunch(executable: url, hostedRegistries: nil)
    }

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

    /// Where `test-worker` is: beside this executable.
    static var testWorkerExecutable: URL {
        ProcessFacts.executable.deletingLastPathComponent().appendingPathComponent("test-worker")
    }
}
