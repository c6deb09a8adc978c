import Artifacts
import FlowSpec
import Foundation
import Journal
import Synchronization

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
        // Lowercased only when needed: a large report classifies hundreds of thousands of artifacts.
        func lowered(_ text: String) -> String {
            text.utf8.contains { $0 >= 0x41 && $0 <= 0x5A } ? text.lowercased() : text
        }
        let type = lowered(mediaType), lower = lowered(name)
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

/// Copies the blobs a report shows into pack files `<report folder>/blobs/pack-NNN.js`, still gzip-compressed: each
/// blob once, however many jobs reference it. A pack is one call `FM.pack(N,["<Z85 of a .gz>",\n…]);` (a script,
/// so a page opened from `file://` can load it; the page decompresses a blob with `DecompressionStream`); a job's
/// chunk names each artifact's blob by `[pack, index]`. A pack is
/// closed once it holds ``packSize`` bytes, so a nightly's thousands of blobs are a few files, and the blobs of one
/// job (streamed in plan order) usually share a pack. Base64 adds a third; nothing is ever stored decompressed.
final class BlobCarrier {
    /// Bytes of script text after which a pack is closed (1 MiB).
    static let packSize = 1 << 20

    /// Reads the store's blobs (nil: no store), shared by the threads of ``prefetch(_:)``.
    private let reader: BlobReader?
    private let folder: URL
    private let selection: ArtifactSelection
    private let maxArtifactSize: Int
    /// Blob → where it is, or why it is not carried.
    private var done: [String: Result<Place, Note>] = [:]
    private var pack: ReportOutput?
    private var packBytes = 0
    private(set) var files: [URL] = []
    private(set) var warnings: [String] = []
    /// Blobs carried, and their compressed bytes (before Z85).
    private(set) var count = 0
    private(set) var compressedBytes = 0

    struct Note: Error { var text: String }

    /// A carried blob: its pack and its index in the pack.
    struct Place { var pack: Int, index: Int }

    /// Where a job's artifacts went, by position: `places[a][k]` is the `k`th artifact of the job's `a`th attempt
    /// (in `job.attempts` and `artifacts` order) — its pack, or why it is not carried; nil, or no entry, when it was
    /// not looked at. Positions, not a dictionary keyed by ``ArtifactReference``: hashing 140,000 references (three
    /// strings each) several times per report was a measurable share of its CPU.
    struct Carried {
        var places: [[Result<Place, Note>?]] = []

        func place(_ attempt: Int, _ artifact: Int) -> Result<Place, Note>? {
            guard attempt < places.count, artifact < places[attempt].count else { return nil }
            return places[attempt][artifact]
        }

        func isCarried(_ attempt: Int, _ artifact: Int) -> Bool {
            if case .success = place(attempt, artifact) { return true }
            return false
        }
    }

    private var inPack = 0
    /// Blobs read ahead by ``prefetch(_:)``: where their Z85 text (what a pack holds) is in `readyTexts`, or why they
    /// cannot be read.
    private var ready: [String: Result<Span, Note>] = [:]
    /// The Z85 text of the blobs read ahead, one buffer per reader thread.
    private var readyTexts: [[UInt8]] = []

    /// A blob ``prefetch(_:)`` reads: its hash and the compressed size the journal recorded.
    struct Wanted { var sha256: String, compressedSize: Int }
    /// A blob read ahead: its Z85 text is `readyTexts[part][range]`; `compressed` is its size before Z85.
    struct Span { var part: Int, range: Range<Int>, compressed: Int }
    /// Threads that read blobs ahead (``prefetch(_:)``).
    static let readers = 4

    /// Jobs carried whatever their status, unless the selection is `none` (the passing side of a disagreement
    /// between registries: the parity view shows its pictures).
    private let alsoCarry: Set<String>

    init(store: BlobStore?, folder: URL, selection: ArtifactSelection, maxArtifactSize: Int,
         alsoCarry: Set<String> = []) throws {
        self.alsoCarry = alsoCarry
        reader = store.map(BlobReader.init)
        self.folder = folder
        self.selection = selection
        self.maxArtifactSize = maxArtifactSize
        let blobs = folder.appendingPathComponent("blobs")
        do {
            try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        } catch {
            throw ReportError(code: .output, message: "cannot create \(blobs.path): \(FileErrorText.reason(error))")
        }
    }

    private func selects(_ job: JobReport) -> Bool {
        selection.includes(job.status) || (selection != .none && !alsoCarry.isEmpty && alsoCarry.contains(job.id))
    }

    /// `blobs/pack-007.js`.
    static func path(pack n: Int) -> String {
        let digits = String(n)
        return "blobs/pack-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + ".js"
    }

    /// Carries the artifacts of `job` that the selection includes. Returns, per artifact, its pack or why it is not
    /// carried.
    func carry(_ job: JobReport) throws -> Carried {
        // Most jobs have no artifact: no work and no allocation for them (a run has 100,000 jobs).
        guard job.attempts.contains(where: { !$0.artifacts.isEmpty }) else { return Carried() }
        let selected = selects(job)
        var out = Carried()
        out.places.reserveCapacity(job.attempts.count)
        for attempt in job.attempts {
            var row: [Result<Place, Note>?] = []
            row.reserveCapacity(attempt.artifacts.count)
            for ref in attempt.artifacts {
                guard selected else {
                    row.append(.failure(Note(text: selection == .none ? "not carried" : "not carried (the job passed)")))
                    continue
                }
                row.append(try carry(ref, job: job.id, attempt: attempt.attempt))
            }
            out.places.append(row)
        }
        return out
    }

    /// Reads the blobs `jobs` will carry and are not carried yet — open, read, verify, Z85 — on ``readers`` threads at
    /// once, so that ``carry(_:)`` only appends them to the pack. A large run's report opens tens of thousands of
    /// small blob files: one after the other, that was a third of its time.
    func prefetch(_ jobs: [JobReport]) {
        guard let reader, selection != .none else { return }
        // Hashes and sizes, not references: copying a reference (three strings) per artifact showed in profiles.
        var wanted: [Wanted] = []
        var seen = Set<String>()
        for job in jobs where selects(job) {
            for attempt in job.attempts {
                for k in attempt.artifacts.indices where attempt.artifacts[k].rawSize <= maxArtifactSize {
                    let sha = attempt.artifacts[k].sha256
                    if done[sha] == nil, seen.insert(sha).inserted {
                        wanted.append(Wanted(sha256: sha, compressedSize: attempt.artifacts[k].compressedSize))
                    }
                }
            }
        }
        guard wanted.count > 1 else { return }
        // Each reader appends its blobs' text to one buffer of its own: no array per blob.
        let parts = Mutex<[(text: [UInt8], spans: [(String, Result<Span, Note>)])]>(
            Array(repeating: ([], []), count: Self.readers))
        let wantedBlobs = wanted, limit = maxArtifactSize
        let stride = (wantedBlobs.count + Self.readers - 1) / Self.readers
        DispatchQueue.concurrentPerform(iterations: Self.readers) { part in
            var text: [UInt8] = [], raw: [UInt8] = []
            var spans: [(String, Result<Span, Note>)] = []
            for blob in wantedBlobs[min(wantedBlobs.count, part * stride)..<min(wantedBlobs.count, (part + 1) * stride)] {
                let start = text.count
                let read = Self.read(blob.sha256, size: blob.compressedSize, reader: reader, maxSize: limit, raw: &raw,
                                     text: &text)
                spans.append((blob.sha256, read.map { Span(part: part, range: start..<text.count, compressed: $0) }))
            }
            parts.withLock { $0[part] = (text, spans) }
        }
        let read = parts.withLock { $0 }
        readyTexts = read.map(\.text)
        ready = Dictionary(read.flatMap(\.spans), uniquingKeysWith: { first, _ in first })
    }

    /// Appends a blob's compressed bytes as Z85 text to `text` (`raw` is scratch space); returns its compressed size,
    /// or why it cannot be read.
    private static func read(_ sha256: String, size: Int, reader: BlobReader, maxSize: Int, raw: inout [UInt8],
                             text: inout [UInt8]) -> Result<Int, Note> {
        raw.removeAll(keepingCapacity: true)
        do {
            // The size the journal recorded spares asking the file system (the hash still decides).
            let count = try reader.appendCompressed(sha256, size: size > 0 ? size : nil, maxSize: maxSize, to: &raw)
            raw.withUnsafeBufferPointer { Z85.encode($0, appendingTo: &text) }
            return .success(count)
        } catch let error as ArtifactError {
            return .failure(Note(text: "unavailable: \(error.message)"))
        } catch {
            return .failure(Note(text: "unavailable: \(error)"))
        }
    }

    private func carry(_ ref: ArtifactReference, job: String, attempt: Int) throws -> Result<Place, Note> {
        if let known = done[ref.sha256] { return known }
        let result = try write(ref)
        done[ref.sha256] = result
        if case .failure(let note) = result {
            warnings.append("artifact \(ref.name) of job \(job) attempt \(attempt) step \(ref.stepIndex + 1): \(note.text)")
        }
        return result
    }

    /// Appends the blob to the open pack; the reason when it cannot be read.
    /// - Throws: ``ReportError`` `.output` when a pack cannot be written.
    private func write(_ ref: ArtifactReference) throws -> Result<Place, Note> {
        guard let reader else { return .failure(Note(text: "unavailable: no blob store")) }
        guard ref.rawSize <= maxArtifactSize else {
            return .failure(Note(text: "unavailable: larger than \(maxArtifactSize) bytes"))
        }
        let text: ArraySlice<UInt8>, compressed: Int
        switch ready.removeValue(forKey: ref.sha256) {
        case .success(let span)?: (text, compressed) = (readyTexts[span.part][span.range], span.compressed)
        case .failure(let note)?: return .failure(note)
        case nil:
            var raw: [UInt8] = [], own: [UInt8] = []
            switch Self.read(ref.sha256, size: ref.compressedSize, reader: reader, maxSize: maxArtifactSize, raw: &raw,
                             text: &own) {
            case .success(let count): (text, compressed) = (own[...], count)
            case .failure(let note): return .failure(note)
            }
        }
        if pack == nil || packBytes >= Self.packSize {
            try finish()
            let url = folder.appendingPathComponent(Self.path(pack: files.count))
            let output = try ReportOutput(file: url, bufferSize: 256 << 10)
            output += "FM.pack(\(files.count),[\n"
            pack = output
            files.append(url)
            packBytes = 0
            inPack = 0
        }
        pack?.write(bytes: (inPack == 0 ? "\"" : ",\n\"").utf8)
        pack?.write(bytes: text)
        pack? += "\""
        packBytes += text.count + 4
        inPack += 1
        count += 1
        compressedBytes += compressed
        return .success(Place(pack: files.count - 1, index: inPack - 1))
    }

    /// Closes the last pack.
    func finish() throws {
        guard let pack else { return }
        pack += "\n]);\n"
        try pack.finish()
        self.pack = nil
    }
}
