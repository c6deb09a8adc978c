import Artifacts
import FlowSpec
import Foundation
import Isolation
import Journal
import MatrixPlan

/// Tunables of a report, with documented defaults.
public struct ReportSettings: Sendable, Hashable {
    /// Which jobs' artifact blobs the report folder carries in `blobs/` (default: jobs that did not pass).
    public var artifacts: ArtifactSelection
    /// How `junit.xml` groups test cases (default: one suite per scenario).
    public var junitGrouping: JUnitGrouping
    /// Relative duration growth that the baseline section counts as a regression (default 0.2 = 20 %).
    public var durationThreshold: Double
    /// The largest artifact (decompressed size) carried, in bytes (default 64 MiB); larger ones are noted, not copied.
    public var maxArtifactSize: Int
    /// The most heat-map cells `report.html` draws one per job (job cells and empty places, default 150,000); a
    /// larger run's map has a cell per group of columns, each opening its jobs (``HeatMapGroups``).
    public var heatMapCellLimit: Int
    /// The most columns `report.html` draws (default 2,000: 48,000 px); a wider map is aggregated too (one row of
    /// 100,000 cells takes Chromium seconds to lay out, where 1,000 rows of 100 take a fraction of one).
    public var heatMapColumnLimit: Int

    public init(
        artifacts: ArtifactSelection = .notPassed, junitGrouping: JUnitGrouping = .scenario, durationThreshold: Double = 0.2,
        maxArtifactSize: Int = 64 << 20, heatMapCellLimit: Int = 150_000, heatMapColumnLimit: Int = 2_000
    ) {
        self.artifacts = artifacts
        self.junitGrouping = junitGrouping
        self.durationThreshold = durationThreshold
        self.maxArtifactSize = maxArtifactSize
        self.heatMapCellLimit = heatMapCellLimit
        self.heatMapColumnLimit = heatMapColumnLimit
    }
}

/// What ``ReportWriter/write(runID:reader:blobsRoot:into:baseline:settings:)`` wrote.
public struct ReportFiles: Sendable, Hashable {
    public var folder: URL
    public var html: URL
    public var junit: URL
    public var summary: URL
    /// The packs of blobs the folder carries (`folder/blobs/pack-NNN.js`: each blob once, compressed).
    public var blobs: [URL]
    /// Distinct blobs in the packs.
    public var carriedBlobs = 0
    /// The job panels' chunk files (`folder/data/jobs-NNN.js`).
    public var chunks: [URL]
    /// The aggregated heat map's drill-down files (`folder/data/cells-NNN.js`); empty when every job has its cell.
    public var cells: [URL] = []
    /// Bytes of the compressed blobs the folder carries (before base64).
    public var blobBytes: Int
    /// The baseline run compared against, when one was asked for.
    public var baselineRunID: String?
    /// The comparison with the baseline run.
    public var diff: RunDiff?
    /// Stability mode's figures (also in `folder/stability.json`); nil when the run has no repetitions.
    public var stability: Stability?
    /// Problems that did not stop the report (a blob missing from the store…), one sentence each.
    public var warnings: [String]
    /// Where the registries disagree, and where the time went per registry (a run on several registries).
    public var parity: Parity?
    public var registryTimes: RegistryTimes?
    /// Seconds spent per phase, in order: `index`, (`diff` with a baseline), `pivot`, `heat map` (these one after
    /// the other on one thread while the pass runs; the heat map's drill-down files are written then), `jobs` (the pass: chunks, blobs, summary entries and test cases,
    /// streamed together; from the start), `junit.xml` and `report.html` (with summary.json; on two threads at once).
    public var timings: [Timing] = []

    /// Time spent in one phase of writing a report.
    public struct Timing: Sendable, Hashable {
        public var phase: String
        public var seconds: Double
    }
}

/// Writes a run's `report.html`, `junit.xml`, `summary.json`, the job panels' chunk files and the blobs they show
/// into a folder, streaming from the journal: only a compact index of the jobs (``RunIndex``) is held; attempts,
/// steps and artifacts pass through one job at a time.
public enum ReportWriter {
    /// Writes the report of run `runID`.
    /// - Parameters:
    ///   - reader: the journal.
    ///   - blobsRoot: the store directory that holds `blobs/` (`.flowmatrix`), or the `blobs` directory itself.
    ///     Nothing is created there; a missing store only means no artifact can be carried (a warning).
    ///   - folder: the output folder (`.flowmatrix/runs/<run-id>`), created if needed. Its `blobs/` and `data/` (and
    ///     the `artifacts/` of older reports) are replaced.
    ///   - baseline: a run id, or `last` for the most recent run started before this one; nil for no comparison.
    /// - Throws: ``ReportError`` (`.unknownRun` for the run or the baseline, `.noBaseline`, `.output`) or the
    ///   journal's errors.
    @discardableResult
    public static func write(
        runID: String, reader: JournalReader, blobsRoot: URL, into folder: URL, baseline: String? = nil,
        settings: ReportSettings = ReportSettings()
    ) throws -> ReportFiles {
        let clock = ContinuousClock(), started = clock.now
        // Everything that can refuse the request does so before the folder is touched.
        guard try reader.run(runID, countingOutcomes: false) != nil else { throw ReportError.unknownRun(runID) }
        let base = try baseline.map { try resolveBaseline($0, for: runID, reader: reader) }
        try prepare(folder)
        let store = storeRoot(blobsRoot).flatMap { try? BlobStore(root: $0, syncToDisk: false) }
        // The pass reads through its own connection from the start; the index, the diff, the pivot and the heat map's
        // layout are computed meanwhile on this one (the pass's later stages wait for the index).
        let parity = try Parity.beforePass(runID: runID, reader: reader)
        let pass = try JobPass(store: store, folder: folder, settings: settings, alsoCarry: parity?.evidenceJobs ?? [])
        // The run's comparison with its visual baselines, written before the reports (docs/VISUAL.md).
        let visual = try VisualSection.read(in: folder)
        pass.visualChanges = visual.map(SummaryDocument.visualChanges) ?? [:]
        let passReader = try reader.sibling()
        let promise = Parallel.Promise<RunIndex>()
        let (front, passed) = try Parallel.both({
            try analyze(runID: runID, reader: reader, base: base, settings: settings, folder: folder, promise: promise,
                        parity: parity)
        }, { try pass.run(runID: runID, reader: passReader, index: promise) })
        var timer = front.timer
        timer.add("jobs", seconds: PhaseTimer.seconds(clock.now - started))
        var index = front.index
        (index.attemptCount, index.workers) = (passed.attemptCount, passed.workers)
        var files = ReportFiles(
            folder: folder, html: folder.appendingPathComponent("report.html"),
            junit: folder.appendingPathComponent("junit.xml"), summary: folder.appendingPathComponent("summary.json"),
            blobs: pass.carrier.files, chunks: [], blobBytes: pass.carrier.compressedBytes, baselineRunID: front.diff?.base,
            diff: front.diff, warnings: []
        )
        files.carriedBlobs = pass.carrier.count
        files.warnings = pass.carrier.warnings
        if store == nil && passed.anyArtifact {
            files.warnings = ["no blob store at \(blobsRoot.path): artifacts are listed but not carried"]
        }
        files.stability = front.stability
        // What `flowmatrix isolate` confirmed marks the patterns it matches ("confirmed by 6 follow-up jobs").
        let isolation = try readIsolation(in: folder)
        var pivot = front.pivot
        if let isolation { PivotIsolation.markConfirmed(&pivot, isolation) }
        var page = HTMLReport(index: index, pivot: pivot, diff: front.diff, stability: front.stability,
                              warnings: files.warnings, failures: passed.failures, chunkCount: passed.chunks.count,
                              layout: front.layout)
        page.baselineJobIDs = front.baselineJobIDs
        page.audit = passed.audit
        // Command jobs' tests pivoted one by one (their patterns that isolation confirmed for that test marked).
        page.testPivots = PivotIsolation.marked(passed.cases.testInputs.pivots(), isolation)
        page.isolation = isolation
        page.visual = visual
        passed.summary.visual = visual.map(SummaryDocument.VisualSummary.init)
        passed.summary.testPivots = page.testPivots
        passed.summary.isolation = isolation
        page.parity = front.parity
        (passed.summary.parity, passed.summary.parityChanges) = (front.parity, front.parityChanges)
        (page.registryTimes, passed.summary.registryTimes) = (passed.registryTimes, passed.registryTimes)
        (files.parity, files.registryTimes) = (front.parity, passed.registryTimes)
        // summary.json repeats junit.xml's counters (test cases, not jobs): the pass has counted them.
        let testCases = SummaryDocument.TestCases(passed.cases.totals)
        // Three threads: junit.xml; summary.json, report.html and stability.json; the chunks compressed.
        let ((_, junitSeconds), ((cellFiles, pageSeconds), chunkFiles)) = try Parallel.both({
            try timed { try writeJUnit(index, cases: passed.cases, grouping: settings.junitGrouping, to: files.junit) }
        }, {
            try Parallel.both({
                try timed {
                    try writeSummaryAndPage(passed.summary, page, index: index, files: files, pivot: pivot,
                                            diff: front.diff, stability: front.stability, testCases: testCases)
                }
            }, { try passed.chunks.finish() })
        })
        files.chunks = chunkFiles
        files.cells = cellFiles
        timer.add("junit.xml", seconds: junitSeconds)
        timer.add("report.html", seconds: pageSeconds)
        files.timings = timer.timings
        removeEmptyPartials(in: folder)
        return files
    }

    /// What is computed from the index while the pass runs.
    struct Front {
        var index: RunIndex
        var diff: RunDiff?
        var pivot: AxisPivot
        var stability: Stability?
        var layout: HeatMapLayout
        /// Ids of this run's jobs among the diff's entries.
        var baselineJobIDs: Set<String> = []
        var timer: PhaseTimer
        /// The registries' disagreements (a run on several registries) and their changes since the baseline.
        var parity: Parity?
        var parityChanges: ParityDiff?
    }

    /// The index (handed to the pass through `promise` as soon as it is built), the diff with the baseline run
    /// `base`, the pivot and the stability figures.
    static func analyze(runID: String, reader: JournalReader, base: String?, settings: ReportSettings, folder: URL,
                        promise: Parallel.Promise<RunIndex>, parity: Parity? = nil) throws -> Front {
        var timer = PhaseTimer()
        let index: RunIndex
        do {
            index = try RunIndex(runID: runID, reader: reader, totals: false, scratch: folder)
            promise.fulfill(.success(index))
        } catch {
            promise.fulfill(.failure(error))
            throw error
        }
        timer.lap("index")
        var diff: RunDiff?
        var baselineJobIDs = Set<String>()
        if let base {
            diff = try RunDiff.compute(reader: reader, base: base, head: runID, durationThreshold: settings.durationThreshold)
            diff?.addVisualChanges(runsFolder: folder.deletingLastPathComponent())
            if let diff { baselineJobIDs = try index.jobIDs(among: Set(diff.sections.flatMap { $0.entries.map(\.jobID) })) }
            timer.lap("diff")
        }
        let (pivot, stability) = try analyze(index)
        timer.lap("pivot")
        let layout = try HeatMapLayout(index, limits: (settings.heatMapCellLimit, settings.heatMapColumnLimit), folder: folder)
        timer.lap("heat map")
        var front = Front(index: index, diff: diff, pivot: pivot, stability: stability, layout: layout,
                          baselineJobIDs: baselineJobIDs, timer: timer)
        try Parity.analyze(&front, runID: runID, base: base, reader: reader, current: parity)
        return front
    }

    /// The pivot, and in stability mode the stability figures with their headline and patterns.
    static func analyze(_ index: RunIndex) throws -> (AxisPivot, Stability?) {
        // Stability mode: the pivot counts repetitions of configurations, so it leaves the repetition axis out.
        var stability = try Stability.compute(index)
        let pivot = try AxisPivot.compute(index, excluding: stability == nil ? [] : [Repetitions.axis])
        if let s = stability {
            // Where flakiness concentrates: the same pivot without the jobs that failed every repetition.
            let flakePivot = try AxisPivot.compute(index, excluding: [Repetitions.axis],
                                                   skipped: try s.failedEveryPositions(in: index), flakyFails: true)
            stability?.headline = s.headline(flakePivot: flakePivot)
            stability?.patterns = flakePivot.explanations
        }
        return (pivot, stability)
    }

    /// Creates the folder and removes what an earlier report left that is rewritten as a whole, and what a report
    /// killed while writing left: its `.partial` files, and the `.<name>.<uuid>.tmp` files of older versions.
    static func prepare(_ folder: URL) throws {
        let files = FileManager.default
        do {
            try files.createDirectory(at: folder, withIntermediateDirectories: true)
            for old in ["artifacts", "blobs", "data", ReportOutput.partialFolder] {
                let url = folder.appendingPathComponent(old)
                if files.fileExists(atPath: url.path) { try files.removeItem(at: url) }
            }
            for name in try files.contentsOfDirectory(atPath: folder.path) where Self.isStaleTemporary(name) {
                try files.removeItem(at: folder.appendingPathComponent(name))
            }
        } catch {
            throw ReportError(code: .output, message: "cannot prepare \(folder.path): \(FileErrorText.reason(error))")
        }
    }

    /// Whether `name` is a temporary file an older version's killed report left in the folder
    /// (`.report.html.<uuid>.tmp`, `.summary-jobs-<uuid>.tmp`).
    static func isStaleTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp") && name.count > 40
    }

    /// Removes the (now empty) `.partial` subfolders a report's files were written through; one still holding a
    /// file (another writer's) stays.
    static func removeEmptyPartials(in folder: URL) {
        for sub in ["", "data", "blobs"] {
            let partial = (sub.isEmpty ? folder : folder.appendingPathComponent(sub)).appendingPathComponent(ReportOutput.partialFolder)
            _ = rmdir(partial.path)
        }
    }

    /// `junit.xml`, suite by suite: the kept test cases come back from their scratch file.
    static func writeJUnit(_ index: RunIndex, cases: JUnitReport.Cases, grouping: JUnitGrouping, to url: URL) throws {
        let junit = try ReportOutput(file: url)
        do {
            try JUnitReport.write(index, grouping: grouping, cases: cases, to: junit, scratch: url.deletingLastPathComponent())
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(code: .output, message: "cannot write \(url.path): \(FileErrorText.reason(error))")
        }
        try junit.finish()
    }

    /// `summary.json`, `report.html` and, in stability mode, `stability.json`.
    /// - Returns: the aggregated heat map's drill-down files (written with its layout).
    static func writeSummaryAndPage(_ summary: SummaryDocument.Writer, _ page: HTMLReport, index: RunIndex,
                                    files: ReportFiles, pivot: AxisPivot, diff: RunDiff?, stability: Stability?,
                                    testCases: SummaryDocument.TestCases) throws -> [URL] {
        let summaryOutput = try ReportOutput(file: files.summary)
        try summary.finish(into: summaryOutput, index: index, pivot: pivot, diff: diff, stability: stability,
                           testCases: testCases)
        try summaryOutput.finish()
        let html = try ReportOutput(file: files.html)
        page.write(to: html)
        try html.finish()
        let cells = page.layout?.groups?.urls ?? []
        guard let stability else { return cells }
        do {
            try stability.json().write(to: files.folder.appendingPathComponent("stability.json"))
        } catch {
            throw ReportError(code: .output, message: "cannot write stability.json: \(FileErrorText.reason(error))")
        }
        return cells
    }

    /// Runs `body` and returns what it returned and the seconds it took.
    private static func timed<T>(_ body: () throws -> T) throws -> (T, Double) {
        let clock = ContinuousClock(), start = clock.now
        let value = try body()
        return (value, PhaseTimer.seconds(clock.now - start))
    }

    /// The run id a `--baseline` value names: `last` is the most recent run started before `runID`.
    /// - Throws: ``ReportError`` `.noBaseline` when `last` finds none, `.unknownRun` for an id not in the journal.
    public static func resolveBaseline(_ value: String, for runID: String, reader: JournalReader) throws -> String {
        guard value == "last" else {
            guard try reader.run(value) != nil else { throw ReportError.unknownRun(value) }
            return value
        }
        guard let current = try reader.run(runID) else { throw ReportError.unknownRun(runID) }
        let key = (current.info.startedAt, runID)
        var limit = 100
        while true {
            let runs = try reader.runs(limit: limit)
            if let previous = runs.first(where: { ($0.info.startedAt, $0.info.runID) < key }) { return previous.info.runID }
            if runs.count < limit {
                throw ReportError(code: .noBaseline, message: "no run before \(runID) to compare with (--baseline last)")
            }
            limit *= 10
        }
    }

    /// The directory holding `blobs/`: `root` itself, or its parent when `root` is the `blobs` directory. Nil when
    /// neither has one.
    static func storeRoot(_ root: URL) -> URL? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.appendingPathComponent("blobs").path, isDirectory: &isDirectory),
           isDirectory.boolValue {
            return root
        }
        if root.lastPathComponent == "blobs", FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory),
           isDirectory.boolValue {
            return root.deletingLastPathComponent()
        }
        return nil
    }
}

/// The seconds of each phase of a report.
struct PhaseTimer {
    private(set) var timings: [ReportFiles.Timing] = []
    private let clock = ContinuousClock()
    private var mark: ContinuousClock.Instant

    init() { mark = clock.now }

    /// Ends a phase that ran since the last lap.
    mutating func lap(_ phase: String) {
        let now = clock.now
        timings.append(ReportFiles.Timing(phase: phase, seconds: Self.seconds(now - mark)))
        mark = now
    }

    /// Records a phase timed elsewhere (on another thread).
    mutating func add(_ phase: String, seconds: Double) {
        timings.append(ReportFiles.Timing(phase: phase, seconds: seconds))
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
