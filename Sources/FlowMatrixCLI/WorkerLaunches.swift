import CommandJobs
import Foundation
import MatrixPlan
import RunControl
import Synchronization
import Worker

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
    /// user's, the tests' test-worker). Its registries are what `<path> --list-registries` prints, so a matrix none
    /// of them serves is refused before the run; a program that does not answer that flag within 10 s (or fails)
    /// is not checked, and a job whose registry it does not host waits for a worker that does.
    /// - Throws: `UsageError` when `path` is not an executable file.
    static func userWorker(_ path: String) throws -> WorkerLaunch {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw UsageError("'--worker-executable' takes an executable file, not '\(path)'")
        }
        return WorkerLaunch(executable: url, hostedRegistries: listedRegistries(url))
    }

    /// The registries `executable --list-registries` prints, one per line; nil when it fails, prints none, or has
    /// not exited within `timeout`.
    static func listedRegistries(_ executable: URL, timeout: Duration = .seconds(10)) -> Set<String>? {
        let process = Process()
        process.executableURL = executable
        process.arguments = [WorkerMain.listRegistriesFlag]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do { try process.run() } catch { return nil }
        // Read while it runs (a full pipe would stall it); its output is a few names.
        let text = Mutex(Data())
        let read = DispatchSemaphore(value: 0)
        Thread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            text.withLock { $0 = data }
            read.signal()
        }.start()
        guard exited.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000))) == .success else {
            process.terminate()
            return nil
        }
        // The pipe's writer went with the process, so the reader ends at once (unless a child of it holds the pipe).
        guard process.terminationStatus == 0, read.wait(timeout: .now() + .seconds(1)) == .success else { return nil }
        let names = String(decoding: text.withLock { $0 }, as: UTF8.self)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return names.isEmpty ? nil : Set(names)
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
