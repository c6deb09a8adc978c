import Artifacts
import Foundation
import Journal

/// Which jobs' artifacts a report decompresses into its folder.
public enum ArtifactSelection: String, Sendable, Hashable, CaseIterable {
    /// Jobs that did not pass (failed, flaky, timed out, quarantined): the default.
    case notPassed
    /// Every stored artifact of the run.
    case all
    /// None: the report lists artifacts by hash only.
    case none

    func includes(_ status: CellStatus) -> Bool {
        switch self {
        case .all: true
        case .none: false
        case .notPassed: status != .passed && status != .notRun
        }
    }
}

/// How the report shows one artifact.
public enum ArtifactKind: String, Sendable, Hashable, Codable {
    case image, json, text, other

    /// From the media type, else the file name's extension.
    public init(mediaType: String, name: String) {
        let type = mediaType.lowercased(), lower = name.lowercased()
        if type.hasPrefix("image/") && ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(type) {
            self = .image
        } else if type == "application/json" || type.hasSuffix("+json") || lower.hasSuffix(".json") {
            self = .json
        } else if type.hasPrefix("text/") || lower.hasSuffix(".log") || lower.hasSuffix(".txt") {
            self = .text
        } else if lower.hasSuffix(".png") {
            self = .image
        } else {
            self = .other
        }
    }
}

/// An artifact as the report links it.
public struct ExportedArtifact: Sendable, Hashable {
    public var jobID: String
    public var attempt: Int
    public var reference: ArtifactReference
    public var kind: ArtifactKind
    /// Path relative to the report folder (`artifacts/<job>/a1/s3-wireframe.png`), nil when not extracted.
    public var relativePath: String?
    /// Readable content shown inline: pretty-printed JSON or the start of a log. Nil for images and others.
    public var preview: String?
    /// True when the preview is cut at the inline limit.
    public var previewTruncated: Bool
    /// Why it was not extracted (not selected, missing or corrupt blob).
    public var note: String?
}

/// Decompresses selected artifacts from the blob store into `<report folder>/artifacts/`.
struct ArtifactExport {
    var store: BlobStore?
    var folder: URL
    var selection: ArtifactSelection
    var maxArtifactSize: Int
    var inlineLimit: Int

    struct Key: Hashable { var job: String, attempt: Int, step: Int, name: String }

    /// Extracts and previews; returns every artifact of the run by key, and warnings for missing blobs.
    func run(_ report: RunReport) throws -> (artifacts: [Key: ExportedArtifact], files: [URL], warnings: [String]) {
        let root = folder.appendingPathComponent("artifacts")
        if FileManager.default.fileExists(atPath: root.path) { try FileManager.default.removeItem(at: root) }
        var out: [Key: ExportedArtifact] = [:]
        var files: [URL] = []
        var warnings: [String] = []
        for job in report.jobs {
            let selected = selection.includes(job.status)
            for attempt in job.attempts {
                var used = Set<String>()
                for ref in attempt.artifacts {
                    let key = Key(job: job.id, attempt: attempt.attempt, step: ref.stepIndex, name: ref.name)
                    var exported = ExportedArtifact(jobID: job.id, attempt: attempt.attempt, reference: ref,
                                                    kind: ArtifactKind(mediaType: ref.mediaType, name: ref.name),
                                                    relativePath: nil, preview: nil, previewTruncated: false, note: nil)
                    defer { out[key] = exported }
                    guard selected else {
                        exported.note = selection == .none ? "not extracted" : "not extracted (the job passed)"
                        continue
                    }
                    guard let store else {
                        exported.note = "no blob store"
                        continue
                    }
                    var base = "s\(ref.stepIndex)-" + Escape.fileName(ref.name)
                    var n = 2
                    while used.contains(base) { base = "s\(ref.stepIndex)-\(n)-" + Escape.fileName(ref.name); n += 1 }
                    used.insert(base)
                    let directory = "artifacts/" + Escape.fileName(job.id) + "/a\(attempt.attempt)"
                    let relative = directory + "/" + base
                    let url = folder.appendingPathComponent(relative)
                    do {
                        try FileManager.default.createDirectory(at: folder.appendingPathComponent(directory),
                                                                withIntermediateDirectories: true)
                        try store.extract(ref.sha256, to: url, maxSize: maxArtifactSize)
                    } catch let error as ArtifactError {
                        exported.note = "unavailable: \(error.message)"
                        warnings.append("artifact \(ref.name) of job \(job.id) attempt \(attempt.attempt) step \(ref.stepIndex): \(error.message)")
                        continue
                    }
                    exported.relativePath = relative
                    files.append(url)
                    if exported.kind == .json || exported.kind == .text {
                        (exported.preview, exported.previewTruncated) = preview(url, kind: exported.kind)
                    }
                }
            }
        }
        return (out, files, warnings)
    }

    /// The inline text of an extracted file: JSON pretty-printed (when it parses and fits), text cut at the limit.
    private func preview(_ url: URL, kind: ArtifactKind) -> (String?, Bool) {
        // The handle closes when it is released (FileHandle(forReadingFrom:) owns its descriptor).
        guard let handle = try? FileHandle(forReadingFrom: url) else { return (nil, false) }
        let data = (try? handle.read(upToCount: inlineLimit + 1)) ?? Data()
        let truncated = data.count > inlineLimit
        let bytes = truncated ? data.prefix(inlineLimit) : data
        if kind == .json, !truncated,
           let object = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]),
           let pretty = try? JSONSerialization.data(withJSONObject: object,
                                                    options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) {
            return (String(decoding: pretty, as: UTF8.self), false)
        }
        return (String(decoding: bytes, as: UTF8.self), truncated)
    }
}
