import Artifacts
import FlowSpec
import Foundation
import MatrixPlan
import Synchronization
import Wire
import Worker

/// Where command jobs write and how they run, with defaults.
public struct CommandRegistrySettings: Sendable {
    /// Each attempt's `{output}` folder is `<outputRoot>/<job id>/attempt-<n>`, emptied before and removed after the
    /// attempt (its files are kept as artifacts when globs name them). Default: `flowmatrix-commands-<pid>` in the
    /// temporary directory.
    public var outputRoot: URL
    /// Keep the output folders after the attempt (for debugging a worker). Default false.
    public var keepOutputFolders = false
    public var process = CommandSettings()

    public init(outputRoot: URL? = nil) {
        self.outputRoot = outputRoot ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("flowmatrix-commands-\(ProcessInfo.processInfo.processIdentifier)")
    }
}

/// The `command` registry: runs a command job's one step (`request:command`), keeps stdout and stderr and the
/// declared files as artifacts, and reports each test of its JUnit result files as a named result.
///
/// Only a worker whose owner allows commands hosts it (`flowmatrix worker --allow-commands`); the coordinator assigns
/// `command` jobs only to workers that advertise it.
public final class CommandRegistry: AsyncStepRegistry, NamedResultsProviding {
    private let context: JobContext
    private let settings: CommandRegistrySettings
    private let results = Mutex<[NamedResult]>([])

    public init(context: JobContext, settings: CommandRegistrySettings) {
        self.context = context
        self.settings = settings
    }

    /// The factory a worker hosts to allow commands.
    public static func factory(settings: CommandRegistrySettings = CommandRegistrySettings()) -> RegistryFactory {
        RegistryFactory(name: CommandTemplate.registry, manifest: manifest) { CommandRegistry(context: $0, settings: settings) }
    }

    public func namedResults() async -> [NamedResult] { results.withLock { $0 } }

    public func execute(_ step: Step) async throws {
        guard step.verb == .request, step.target == CommandTemplate.stepTarget else { throw StepError.unknownStep(step) }
        let job: CommandJob
        do { job = try CommandJob.decode(step.arg) } catch { throw StepError.invalidArgument("\(error)") }
        let output = settings.outputRoot.appendingPathComponent(context.jobID).appendingPathComponent("attempt-\(context.attempt)")
        do {
            try? FileManager.default.removeItem(at: output)
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        } catch {
            throw StepError.infrastructure("cannot create the output folder \(output.path): \(FileErrorText.reason(error))")
        }
        defer { if !settings.keepOutputFolders { try? FileManager.default.removeItem(at: output) } }
        let values = PlaceholderValues(context: context, item: job.item, output: output.path)
        let invocation = job.invocation(values, inherited: ProcessInfo.processInfo.environment)
        let outcome: CommandOutcome
        do {
            outcome = try await CommandProcess.run(invocation, settings: settings.process)
        } catch {
            throw StepError.failed("\(error)")
        }
        let sink = ArtifactSink.current
        var artifactProblems = outcome.outputProblems
        for artifact in [outcome.stdout, outcome.stderr].compactMap({ $0 }) {
            do { try sink?.attach(artifact) } catch { artifactProblems.append("\(artifact.name): \(error)") }
        }
        let base = invocation.workingDirectory ?? FileManager.default.currentDirectoryPath
        let collected = collect(job, values: values, base: base, output: output.path, into: sink)
        artifactProblems += collected.artifactProblems
        if !artifactProblems.isEmpty {
            // An artifact that could not be kept is said, not lost silently (as `EvidenceLog` does for evidence).
            _ = try? sink?.attach(name: "artifacts.error.txt", mediaType: "text/plain",
                                  bytes: Array((artifactProblems.joined(separator: "\n") + "\n").utf8), step: 0)
        }
        results.withLock { $0 = collected.results }
        let left = Self.leftBehindText(outcome.leftBehind)
        if let left {
            // Said in the step's record even when it passes (journal, report, step.log).
            StepContext.note(left)
            StepContext.log(left)
        }
        if outcome.cancelled && !outcome.timedOut { throw CancellationError() }
        if outcome.timedOut {
            throw StepError.conditionTimedOut(
                description: "'\(job.name)' to finish (its process group \(outcome.pid) was killed"
                    + (left.map { "; it \($0)" } ?? "") + ")",
                after: invocation.timeout ?? .zero)
        }
        guard outcome.passed else { throw StepError.failed(Self.failureMessage(outcome, tests: collected.results)) }
        if let problem = collected.problems.first { throw StepError.failed(problem) }
        // A runner that exits 0 while its own result file reports failing tests (`|| true`, a lenient flag) does not
        // pass the attempt: the tests' verdict is part of the command's.
        if collected.results.contains(where: { $0.status == .failed || $0.status == .errored }) {
            throw StepError.failed(Self.failureMessage(outcome, tests: collected.results))
        }
    }

    /// Reads the result files (each test a named result) and keeps them and the artifact globs' files.
    private func collect(_ job: CommandJob, values: PlaceholderValues, base: String, output: String, into sink: ArtifactSink?)
        -> (results: [NamedResult], problems: [String], artifactProblems: [String])
    {
        var named: [NamedResult] = []
        var problems: [String] = []
        var artifactProblems: [String] = []
        var kept = Set<String>()
        func keep(_ path: String) {
            guard kept.insert(path).inserted else { return }
            let name = FileGlob.artifactName(path, roots: [output, base])
            do {
                try sink?.attach(file: URL(fileURLWithPath: path), name: name, mediaType: FileGlob.mediaType(path), step: 0)
            } catch {
                artifactProblems.append("\(name): \(error)")
            }
        }
        for template in job.results ?? [] {
            let paths = FileGlob.expand(values.text(template), base: base)
            if paths.isEmpty { problems.append("no result file matched '\(template)'") }
            for path in paths {
                keep(path)
                let shown = FileGlob.artifactName(path, roots: [output, base])
                do {
                    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                    named += try JUnitParser.parse(bytes).map(Self.namedResult)
                } catch let error as JUnitError {
                    problems.append("result file \(shown) is not valid JUnit XML: \(error)")
                } catch {
                    problems.append("result file \(shown) cannot be read: \(error)")
                }
            }
        }
        for pattern in (job.artifacts ?? []).map(values.text) {
            for path in FileGlob.expand(pattern, base: base) { keep(path) }
        }
        return (named, problems, artifactProblems)
    }

    static func namedResult(_ c: JUnitCase) -> NamedResult {
        NamedResult(name: CommandTemplate.testStepPrefix + c.qualifiedName, status: c.outcome,
                    duration: .nanoseconds(Int64((c.time * 1e9).rounded())), message: c.message)
    }

    /// `exited with status 1 (2 of 5 tests failed: a, b)`, what it left running, then the last lines of stderr.
    static func failureMessage(_ outcome: CommandOutcome, tests: [NamedResult]) -> String {
        var text = outcome.signal.map { "killed by signal \($0)" } ?? "exited with status \(outcome.exitStatus ?? -1)"
        let failed = tests.filter { $0.status == .failed || $0.status == .errored }
        if !failed.isEmpty {
            let names = failed.prefix(5).map { String($0.name.dropFirst(CommandTemplate.testStepPrefix.count)) }.joined(separator: ", ")
            text += " (\(failed.count) of \(tests.count) tests failed: \(names)\(failed.count > 5 ? ", …" : ""))"
        }
        if let left = leftBehindText(outcome.leftBehind) { text += "; it \(left)" }
        if !outcome.stderrTail.isEmpty {
            let lines = outcome.stderrTail.split(separator: "\n").suffix(12).joined(separator: "\n")
            text += "\n" + lines
        }
        return text
    }

    /// `left 1 process behind (pid 4242, `sleep 300`), ended`; nil when it left none.
    static func leftBehindText(_ left: [LeftProcess]) -> String? {
        guard !left.isEmpty else { return nil }
        let named = left.compactMap { p in p.pid.map { (pid: $0, command: p.command, ended: p.ended) } }
        // Where processes cannot be named (macOS), only that the group still had some.
        guard !named.isEmpty else { return "left processes of its process group running, ended" }
        let shown = named.prefix(5).map { "pid \($0.pid), `\($0.command)`" }.joined(separator: "; ")
        let stuck = named.filter { !$0.ended }.map { String($0.pid) }
        return "left \(named.count) process\(named.count == 1 ? "" : "es") behind (\(shown)\(named.count > 5 ? "; …" : ""))"
            + (stuck.isEmpty ? ", ended" : ", ended except pid \(stuck.joined(separator: ", ")) (it could not be killed)")
    }
}
