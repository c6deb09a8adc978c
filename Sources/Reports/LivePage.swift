import Artifacts
import FlowVocabulary
import Foundation
import Journal

/// The live view's pieces (docs/REPORTS.md, "Live view"): `report.html` of a run still going — the same page as the
/// static report, drawn from what the journal has committed, plus a live section and `live.js`, which keeps it
/// current from a server-sent event stream — and the parts that stream refreshes. Rendered on the caller's thread
/// (never a loop thread: a 100,000-job page takes a fraction of a second).
public enum LivePage {
    /// The page (UTF-8): run, live section, heat map, failures by axis, jobs that did not pass.
    /// - Throws: ``ReportError`` `.unknownRun` (the run is not committed yet), or the journal's error.
    public static func html(runID: String, reader: JournalReader) throws -> [UInt8] {
        let index = try RunIndex(runID: runID, reader: reader, failures: true)
        let pivot = try AxisPivot.compute(index)
        let out = ReportOutput()
        let failures = Dictionary(uniqueKeysWithValues: index.failing.map {
            ($0.position, JUnitReport.failureText(step: $0.step, steps: [], message: $0.message))
        })
        // The live view always draws one cell per job (docs/REPORTS.md).
        var page = HTMLReport(index: index, pivot: pivot, diff: nil, warnings: [], failures: failures,
                              chunkCount: chunkCount(jobs: index.jobCount), layout: try HeatMapLayout(index))
        page.live = true
        page.write(to: out)
        return out.bytes
    }

    /// The "Failures by axis" section (`<section id="pivot">…</section>`, escaped like the page) of the jobs final
    /// so far.
    public static func pivotSection(runID: String, reader: JournalReader) throws -> String {
        let index = try RunIndex(runID: runID, reader: reader)
        return HTMLReport(index: index, pivot: try AxisPivot.compute(index), diff: nil, warnings: [], failures: [:],
                          chunkCount: 1).pivotSection()
    }

    /// The chunk script `data/jobs-NNN.js` as the journal has it now (steps of running attempts included once
    /// journaled; artifacts listed), or nil when `n` is not a chunk of this run.
    /// - Parameters:
    ///   - jobs: the run's job count (which sets the number of chunks, as in the page).
    ///   - screenshot: the live pack (``screenshotPack(_:sha256:store:)``) that carries an image artifact of a job
    ///     that did not pass, or nil: the panel then lists the artifact as not carried (every other artifact too).
    public static func chunk(_ n: Int, jobs: Int, runID: String, reader: JournalReader,
                             screenshot: (ArtifactReference) -> Int? = { _ in nil }) throws -> [UInt8]? {
        let count = chunkCount(jobs: jobs)
        guard (0..<count).contains(n), let run = try reader.run(runID) else { return nil }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var axisNames = Set<String>()
        var details: [(JobDetail, [AxisValue])] = []
        try reader.forEachJob(run: runID) { detail in
            let axes = AxisValue.parse(configuration: detail.row.job.configuration, json: detail.row.job.configurationJSON)
            for value in axes { axisNames.insert(value.axis) }
            if JobChunks.chunk(of: detail.row.job.jobID, count: count) == n { details.append((detail, axes)) }
        }
        let chunks = try JobChunks(folder: folder, jobs: jobs, axes: axisNames.sorted(), start: run.info.startedAt)
        for (detail, axes) in details {
            let job = JobReport(detail, axes: axes)
            var carried = BlobCarrier.Carried()
            if ArtifactSelection.notPassed.includes(job.status) {
                carried.places = job.attempts.map { attempt in
                    attempt.artifacts.map { ref in
                        guard ArtifactKind(mediaType: ref.mediaType, name: ref.name) == .image,
                              ref.rawSize <= maxScreenshotSize, let pack = screenshot(ref) else { return nil }
                        return .success(BlobCarrier.Place(pack: pack, index: 0))
                    }
                }
            }
            chunks.add(job, carried: carried)
        }
        let files = try chunks.finish()
        return try Array(Data(contentsOf: files[n]))
    }

    /// The largest screenshot a live panel shows (decompressed size; larger ones wait for the written report).
    public static let maxScreenshotSize = 8 << 20

    /// The live pack script `blobs/pack-N.js` of one screenshot: `FM.pack(N,["<Z85 of its .gz>"]);`, the static
    /// report's pack format with one blob (the page decompresses it as any carried blob). Nil when the store does not
    /// have the blob, it is corrupt, or its compressed bytes exceed ``maxScreenshotSize``.
    /// - Parameter root: the store directory that holds `blobs/` (`.flowmatrix`), or the `blobs` directory itself.
    public static func screenshotPack(_ n: Int, sha256: String, store root: URL) -> [UInt8]? {
        guard let store = ReportWriter.storeRoot(root).flatMap({ try? BlobStore(root: $0, syncToDisk: false) }),
              let bytes = try? store.compressedBytes(sha256, maxSize: maxScreenshotSize)
        else { return nil }
        return Array("FM.pack(\(n),[\n\"".utf8) + Z85.encode(bytes) + Array("\"\n]);\n".utf8)
    }

    /// The number of chunk files of a run of `jobs` jobs.
    public static func chunkCount(jobs: Int) -> Int {
        JobChunks.count(jobs: jobs)
    }

    /// The page's name for a job's status (`failed`, `timedOut`, …; `notRun` without a final outcome).
    public static func status(_ outcome: JobOutcome?) -> String {
        switch outcome {
        case .passed: CellStatus.passed.rawValue
        case .failed: CellStatus.failed.rawValue
        case .flaky: CellStatus.flaky.rawValue
        case .timedOut: CellStatus.timedOut.rawValue
        case .quarantined: CellStatus.quarantined.rawValue
        case .cancelled, .notRun, nil: CellStatus.notRun.rawValue
        }
    }

    /// `text` as a JSON string literal safe inside HTML and event streams (`<`, `>`, `&` escaped; bidirectional
    /// controls shown), the same escaping as the page's data.
    public static func jsonString(_ text: String) -> String { JSONText.pageString(text) }

    /// `live.js`: the event-stream client that updates the page's cells, counts, pivot and workers.
    public static var script: String { LiveAssets.script }
}
