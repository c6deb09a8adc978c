import Artifacts
import FlowSpec
import Foundation
import Journal
import Visual

/// The store's baselines: `baselines/manifest.json` under the store folder (`.flowmatrix`), the pictures themselves
/// blobs of the content-addressed store (`blobs/`), so a picture accepted from a run costs no copy.
public struct BaselineStore: Sendable {
    public let root: URL
    public let blobs: BlobStore

    /// - Parameter root: the store folder (`.flowmatrix`).
    /// - Throws: ``BaselineError`` `.io` when the blob store cannot be opened.
    public init(root: URL) throws {
        self.root = root
        do {
            blobs = try BlobStore(root: root)
        } catch {
            throw BaselineError(code: .io, message: "cannot open the blob store at \(root.path): \(error)")
        }
    }

    public var manifestURL: URL { root.appendingPathComponent("baselines").appendingPathComponent(BaselineManifest.fileName) }

    /// The baselines by key (none before the first accept).
    public func load() throws -> [BaselineKey: BaselineEntry] {
        guard FileManager.default.fileExists(atPath: manifestURL.path) else { return [:] }
        let manifest = try BaselineManifest.read(manifestURL)
        return Dictionary(manifest.entries.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
    }

    func save(_ entries: [BaselineKey: BaselineEntry]) throws {
        try BaselineManifest(entries: Array(entries.values)).write(manifestURL)
    }

    /// Which steps an accept or reject touches: a scenario (nil: all) and `axis=value` conditions (all must hold).
    public struct Selection: Sendable, Hashable {
        public var scenario: String?
        public var conditions: [String: String]

        public init(scenario: String? = nil, conditions: [String: String] = [:]) {
            self.scenario = scenario
            self.conditions = conditions
        }

        public func selects(_ key: BaselineKey) -> Bool {
            (scenario == nil || key.scenario == scenario) && key.matches(conditions)
        }
    }

    /// What an accept did.
    public struct AcceptSummary: Sendable, Hashable {
        /// Steps whose baseline is now this run's picture (new ones and ones that moved).
        public var accepted = 0
        /// Steps whose baseline already was this run's picture.
        public var unchanged = 0
        /// Jobs selected that kept no picture (e.g. passing jobs under `keep: failures`).
        public var jobsWithoutPictures = 0
    }

    /// Makes the selected jobs' step pictures of `runID` their baselines; a step whose picture moved is re-baselined,
    /// the others keep theirs.
    /// - Throws: ``BaselineError`` `.nothingToAccept` when the run is unknown or no selected step has a picture.
    @discardableResult
    public func accept(runID: String, reader: JournalReader, selection: Selection = Selection(), now: Date = Date())
        throws -> AcceptSummary {
        guard try reader.run(runID, countingOutcomes: false) != nil else {
            throw BaselineError(code: .nothingToAccept, message: "no run '\(runID)' in the journal ('flowmatrix runs' lists them)")
        }
        var entries = try load()
        var summary = AcceptSummary()
        var selectedJobs = 0
        let stamp = ISO8601DateFormatter().string(from: now)
        try reader.forEachJob(run: runID) { detail in
            let job = detail.row.job
            let probe = BaselineKey(registry: job.registry, scenario: job.scenarioID, configuration: job.configuration, step: 1)
            guard selection.selects(probe) else { return }
            selectedJobs += 1
            guard let pictures = StepPictures(detail) else {
                summary.jobsWithoutPictures += 1
                return
            }
            for picture in pictures.pictures {
                let key = pictures.key(step: picture.step)
                if entries[key]?.sha256 == picture.sha256 {
                    summary.unchanged += 1
                    continue
                }
                let image = try decode(blob: picture.sha256, what: "step \(picture.step) of job \(job.jobID)")
                entries[key] = BaselineEntry(key: key, sha256: picture.sha256, width: image.width, height: image.height,
                                             acceptedFrom: runID, acceptedAt: stamp)
                summary.accepted += 1
            }
        }
        guard summary.accepted + summary.unchanged > 0 else {
            let why = selectedJobs == 0 ? "no job of run \(runID) matches the selection"
                : "the \(selectedJobs) selected job(s) of run \(runID) kept no step picture (set policy.keep to 'all', "
                    + "the default with policy.visual, and run again)"
            throw BaselineError(code: .nothingToAccept, message: why)
        }
        try save(entries)
        return summary
    }

    /// Removes the selected baselines; returns how many.
    @discardableResult
    public func reject(_ selection: Selection) throws -> Int {
        var entries = try load()
        let removed = entries.keys.filter(selection.selects)
        for key in removed { entries[key] = nil }
        if !removed.isEmpty { try save(entries) }
        return removed.count
    }

    /// The PNG bytes of a blob.
    public func png(blob sha256: String) throws -> [UInt8] {
        do {
            return try blobs.read(sha256, maxSize: 256 << 20)
        } catch {
            throw BaselineError(code: .io, message: "cannot read picture \(sha256) from the blob store: \(error)")
        }
    }

    /// A blob's picture, decoded.
    func decode(blob sha256: String, what: String) throws -> VisualImage {
        do {
            return try PNGDecoder.decode(try png(blob: sha256))
        } catch let error as VisualError {
            throw BaselineError(code: .corruptImage, message: "the picture of \(what) is not a readable PNG: \(error.message)")
        }
    }

    /// Stores PNG bytes as a gzip blob; returns its hash.
    public func storeBlob(_ png: [UInt8], name: String) throws -> String {
        do {
            let compressed = try GzipBlob.compress(png)
            try blobs.store(CompressedArtifact(name: name, mediaType: "image/png", stepIndex: 0, sha256: compressed.sha256,
                                               rawSize: png.count, compressed: compressed.bytes))
            return compressed.sha256
        } catch {
            throw BaselineError(code: .io, message: "cannot store \(name) in the blob store: \(error)")
        }
    }
}

extension BaselineStore {
    /// The blobs baselines and visual results hold on to, which `gc` must keep: the manifest's pictures and the
    /// baseline, current and diff pictures every `runs/*/visual.json` names.
    public func referencedBlobs(runsFolder: URL) throws -> Set<String> {
        var hashes = Set(try load().values.map(\.sha256))
        let runs = (try? FileManager.default.contentsOfDirectory(atPath: runsFolder.path)) ?? []
        for run in runs {
            guard let results = try? VisualRunResults.read(in: runsFolder.appendingPathComponent(run)) else { continue }
            for job in results.jobs {
                for step in job.changes { hashes.formUnion([step.baseline, step.current] + (step.diff.map { [$0] } ?? [])) }
            }
        }
        return hashes
    }
}
