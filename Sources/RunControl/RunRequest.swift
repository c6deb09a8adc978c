import Coordinator
import FlowVocabulary
import Foundation
import Journal
import MatrixPlan

/// Where a coordinator keeps its state: `journal.sqlite`, `blobs/ab/<sha256>.gz`, `runs/<run-id>/` (reports).
public struct RunStore: Sendable, Hashable {
    public var root: URL

    public init(root: URL) { self.root = root.standardizedFileURL }

    /// The store at `path`, or `.flowmatrix` in the current directory (the embedded coordinator's default).
    public init(path: String?) { self.init(root: URL(fileURLWithPath: path ?? ".flowmatrix")) }

    public var journalPath: String { root.appendingPathComponent("journal.sqlite").path }
    public var blobsRoot: URL { root }
    public func runFolder(_ runID: String) -> URL { root.appendingPathComponent("runs").appendingPathComponent(runID) }
}

/// One run for a ``RunController``: the matrix (or the run to resume), where it is stored, where the coordinator
/// listens, and the injected steps (local workers, the live view, the reports). Defaults are `flowmatrix run`'s.
public struct RunRequest: Sendable {
    /// The matrix file; nil when resuming takes the matrix the run was started with.
    public var matrixPath: String?
    public var store: RunStore
    /// A run id to finish: final jobs stay final, the rest run again.
    public var resume: String?
    /// The plan's job limit (MX025) and reduction limits.
    public var planSettings = PlanSettings()
    /// The matrix at `matrixPath` planned already with `planSettings`, used as it is (a resume plans again); nil plans
    /// it. `flowmatrix isolate` plans the source's matrix once for all its rounds: planning a 3-wise matrix again for
    /// each round took most of an isolation's time.
    public var plan: Plan?
    public var retriesOverride: Int?
    /// Stability mode: every job this many times (overrides the matrix's `policy.repeat`).
    public var repetitionsOverride: Int?
    public var seedOverride: UInt64?
    /// Keeps only a share of the plan (a shard, docs/SCALE-OUT.md).
    public var shard: (any PlanShard)?
    public var host = "127.0.0.1"
    /// 0: the kernel picks a port (``RunEvent/serving(_:)`` says which).
    public var port = 0
    /// The token workers authenticate with; nil generates one (local workers receive it in their environment).
    public var token: [UInt8]?
    public var heartbeatInterval: Duration = .seconds(2)
    /// Worker processes this run starts on loopback; nil for a coordinator that waits for its own workers.
    public var localWorkers: LocalWorkerOptions?
    /// Serves the run while it goes (the live view); nil for none.
    public var liveView: (any RunLiveView)?
    /// Writes the reports once the run is over; nil for none.
    public var reports: (any RunReporting)?

    public init(matrixPath: String?, store: RunStore) {
        self.matrixPath = matrixPath
        self.store = store
    }
}

/// The worker processes a run starts on loopback (``LocalWorkers``).
public struct LocalWorkerOptions: Sendable {
    public var count: Int
    public var slots: Int
    public var launch: WorkerLaunch
    /// Their own lines go nowhere (`run --quiet`).
    public var quiet = false

    public init(count: Int, slots: Int, launch: WorkerLaunch) {
        self.count = count
        self.slots = slots
        self.launch = launch
    }
}

/// Which worker executable to start, and how: `flowmatrix worker`, `catalog-worker`, the tests' `test-worker`, or
/// any executable built on `WorkerMain` (it takes `--connect`, `--slots`, `--name`, `--exit-after-drain`,
/// `--give-up-after` and the token in `FLOWMATRIX_TOKEN`).
public struct WorkerLaunch: Sendable, Hashable {
    public var executable: URL
    /// Arguments before the connection flags (`["worker"]` for `flowmatrix`).
    public var leadingArguments: [String]
    /// Arguments after them (`--registry <name>`, `--allow-commands`).
    public var trailingArguments: [String]
    /// The registries it hosts: a matrix needing another one is refused before the run starts. nil: not known,
    /// not checked (a job whose registry no worker hosts waits).
    public var hostedRegistries: Set<String>?
    /// Set in the workers' environment over this process's (the run adds the site a matrix names for its `web`
    /// registry: `FLOWMATRIX_WEB_ROOT`, `FLOWMATRIX_WEB_PAGES`).
    public var environment: [String: String] = [:]

    public init(executable: URL, leadingArguments: [String] = [], trailingArguments: [String] = [],
                hostedRegistries: Set<String>?) {
        self.executable = executable
        self.leadingArguments = leadingArguments
        self.trailingArguments = trailingArguments
        self.hostedRegistries = hostedRegistries
    }
}

/// Keeps a share of a plan's jobs (a shard) and says what the run's settings record about it.
public protocol PlanShard: Sendable {
    /// Keeps this share's jobs of `plan`. - Returns: the record stored under ``settingsKey`` in the run's settings.
    func apply(to plan: inout Plan) -> [String: Any]
    /// The member of the run's settings that holds the record (`shard`; `isolates` for `flowmatrix isolate`'s
    /// follow-up runs, which replace the plan's jobs).
    var settingsKey: String { get }
}

extension PlanShard {
    public var settingsKey: String { "shard" }
}

/// A live view of the run: started once the run and its jobs are committed to the journal.
///
/// Implementation requirements: `start` returns the observer the coordinator feeds (it must never block, see
/// `RunObserver`); `finish` is called after the reports are written and may keep serving them for a while (it
/// returns when done); `stop` is called once when the run ends, whether or not `finish` was.
public protocol RunLiveView: Sendable {
    func start(runID: String, jobs: Int, journalPath: String) async throws -> any RunObserver
    func finish(reportFolder: URL) async
    func stop()
}

/// The reports written at the end of a run (`flowmatrix run` writes report.html, junit.xml and summary.json with
/// the Reports module; a library user can do the same, or nothing).
public protocol RunReporting: Sendable {
    /// Writes the reports of `runID` from the store's journal and blobs; never throws: the note says what failed.
    func write(runID: String, store: RunStore) -> RunReportNote
}

/// What writing the reports said: a line for the person (where they are, or why they are not) and warnings.
public struct RunReportNote: Sendable, Hashable {
    public var line: String?
    public var warnings: [String]
    /// Jobs whose step pictures changed under `policy.visual.onChange: fail` (docs/VISUAL.md): they fail the run.
    public var visualFailures = 0
    /// Jobs the journal now records as failed because of a visual change, by the outcome each had before (`passed`,
    /// `flaky`): the run's counts move them to `failed` (``RunProgress/applyVisualVerdicts(_:)``).
    public var visualVerdicts: [JobOutcome: Int] = [:]

    public init(line: String?, warnings: [String] = []) {
        self.line = line
        self.warnings = warnings
    }
}

/// What a running ``RunController`` says, in order. Every phase says when it starts and how long it took.
public enum RunEvent: Sendable {
    case planning(matrixPath: String)
    case planned(jobs: Int, seconds: Double)
    case resuming(runID: String, alreadyFinal: Int, toRun: Int)
    /// The coordinator listens and the local workers are started: from here the run can be stopped.
    case serving(ServingRun)
    /// A coordinator notice (a worker refused, a bound broken).
    case notice(String)
    /// A batch of the coordinator's records was refused by the journal writer (it has failed or is closed).
    case journalWriteFailed(String)
    /// The journal cannot be written: dispatching stopped, in-flight jobs finish.
    case journalFailed(runID: String, error: JournalError)
    /// Every job is final (or the run was stopped): the progress the coordinator ended with.
    case served(final: RunProgress, elapsed: Duration)
    case writingReports
    case reportsWritten(seconds: Double, note: RunReportNote)
}

/// The run being served, as ``RunEvent/serving(_:)`` hands it out.
public struct ServingRun: Sendable {
    public var runID: String
    public var matrixName: String
    public var jobs: Int
    /// Jobs already final before this session (resume).
    public var alreadyFinal: Int
    public var host: String
    public var port: Int
    public var localWorkers: Int
    /// When serving started (the run's elapsed time counts from here).
    public var started: ContinuousClock.Instant
    /// The coordinator's latest progress.
    public let progress: @Sendable () -> RunProgress
}
