import FlowSpec
import Foundation
import Journal
import MatrixPlan
import Visual
import Wireframe

/// Compares every step picture of a run with its baseline (docs/VISUAL.md): equal blob hashes cost nothing; otherwise
/// both PNGs are decoded and compared perceptually (``PixelCompare``) with the matrix's `policy.visual`, masks taken
/// from the step's element boxes. Each change's diff image is stored as a blob, and the three pictures are written to
/// the run folder's `visual/` for the report; the results go to `visual.json` (``VisualRunResults``).
public enum VisualCheck {
    /// The policy a run was started with (its journaled settings), or ``VisualPolicy/reportOnly``.
    public static func policy(settingsJSON: String) -> VisualPolicy {
        guard let object = try? JSONSerialization.jsonObject(with: Data(settingsJSON.utf8)) as? [String: Any],
              let visual = object[MatrixFile.visualSettingsKey],
              let data = try? JSONSerialization.data(withJSONObject: visual),
              let policy = VisualPolicy(json: data) else { return .reportOnly }
        return policy
    }

    /// Compares run `runID`'s pictures with the store's baselines and writes `visual.json` (and `visual/`) into
    /// `folder`. Returns nil, writing nothing, when the store has no baselines.
    /// - Throws: ``BaselineError`` for an unreadable manifest or an unwritable folder; journal errors.
    @discardableResult
    public static func run(runID: String, reader: JournalReader, store: BaselineStore, folder: URL) throws
        -> VisualRunResults? {
        let baselines = try store.load()
        guard !baselines.isEmpty, let info = try reader.run(runID, countingOutcomes: false) else { return nil }
        let clock = ContinuousClock(), started = clock.now
        let policy = policy(settingsJSON: info.info.settingsJSON)
        var results = VisualRunResults(runID: runID, onChange: policy.onChange.rawValue)
        var writer = PictureFiles(folder: folder.appendingPathComponent("visual"), store: store)
        try reader.forEachJob(run: runID) { detail in
            guard let pictures = StepPictures(detail) else { return }
            var job = VisualRunResults.Job(jobID: pictures.job.jobID, registry: pictures.job.registry,
                                           scenarioID: pictures.job.scenarioID, configuration: pictures.job.configuration,
                                           comparedSteps: 0, changes: [])
            job.attempt = pictures.attempt
            for picture in pictures.pictures {
                guard let baseline = baselines[pictures.key(step: picture.step)] else {
                    results.newSteps += 1
                    continue
                }
                job.comparedSteps += 1
                results.comparedSteps += 1
                if baseline.sha256 == picture.sha256 {
                    results.equalSteps += 1
                    continue
                }
                if var change = try compare(baseline: baseline, picture: picture, policy: policy, store: store) {
                    try writer.attach(&change)
                    job.changes.append(change)
                }
            }
            VisualVerdicts.decide(&job, detail: detail, policy: policy)
            if job.comparedSteps > 0 { results.jobs.append(job) }
        }
        let elapsed = (clock.now - started).components
        results.milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        do {
            try results.write(in: folder)
        } catch {
            throw BaselineError(code: .io, message: "cannot write \(folder.path)/visual.json: \(FileErrorText.reason(error))")
        }
        return results
    }

    /// The change between a step's baseline and its picture, or nil when they match within the policy.
    static func compare(baseline: BaselineEntry, picture: StepPictures.Picture, policy: VisualPolicy,
                        store: BaselineStore) throws -> VisualRunResults.Step? {
        var step = VisualRunResults.Step(step: picture.step, kind: "changed", differentPixels: 0, totalPixels: 0,
                                         baseline: baseline.sha256, current: picture.sha256)
        let before: VisualImage, after: VisualImage
        do {
            before = try PNGDecoder.decode(try store.png(blob: baseline.sha256))
            after = try PNGDecoder.decode(try store.png(blob: picture.sha256))
        } catch {
            step.kind = "unreadable"
            step.message = "\(error)"
            return step
        }
        guard before.width == after.width, before.height == after.height else {
            step.kind = "size"
            step.totalPixels = after.pixelCount
            step.differentPixels = after.pixelCount
            step.message = "the picture is \(after.width) × \(after.height); its baseline is \(before.width) × \(before.height)"
            return step
        }
        let comparison = try PixelCompare.compare(before, after, settings: try settings(policy, picture, store: store),
                                                  drawDiff: true)
        guard policy.isChange(differentPixels: comparison.differentPixels, totalPixels: comparison.totalPixels) else {
            return nil
        }
        step.differentPixels = comparison.differentPixels
        step.totalPixels = comparison.totalPixels
        if let diff = comparison.diff {
            step.diff = try store.storeBlob(try PNGWriter.encode(rgba: diff.rgba, width: diff.width, height: diff.height),
                                            name: "diff.png")
        }
        return step
    }

    /// The compare settings for one step: the policy's tolerances, its rectangles and its identifiers' boxes.
    static func settings(_ policy: VisualPolicy, _ picture: StepPictures.Picture, store: BaselineStore) throws
        -> VisualCompareSettings {
        var masks: [MaskRect] = []
        for mask in policy.masks {
            if case .rect(let x, let y, let width, let height) = mask {
                masks.append(MaskRect(x: x, y: y, width: width, height: height))
            }
        }
        let identifiers = policy.maskIdentifiers
        if !identifiers.isEmpty, let elements = picture.elements {
            // A missing or unreadable element list masks nothing: the step is compared whole.
            let bytes = (try? store.blobs.read(elements, maxSize: 64 << 20)) ?? []
            masks += ElementBoxes(json: bytes).masks(for: identifiers)
        }
        return VisualCompareSettings(threshold: policy.threshold, includeAntiAliasing: policy.includeAntiAliasing,
                                     masks: masks)
    }
}

/// The pictures of changes as files of the run folder (`visual/<hash>.png`), each written once.
struct PictureFiles {
    let folder: URL
    let store: BaselineStore
    private var written = Set<String>()

    init(folder: URL, store: BaselineStore) {
        self.folder = folder
        self.store = store
    }

    mutating func attach(_ step: inout VisualRunResults.Step) throws {
        step.baselineFile = try write(step.baseline)
        step.currentFile = try write(step.current)
        step.diffFile = try step.diff.flatMap { try write($0) }
    }

    private mutating func write(_ sha256: String) throws -> String? {
        let name = "visual/\(sha256.prefix(16)).png"
        if written.contains(sha256) { return name }
        guard let png = try? store.png(blob: sha256) else { return nil }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(png).write(to: folder.appendingPathComponent("\(sha256.prefix(16)).png"), options: .atomic)
        } catch {
            throw BaselineError(code: .io, message: "cannot write \(folder.path): \(FileErrorText.reason(error))")
        }
        written.insert(sha256)
        return name
    }
}
