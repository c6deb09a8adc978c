import Coordinator
import Foundation
import Journal
import MatrixPlan
import RunControl
import Synchronization
import Testing

/// The run API in process: a real coordinator on loopback, real `test-worker` processes, the journal read back.
@Suite("Run controller", .timeLimit(.minutes(3)))
struct RunControllerTests {
    @Test("a run with a local worker: the summary counts every outcome and the journal holds the same run")
    func realRun() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.scenario("passes", ["pass", "pass"])
        try fixture.scenario("fails", ["pass", "fail"])
        try fixture.scenario("flaky", ["flaky"])
        let events = EventLog()
        let reports = RecordingReports()
        var request = try fixture.request(retries: 1)
        request.reports = reports
        let summary = try await RunController(request, onEvent: { events.append($0) }).run()

        #expect(summary.status == .completed)
        #expect(summary.progress.total == 6)
        #expect(summary.progress.count(.passed) == 2)
        #expect(summary.progress.count(.failed) == 2)
        #expect(summary.progress.count(.flaky) == 2)
        #expect(summary.failures == 2 && summary.notRun == 0 && summary.ran == 6 && summary.alreadyFinal == 0)
        #expect(summary.journalFailure == nil)
        #expect(summary.report == RunReportNote(line: "reported \(summary.runID)"))
        #expect(reports.runIDs == [summary.runID])
        #expect(events.names == ["planning", "planned", "serving", "served", "writingReports", "reportsWritten"])

        let reader = try JournalReader(path: request.store.journalPath)
        let run = try #require(try reader.run(summary.runID))
        #expect(run.status == .completed)
        #expect(run.info.matrixName == "run-api")
        var outcomes: [String: Int] = [:]
        for row in try reader.jobs(run: summary.runID) {
            outcomes[try #require(row.result?.outcome).rawValue, default: 0] += 1
        }
        #expect(outcomes == ["passed": 2, "failed": 2, "flaky": 2])
    }

    @Test("interrupted as soon as it serves: no job runs, the run ends interrupted, and a resume with a worker finishes it")
    func interruptThenResume() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.scenario("passes", ["pass"])
        let holder = Mutex<RunController?>(nil)
        // No local worker: one started now would only be killed after the drain's grace, having nothing to do.
        var request = try fixture.request()
        request.localWorkers = nil
        let controller = RunController(request) { event in
            if case .serving = event { holder.withLock { $0 }?.interrupt() }
        }
        holder.withLock { $0 = controller }
        let first = try await controller.run()
        #expect(first.status == .interrupted)
        #expect(first.notRun == 2 && first.ran == 0)

        var resume = try fixture.request()
        resume.matrixPath = nil
        resume.resume = first.runID
        let events = EventLog()
        let second = try await RunController(resume, onEvent: { events.append($0) }).run()
        #expect(second.runID == first.runID)
        #expect(second.status == .completed)
        #expect(second.progress.count(.passed) == 2)
        #expect(events.names.contains("resuming"))
        let reader = try JournalReader(path: resume.store.journalPath)
        #expect(try reader.run(first.runID)?.status == .completed)
    }

    @Test("injected steps: the live view starts after the jobs are journaled, observes every job, then finishes and stops")
    func liveViewAndShard() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.scenario("passes", ["pass"])
        try fixture.scenario("fails", ["fail"])
        let live = RecordingLiveView()
        var request = try fixture.request()
        request.liveView = live
        request.reports = RecordingReports()
        request.shard = FirstJobs(count: 3)
        let result = try await RunController(request).run()

        #expect(result.progress.total == 3, "the shard kept 3 of the plan's 4 jobs")
        #expect(live.calls == ["start \(result.runID) 3 jobs, 3 journaled", "finish runs/\(result.runID)", "stop"])
        #expect(live.observed == 3, "the observer saw every job end")
        let reader = try JournalReader(path: request.store.journalPath)
        let settings = try #require(try reader.run(result.runID)).info.settingsJSON
        #expect(settings.contains(#""shard":{"kept":3}"#), "\(settings)")
    }

    @Test("a live view that cannot start: its error comes back and the run is journaled as aborted, not running")
    func liveViewFails() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.scenario("passes", ["pass"])
        var request = try fixture.request()
        request.localWorkers = nil
        request.liveView = FailingLiveView()
        await #expect {
            try await RunController(request).run()
        } throws: { error in
            "\(error)" == "cannot serve the live view"
        }
        let reader = try JournalReader(path: request.store.journalPath)
        let runID = try #require(try reader.latestRunID())
        #expect(try reader.run(runID)?.status == .aborted)
    }

    @Test("a matrix with findings, or a registry the local workers do not host, is refused before anything runs")
    func refusals() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.scenario("passes", ["pass"])
        var unhosted = try fixture.request()
        unhosted.localWorkers?.launch.hostedRegistries = ["noop"]
        await #expect {
            try await RunController(unhosted).run()
        } throws: { error in
            (error as? RunError)?.code == .invalidInput && "\(error)".contains("needs registry 'test'")
        }
        try Data(#"{"name": "bad", "corpus": "corpus", "registry": "test", "axes": {"locale": []}}"#.utf8)
            .write(to: fixture.root.appendingPathComponent("bad.json"))
        var bad = try fixture.request()
        bad.matrixPath = fixture.root.appendingPathComponent("bad.json").path
        await #expect {
            try await RunController(bad).run()
        } throws: { error in
            guard let error = error as? RunError else { return false }
            return error.code == .invalidInput && !error.findings.isEmpty
        }
        #expect(try JournalReader(path: bad.store.journalPath).latestRunID() == nil)
    }
}

/// A scratch folder with a corpus and a matrix over the `test` registry (locales en and de), removed at the end.
struct Fixture {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fm-runapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
    }

    /// A scenario whose steps tap test-registry targets (`target` or `target:arg`).
    func scenario(_ id: String, _ targets: [String]) throws {
        let steps = targets.map { target in
            let parts = target.split(separator: ":", maxSplits: 1)
            let arg = parts.count > 1 ? #", "arg": "\#(parts[1])""# : ""
            return #"{"verb": "tap", "target": "\#(parts[0])"\#(arg)}"#
        }.joined(separator: ", ")
        let text = #"{"id": "\#(id)", "title": "\#(id)", "steps": [\#(steps)]}"#
        try Data(text.utf8).write(to: root.appendingPathComponent("corpus/\(id).json"))
    }

    /// A request for the matrix, with one `test-worker` of 2 slots.
    func request(retries: Int = 0) throws -> RunRequest {
        let matrix = """
            {"name": "run-api", "corpus": "corpus", "registry": "test", "policy": {"retries": \(retries), "timeout": 30,
             "seed": 7}, "axes": {"locale": ["en", "de"]}}
            """
        let path = root.appendingPathComponent("m.json")
        try Data(matrix.utf8).write(to: path)
        var request = RunRequest(matrixPath: path.path, store: RunStore(root: root.appendingPathComponent("store")))
        request.localWorkers = LocalWorkerOptions(
            count: 1, slots: 2, launch: WorkerLaunch(executable: Self.testWorker, hostedRegistries: ["test", "noop"]))
        request.localWorkers?.quiet = true
        return request
    }

    /// `test-worker`, built beside the test bundle by `swift build --build-tests`.
    static var testWorker: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("test-worker")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.appendingPathComponent(".build/debug/test-worker")
    }

    func cleanUp() { try? FileManager.default.removeItem(at: root) }
}

/// The names of the events a run said, in order.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])

    func append(_ event: RunEvent) {
        let name: String = switch event {
        case .planning: "planning"
        case .planned: "planned"
        case .resuming: "resuming"
        case .serving: "serving"
        case .notice: "notice"
        case .journalWriteFailed: "journalWriteFailed"
        case .journalFailed: "journalFailed"
        case .served: "served"
        case .writingReports: "writingReports"
        case .reportsWritten: "reportsWritten"
        }
        // Notices (a worker's hello, a reconnect) depend on timing: the order of the phases does not.
        if name != "notice" { events.withLock { $0.append(name) } }
    }

    var names: [String] { events.withLock { $0 } }
}

/// A report step that records which runs it was asked for.
final class RecordingReports: RunReporting {
    private let calls = Mutex<[String]>([])

    func write(runID: String, store: RunStore) -> RunReportNote {
        calls.withLock { $0.append(runID) }
        return RunReportNote(line: "reported \(runID)")
    }

    var runIDs: [String] { calls.withLock { $0 } }
}

/// A live view that records what the run asked of it and counts the jobs its observer saw end.
final class RecordingLiveView: RunLiveView, RunObserver {
    private struct State {
        var calls: [String] = []
        var observed = 0
    }

    private let state = Mutex(State())

    func start(runID: String, jobs: Int, journalPath: String) async throws -> any RunObserver {
        // The run and its jobs are committed before the live view starts (it draws from the journal).
        let journaled = try JournalReader(path: journalPath).jobs(run: runID).count
        state.withLock { $0.calls.append("start \(runID) \(jobs) jobs, \(journaled) journaled") }
        return self
    }

    func onRunEvents(_ events: RunEvents) {
        state.withLock { $0.observed += events.finished.count }
    }

    func finish(reportFolder: URL) async {
        let path = reportFolder.pathComponents.suffix(2).joined(separator: "/")
        state.withLock { $0.calls.append("finish \(path)") }
    }

    func stop() { state.withLock { $0.calls.append("stop") } }

    var calls: [String] { state.withLock { $0.calls } }
    var observed: Int { state.withLock { $0.observed } }
}

/// A shard that keeps the plan's first `count` jobs.
struct FirstJobs: PlanShard {
    var count: Int

    func apply(to plan: inout Plan) -> [String: Any] {
        plan.jobs = Array(plan.jobs.prefix(count))
        return ["kept": count]
    }
}

/// A live view whose server cannot start.
struct FailingLiveView: RunLiveView {
    func start(runID: String, jobs: Int, journalPath: String) async throws -> any RunObserver {
        throw RunError(.io, "cannot serve the live view")
    }

    func finish(reportFolder: URL) async {}
    func stop() {}
}
