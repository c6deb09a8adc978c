import CommandJobs
import FlowVocabulary
import Foundation
import MatrixPlan
import ProcessSpawn
import RunControl
import Worker

/// The worker executables `flowmatrix` starts as local workers.
extension WorkerLaunch {
    /// `flowmatrix worker` (this executable) with the built-in registries, or only `registries`. Command jobs are
    /// allowed by default: the person who ran `flowmatrix run` on a matrix with a command asked for it to run here
    /// (docs/COMMAND-JOBS.md, "Safety").
    package static func flowmatrixWorker(registries: [String] = [], allowCommands: Bool = true) -> WorkerLaunch {
        let builtIn = BuiltInRegistries.all.map(\.name) + (allowCommands ? [CommandTemplate.registry] : [])
        return WorkerLaunch(
            executable: ProcessFacts.flowmatrix, leadingArguments: ["worker"],
            trailingArguments: registries.flatMap { ["--registry", $0] } + (allowCommands ? ["--allow-commands"] : []),
            hostedRegistries: Set(registries.isEmpty ? builtIn : registries))
    }

    /// `run --worker-executable <path>`: a worker built on `WorkerMain` (catalog-worker, example-worker, one of the
    /// user's, the tests' test-worker). Its registries are what `<path> --list-registries --json` publishes
    /// (`PublishedRegistries`), so a matrix none of them serves is refused before the run; a program that does not
    /// answer within 10 s (or fails) is not checked, and a job whose registry it does not host waits for a worker that
    /// does.
    /// - Throws: `UsageError` when `path` is not an executable file.
    static func userWorker(_ path: String) async throws -> (launch: WorkerLaunch, published: PublishedRegistries?) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw UsageError("'--worker-executable' takes an executable file, not '\(path)'")
        }
        let published = await PublishedRegistries.ask(url)
        return (WorkerLaunch(executable: url, hostedRegistries: published?.names), published)
    }

    /// What `executable arguments` prints to stdout; nil when it cannot start, fails (non-zero exit) or has not
    /// exited within `timeout` (then it is ended). For short answers such as `--list-registries`. Waits without
    /// blocking a thread (`ProgramOutput`).
    static func output(of executable: URL, arguments: [String], timeout: Duration) async -> Data? {
        guard let answer = try? await ProgramOutput.run(executable, arguments, timeout: timeout), answer.status == 0 else {
            return nil
        }
        return answer.output
    }
}
