import FlowVocabulary
import Foundation
import Journal
import ProcessSpawn
import Synchronization
import Testing

/// A scratch folder with a corpus and matrices, and the `flowmatrix` processes a test starts in it.
/// Every process is killed and the folder removed when the test ends (`cleanUp`).
final class E2EWorkspace: Sendable {
    let root: URL
    private let processes = Mutex<[Process]>([])

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fm-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
    }

    /// The `flowmatrix` binary built beside the test bundle.
    static var binary: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("flowmatrix")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/flowmatrix")
    }

    /// The `test-worker` binary built beside `flowmatrix`: the `test` registry's host (the production `flowmatrix
    /// worker` does not host it). `run` starts it as its local workers with `--worker-executable`.
    static var testWorker: String {
        binary.deletingLastPathComponent().appendingPathComponent("test-worker").path
    }

    /// Starts `test-worker args…` (WorkerMain's flags, `--registry test|noop`) in the workspace, like `start`.
    @discardableResult
    func startTestWorker(_ args: [String], label: String) throws -> Process {
        try start(args, label: label, environment: [:], workingDirectory: nil,
                  executable: URL(fileURLWithPath: Self.testWorker))
    }

    /// Writes a scenario whose steps tap the given test-registry targets (`pass`, `fail`, `busy:300`, …).
    func scenario(_ id: String, _ steps: [String], tags: [String] = ["e2e"]) throws {
        let stepJSON = steps.map { s -> String in
            let parts = s.split(separator: ":", maxSplits: 1)
            let arg = parts.count > 1 ? ", \"arg\": \"\(parts[1])\"" : ""
            return "{\"verb\": \"tap\", \"target\": \"\(parts[0])\"\(arg)}"
        }.joined(separator: ", ")
        let text = "{\"id\": \"\(id)\", \"title\": \"\(id)\", \"tags\": \(tags), \"steps\": [\(stepJSON)]}"
        try Data(text.utf8).write(to: root.appendingPathComponent("corpus/\(id).json"))
    }

    /// Writes a matrix over the corpus with the test registry.
    func matrix(_ name: String = "m.json", locales: [String] = ["en", "de"], retries: Int = 0, timeout: Int = 30,
                registry: String = "test", keep: String = "failures") throws -> String {
        let text = """
            {"name": "e2e", "corpus": "corpus", "registry": "\(registry)",
             "policy": {"retries": \(retries), "timeout": \(timeout), "seed": 7, "keep": "\(keep)"},
             "axes": {"locale": \(locales), "orientation": ["portrait"]}}
            """
        try Data(text.utf8).write(to: root.appendingPathComponent(name))
        return root.appendingPathComponent(name).path
    }

    var journalPath: String { root.appendingPathComponent(".flowmatrix/journal.sqlite").path }

    /// The program `flowmatrix run` starts as its local workers in a test.
    enum LocalWorkers {
        /// `test-worker` (`--worker-executable`): the `test` registry's host, which `flowmatrix worker` is not.
        case testWorker
        /// `flowmatrix worker`: the built-in registries and command jobs.
        case flowmatrix
    }

    /// Starts `flowmatrix args…` in the workspace; output goes to files named after `label`. A `run` gets
    /// `--worker-executable <test-worker>` unless `localWorkers` is `.flowmatrix`.
    @discardableResult
    func start(_ args: [String], label: String, environment: [String: String] = [:], workingDirectory: URL? = nil,
               localWorkers: LocalWorkers = .testWorker) throws -> Process {
        var args = args
        if args.first == "run", localWorkers == .testWorker {
            args.insert(contentsOf: ["--worker-executable", Self.testWorker], at: 1)
        }
        return try start(args, label: label, environment: environment, workingDirectory: workingDirectory, extra: ())
    }

    /// Starts another program (`ip netns exec …`) in the workspace, killed at clean-up like `flowmatrix` processes.
    @discardableResult
    func start(tool: String, _ args: [String], label: String) throws -> Process {
        try start(args, label: label, environment: [:], workingDirectory: nil, executable: URL(fileURLWithPath: tool))
    }

    private func start(_ args: [String], label: String, environment: [String: String], workingDirectory: URL?,
                       extra: Void) throws -> Process {
        try start(args, label: label, environment: environment, workingDirectory: workingDirectory, executable: Self.binary)
    }

    private func start(_ args: [String], label: String, environment: [String: String], workingDirectory: URL?,
                       executable: URL) throws -> Process {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        p.currentDirectoryURL = workingDirectory ?? root
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        for stream in ["out", "err"] {
            guard FileManager.default.createFile(atPath: root.appendingPathComponent("\(label).\(stream)").path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        p.standardOutput = try FileHandle(forWritingTo: root.appendingPathComponent("\(label).out"))
        p.standardError = try FileHandle(forWritingTo: root.appendingPathComponent("\(label).err"))
        p.standardInput = FileHandle.nullDevice
        try p.run()
        processes.withLock { $0.append(p) }
        return p
    }

    /// What the process started as `label` wrote to stdout and to stderr, apart.
    func streams(_ label: String) -> (stdout: String, stderr: String) {
        let out = (try? String(contentsOf: root.appendingPathComponent("\(label).out"), encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: root.appendingPathComponent("\(label).err"), encoding: .utf8)) ?? ""
        return (out, err)
    }

    func output(_ label: String) -> String {
        let out = (try? String(contentsOf: root.appendingPathComponent("\(label).out"), encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: root.appendingPathComponent("\(label).err"), encoding: .utf8)) ?? ""
        return out + err
    }

    /// Runs `flowmatrix args…` to completion (bounded by `timeout`) and returns its exit status and output. A `run`'s
    /// local workers are `test-worker` unless `localWorkers` is `.flowmatrix` (as in `start`).
    func run(_ args: [String], label: String, environment: [String: String] = [:], workingDirectory: URL? = nil,
             timeout: Duration = .seconds(120), localWorkers: LocalWorkers = .testWorker) async throws -> (Int32, String) {
        let p = try start(args, label: label, environment: environment, workingDirectory: workingDirectory,
                          localWorkers: localWorkers)
        try await waitForExit(p, timeout: timeout)
        return (p.terminationStatus, output(label))
    }

    /// Runs a system tool (not flowmatrix) to completion in the workspace.
    func runTool(_ path: String, _ args: [String]) async throws -> (Int32, String) {
        try await runProgram(path, args, in: root)
    }

    func waitForExit(_ p: Process, timeout: Duration) async throws {
        try await waitUntil("process \(p.processIdentifier) exits", timeout: timeout) { !p.isRunning }
    }

    /// Kills `p` with SIGKILL and waits (without blocking a thread) until it has exited.
    func kill9(_ p: Process) async {
        kill(p.processIdentifier, SIGKILL)
        if !(await p.exited(timeout: .seconds(30))) { Issue.record("process \(p.processIdentifier) outlived SIGKILL for 30 s") }
    }

    /// Kills every process the test started (SIGKILL: none runs another instruction) and removes the folder. It
    /// does not wait for the kernel to reap them: `defer` cannot await, and blocking a thread of the test process's
    /// small cooperative pool would stall every other test.
    func cleanUp() {
        for p in processes.withLock({ $0 }) where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: root)
    }

    /// Final outcomes per job id of a run, read from the journal.
    func outcomes(run runID: String) throws -> [String: JobOutcome] {
        let reader = try JournalReader(path: journalPath)
        var out: [String: JobOutcome] = [:]
        for row in try reader.jobs(run: runID) { if let o = row.result?.outcome { out[row.job.jobID] = o } }
        return out
    }

    func latestRunID() throws -> String? {
        guard FileManager.default.fileExists(atPath: journalPath) else { return nil }
        return try JournalReader(path: journalPath).latestRunID()
    }

    /// Jobs of the latest run that reached a final outcome (0 before the run is journaled).
    func finishedJobs() -> Int {
        guard let id = try? latestRunID(), let o = try? outcomes(run: id) else { return 0 }
        return o.count
    }
}

/// Runs a program to completion (in `directory`, or here; at most `timeout`) and returns its exit status and output
/// (stdout and stderr), waiting without blocking a thread.
func runProgram(_ path: String, _ args: [String], in directory: URL? = nil, timeout: Duration = .seconds(300))
    async throws -> (Int32, String)
{
    guard let result = try await ProgramOutput.run(URL(fileURLWithPath: path), args, in: directory, errors: .merged,
                                                   timeout: timeout) else {
        Issue.record("\(path) \(args) did not exit within \(timeout)")
        throw CancellationError()
    }
    return (result.status, result.text)
}

/// Waits for `condition` to hold, checking it every 20 ms, failing after `timeout`.
func waitUntil(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out after \(timeout) waiting until \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

extension E2EWorkspace {
    /// Starts `flowmatrix serve args… --listen 127.0.0.1:<port>` and returns it with the port it listens on. With
    /// no `port` the kernel picks one (`:0`) and the port is read back from serve's first line ("workers connecting
    /// to 127.0.0.1:<port>"): nothing can take it between choosing and binding, as with a port bound, released and
    /// passed on. A resumed coordinator passes the port its workers know.
    func startServe(_ args: [String], port: Int = 0, label: String) async throws -> (Process, Int) {
        let serve = try start(args + ["--listen", "127.0.0.1:\(port)"], label: label)
        let marker = "workers connecting to 127.0.0.1:"
        var bound: Int?
        try await waitUntil("\(label) says the port it listens on", timeout: .seconds(60)) {
            let text = output(label)
            guard let range = text.range(of: marker) else { return false }
            bound = Int(text[range.upperBound...].prefix { $0.isNumber })
            return bound != nil
        }
        return (serve, try #require(bound))
    }
}

/// A process's parent and niceness, from `/proc/<pid>/stat`.
struct ProcStat: CustomStringConvertible {
    var pid: Int32
    var parent: Int32
    var nice: Int32

    init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After the command name: state (field 3), ppid (4), … nice (19).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 16, let parent = Int32(fields[1]), let nice = Int32(fields[16]) else { return nil }
        self.pid = pid
        self.parent = parent
        self.nice = nice
    }

    /// The live children of `pid`.
    static func children(of pid: Int32) -> [ProcStat] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.compactMap { ProcStat(pid: $0) }.filter { $0.parent == pid }
    }

    var description: String { "pid \(pid) nice \(nice)" }
}
