import Artifacts
import Foundation
import Journal

/// Tunables of a report, with documented defaults.
public struct ReportSettings: Sendable, Hashable {
    /// Which jobs' artifacts are decompressed into `artifacts/` (default: jobs that did not pass).
    public var artifacts: ArtifactSelection
    /// How `junit.xml` groups test cases (default: one suite per scenario).
    public var junitGrouping: JUnitGrouping
    /// Relative duration growth that the baseline section counts as a regression (default 0.2 = 20 %).
    public var durationThreshold: Double
    /// The largest decompressed artifact extracted, in bytes (default 64 MiB); larger ones are noted, not copied.
    public var maxArtifactSize: Int
    /// The most bytes of a JSON or text artifact shown inline in a job panel (default 64 KiB).
    public var inlineLimit: Int

    /// The most panels of jobs that did not pass written into `report.html` (default 2,000, in plan order); the
    /// panels of the others, like those of passed and not-run jobs, are built from the page's data island when opened.
    public var pagePanels: Int

    public init(
        artifacts: ArtifactSelection = .notPassed, junitGrouping: JUnitGrouping = .scenario, durationThreshold: Double = 0.2,
        maxArtifactSize: Int = 64 << 20, inlineLimit: Int = 64 << 10, pagePanels: Int = 2_000
    ) {
        self.pagePanels = pagePanels
        self.artifacts = artifacts
        self.junitGrouping = junitGrouping
        self.durationThreshold = durationThreshold
        self.maxArtifactSize = maxArtifactSize
        self.inlineLimit = inlineLimit
    }
}

/// What ``ReportWriter/write(runID:reader:blobsRoot:into:baseline:settings:)`` wrote.
public struct ReportFiles: Sendable, Hashable {
    public var folder: URL
    public var html: URL
    public var junit: URL
    public var summary: URL
    /// Decompressed artifacts under `folder/artifacts/`.
    public var artifacts: [URL]
    /// The baseline run compared against, when one was asked for.
    public var baselineRunID: String?
    /// The comparison with the baseline run.
    public var diff: RunDiff?
    /// Problems that did not stop the report (a blob missing from the store…), one sentence each.
    public var warnings: [String]
    /// Seconds spent per phase, in order: `load`, `artifacts`, `pivot`, `report.html`, `junit.xml`, `summary.json`
    /// (`diff` too with a baseline).
    public var timings: [Timing] = []

    /// Time spent in one phase of writing a report.
    public struct Timing: Sendable, Hashable {
        public var phase: String
        public var seconds: Double
    }
}

/// Writes a run's `report.html`, `junit.xml`, `summary.json` and extracted artifacts into a folder.
public enum ReportWriter {
    /// Writes the report of run `runID`.
    /// - Parameters:
    ///   - reader: the journal.
    ///   - blobsRoot: the store directory that holds `blobs/` (`.flowmatrix`), or the `blobs` directory itself.
    ///     Nothing is created there; a missing store only means no artifact can be extracted (a warning).
    ///   - folder: the output folder (`.flowmatrix/runs/<run-id>`), created if needed. Its `artifacts/` is replaced.
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
        let report = try RunReport.load(runID: runID, reader: reader)
        lap("load")
        var diff: RunDiff?
        if let baseline {
            let base = try resolveBaseline(baseline, for: runID, reader: reader)
            diff = try RunDiff.compute(reader: reader, base: base, head: runID, durationThreshold: settings.durationThreshold)
            lap("diff")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ReportError(code: .output, message: "cannot create \(folder.path): \(error.localizedDescription)")
        }
        var warnings: [String] = []
        let store = storeRoot(blobsRoot).flatMap { try? BlobStore(root: $0, syncToDisk: false) }
        if store == nil && report.jobs.contains(where: { $0.attempts.contains { !$0.artifacts.isEmpty } }) {
            warnings.append("no blob store at \(blobsRoot.path): artifacts are listed but not extracted")
        }
        let export = ArtifactExport(store: store, folder: folder, selection: settings.artifacts,
                                    maxArtifactSize: settings.maxArtifactSize, inlineLimit: settings.inlineLimit)
        let exported: (artifacts: [ArtifactExport.Key: ExportedArtifact], files: [URL], warnings: [String])
        do {
            exported = try export.run(report)
        } catch let error as ReportError {
            throw error
        } catch {
            throw ReportError(code: .output, message: "cannot write artifacts into \(folder.path): \(error.localizedDescription)")
        }
        warnings += exported.warnings
        lap("artifacts")
        let pivot = AxisPivot.compute(report)
        lap("pivot")
        var files = ReportFiles(
            folder: folder, html: folder.appendingPathComponent("report.html"),
            junit: folder.appendingPathComponent("junit.xml"), summary: folder.appendingPathComponent("summary.json"),
            artifacts: exported.files, baselineRunID: diff?.base, diff: diff, warnings: warnings
        )
        // Each file is streamed to disk as it is rendered.
        let html = try ReportOutput(file: files.html)
        HTMLReport(report: report, pivot: pivot, artifacts: exported.artifacts, diff: diff, warnings: warnings,
                   pagePanels: settings.pagePanels).write(to: html)
        try html.finish()
        lap("report.html")
        let junit = try ReportOutput(file: files.junit)
        JUnitReport.write(report, grouping: settings.junitGrouping, to: junit)
        try junit.finish()
        lap("junit.xml")
        let summary = try ReportOutput(file: files.summary)
        try SummaryDocument(report: report, pivot: pivot, artifacts: exported.artifacts, diff: diff).write(to: summary)
        try summary.finish()
        lap("summary.json")
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
