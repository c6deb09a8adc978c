import Artifacts
import Foundation
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

    public init(
        artifacts: ArtifactSelection = .notPassed, junitGrouping: JUnitGrouping = .scenario, durationThreshold: Double = 0.2,
        maxArtifactSize: Int = 64 << 20
    ) {
        self.artifacts = artifacts
        self.junitGrouping = junitGrouping
        self.durationThreshold = durationThreshold
        self.maxArtifactSize = maxArtifactSize
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
    /// Seconds spent per phase, in order: `index`, (`diff` with a baseline), `pivot`, `jobs` (chunks, blobs,
    /// summary.json and the test cases, streamed together), `junit.xml`, `report.html`.
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
        var timings: [ReportFiles.Timing] = []
        let clock = ContinuousClock()
        var mark = clock.now
        func lap(_ phase: String) {
            let now = clock.now
            let elapsed = (now - mark).components
            timings.append(ReportFiles.Timing(phase: phase, seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18))
            mark = now
        }
        let index = try RunIndex(runID: runID, reader: reader)
        lap("index")
        var diff: RunDiff?
        if let baseline {
            let base = try resolveBaseline(baseline, for: runID, reader: reader)
            diff = try RunDiff.compute(reader: reader, base: base, head: runID, durationThreshold: settings.durationThreshold)
            lap("diff")
        }
        // Stability mode: the pivot counts repetitions of configurations, so it leaves the repetition axis out.
        var stability = Stability.compute(index)
        let pivot = AxisPivot.compute(index, excluding: stability == nil ? [] : [Repetitions.axis])
        if let s = stability {
            // Where flakiness concentrates: the same pivot without the jobs that failed every repetition.
            let flakePivot = AxisPivot.compute(index, excluding: [Repetitions.axis], skipped: s.failedEveryPositions(in: index),
                                               flakyFails: true)
            stability?.headline = s.headline(flakePivot: flakePivot)
            stability?.patterns = flakePivot.explanations
        }
        lap("pivot")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for old in ["artifacts", "blobs", "data"] {
                let url = folder.appendingPathComponent(old)
                if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            }
        } catch {
            throw ReportError(code: .output, message: "cannot prepare \(folder.path): \(error.localizedDescription)")
        }
        var warnings: [String] = []
        let store = storeRoot(blobsRoot).flatMap { try? BlobStore(root: $0, syncToDisk: false) }
        var files = ReportFiles(
            folder: folder, html: folder.appendingPathComponent("report.html"),
            junit: folder.appendingPathComponent("junit.xml"), summary: folder.appendingPathComponent("summary.json"),
            blobs: [], chunks: [], blobBytes: 0, baselineRunID: diff?.base, diff: diff, warnings: []
        )

        // One pass in plan order: each job's panel data into its chunk, its blobs into blobs/, its summary entry.
        let carrier = try BlobCarrier(store: store, folder: folder, selection: settings.artifacts,
                                      maxArtifactSize: settings.maxArtifactSize)
        let chunks = try JobChunks(folder: folder, jobs: index.jobs.count, axes: index.axisNames,
                                   start: index.run.info.startedAt)
        let summaryOutput = try ReportOutput(file: files.summary)
        let summary = try SummaryDocument.Writer(out: summaryOutput, index: index, pivot: pivot, diff: diff,
                                                 stability: stability)
        let cases = try JUnitReport.Cases(grouping: settings.junitGrouping, multipleRegistries: index.registries.count > 1,
                                          folder: folder)
        var failures: [Int: String] = [:]
        var anyArtifact = false
        try reader.forEachJob(run: runID) { detail in
            let job = JobReport(detail, axes: index.axes(of: detail.row))
            let carried = try carrier.carry(job)
            anyArtifact = anyArtifact || !detail.artifacts.isEmpty
            chunks.add(job, carried: carried)
            cases.add(job)
            try summary.add(job) { if case .success = carried[$0] { true } else { false } }
            if job.status != .passed && job.status != .notRun {
                let result = job.row.result
                failures[detail.row.ordinal] = JUnitReport.failureText(
                    step: result?.failureStep, steps: job.decidingAttempt?.steps ?? [], message: result?.failureMessage)
            }
        }
        summary.finish()
        try summaryOutput.finish()
        files.chunks = try chunks.finish()
        try carrier.finish()
        files.blobs = carrier.files
        files.carriedBlobs = carrier.count
        files.blobBytes = carrier.compressedBytes
        if store == nil && anyArtifact {
            warnings.append("no blob store at \(blobsRoot.path): artifacts are listed but not carried")
        } else {
            warnings += carrier.warnings
        }
        lap("jobs")

        // JUnit wants its test cases suite by suite: the kept ones come back from their temporary file.
        let junit = try ReportOutput(file: files.junit)
        do {
            try JUnitReport.write(index, grouping: settings.junitGrouping, to: junit, tally: { cases.tally($0) }) { try cases.text($0) }
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(code: .output, message: "cannot write \(files.junit.path): \(error.localizedDescription)")
        }
        try junit.finish()
        lap("junit.xml")

        let html = try ReportOutput(file: files.html)
        HTMLReport(index: index, pivot: pivot, diff: diff, stability: stability, warnings: warnings, failures: failures,
                   chunkCount: chunks.count).write(to: html)
        try html.finish()
        lap("report.html")
        if let stability {
            files.stability = stability
            do {
                try stability.json().write(to: folder.appendingPathComponent("stability.json"))
            } catch {
                throw ReportError(code: .output, message: "cannot write stability.json: \(error.localizedDescription)")
            }
        }
        files.warnings = warnings
        files.timings = timings
        return files
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
