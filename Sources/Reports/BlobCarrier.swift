import Artifacts
import Foundation
import Journal

/// Which jobs' artifacts a report folder carries (their blobs, compressed).
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

/// Copies the blobs a report shows into `<report folder>/blobs/<sha256>.js`, still gzip-compressed: each blob once,
/// however many jobs reference it, as `FM.blob("<sha256>","<base64 of the .gz bytes>")` (a script, so a page opened
/// from `file://` can load it; the page decompresses it with `DecompressionStream`). Base64 adds a third; nothing is
/// ever stored decompressed.
final class BlobCarrier {
    private let store: BlobStore?
    private let folder: URL
    private let selection: ArtifactSelection
    private let maxArtifactSize: Int
    /// Blob → the note when it could not be carried (nil: carried).
    private var done: [String: String?] = [:]
    private(set) var files: [URL] = []
    private(set) var warnings: [String] = []
    /// Bytes of the blobs carried (compressed, before base64).
    private(set) var compressedBytes = 0

    init(store: BlobStore?, folder: URL, selection: ArtifactSelection, maxArtifactSize: Int) throws {
        self.store = store
        self.folder = folder
        self.selection = selection
        self.maxArtifactSize = maxArtifactSize
        let blobs = folder.appendingPathComponent("blobs")
        do {
            try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        } catch {
            throw ReportError(code: .output, message: "cannot create \(blobs.path): \(error.localizedDescription)")
        }
    }

    /// `blobs/<sha256>.js`.
    static func path(_ sha256: String) -> String { "blobs/" + Escape.fileName(sha256) + ".js" }

    /// Carries the artifacts of `job` that the selection includes. Returns, per artifact, nil when carried and the
    /// reason otherwise.
    func carry(_ job: JobReport) -> [ArtifactReference: String] {
        var notes: [ArtifactReference: String] = [:]
        let selected = selection.includes(job.status)
        for attempt in job.attempts {
            for ref in attempt.artifacts {
                guard selected else {
                    notes[ref] = selection == .none ? "not carried" : "not carried (the job passed)"
                    continue
                }
                if let note = carry(ref, job: job.id, attempt: attempt.attempt) { notes[ref] = note }
            }
        }
        return notes
    }

    private func carry(_ ref: ArtifactReference, job: String, attempt: Int) -> String? {
        if let known = done[ref.sha256] { return known }
        let note = write(ref).map { "unavailable: \($0)" }
        done[ref.sha256] = .some(note)
        if let note { warnings.append("artifact \(ref.name) of job \(job) attempt \(attempt) step \(ref.stepIndex): \(note)") }
        return note
    }

    /// Writes the blob's script; the reason when it cannot.
    private func write(_ ref: ArtifactReference) -> String? {
        guard let store else { return "no blob store" }
        guard ref.rawSize <= maxArtifactSize else { return "larger than \(maxArtifactSize) bytes" }
        let url = folder.appendingPathComponent(Self.path(ref.sha256))
        do {
            let bytes = try store.compressedBytes(ref.sha256, maxSize: maxArtifactSize)
            let script = "FM.blob(" + JSONText.string(ref.sha256) + ",\"" + Data(bytes).base64EncodedString() + "\");\n"
            try Data(script.utf8).write(to: url)
            compressedBytes += bytes.count
            files.append(url)
            return nil
        } catch let error as ArtifactError {
            return error.message
        } catch {
            return "cannot write \(url.lastPathComponent): \(error.localizedDescription)"
        }
    }
}
