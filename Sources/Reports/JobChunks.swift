import FlowSpec
import Foundation
import Gzip
import Journal
import Synchronization

/// The job panels' data, in chunk files next to `report.html` that the page loads when a job is opened:
/// `data/jobs-NNN.js`, each `FM.chunk(N,"<base64 of gzip of JSON>")` (a script, because a page opened from
/// `file://` may load scripts but not `fetch` files; the JSON is gzip-compressed and decompressed in the page with
/// `DecompressionStream`).
///
/// A job's chunk is `fnv1a32(job id) % chunkCount`, so the page finds it from the id alone. While the report is
/// written, each chunk's JSON collects in a small buffer that spills, as a segment, into one unlinked scratch file
/// shared by every chunk (one file rather than one per chunk, which made a large report create, rename and remove a
/// hundred temporary files): memory stays bounded whatever the number of jobs. ``finish()`` compresses each chunk
/// from its segments.
///
/// JSON of a chunk (`v` 2; durations in whole microseconds, attempt starts in seconds after the run's start):
/// ```
/// {"<job id>":[scenarioID, title, registry, status, durationUs, [value per run axis or null], failureStep,
///              failureMessage, [attempt…]], …}
/// attempt:  [attempt, worker, outcome, durationUs, startedAfter, superseded 0|1, failureStep, message, [step…], [artifact…]]
/// step:     [index, key, outcome, durationUs, message, interruptions]   (the last two only when either is set)
/// artifact: [step, name, mediaType, rawSize, sha256, [pack, index] (blobs/pack-NNN.js) or null, note, kind]
/// ```
final class JobChunks {
    /// Jobs per chunk (until ``maxChunks`` is reached; then chunks grow).
    static let jobsPerChunk = 1_000
    static let maxChunks = 256
    private static let bufferSize = 32 << 10

    let count: Int
    private let folder: URL
    private let axes: [String]
    private let start: Int64
    /// Per chunk: its JSON not yet spilled (in memory), and where its spilled segments are in `scratch`.
    private var outputs: [ReportOutput] = []
    private var segments: [[Segment]] = []
    private let scratch: ScratchFile.Writer
    /// The first error spilling a segment; ``finish()`` throws it.
    private var failure: (any Error)?
    /// Jobs per chunk so far (one thread at a time; no runtime exclusivity check, as ``ReportOutput``'s buffer).
    @exclusivity(unchecked) private var written: [Int] = []

    /// Part of a chunk's JSON in the scratch file.
    struct Segment: Sendable {
        var offset: Int
        var count: Int
    }

    /// - Parameters:
    ///   - folder: the report folder; chunks go into `folder/data/`.
    ///   - jobs: the run's job count, which sets the number of chunks.
    init(folder: URL, jobs: Int, axes: [String], start: Date) throws {
        self.folder = folder
        self.axes = axes
        self.start = Int64(start.timeIntervalSince1970.rounded(.down))
        count = Self.count(jobs: jobs)
        let data = folder.appendingPathComponent("data")
        do {
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        } catch {
            throw ReportError(code: .output, message: "cannot create \(data.path): \(FileErrorText.reason(error))")
        }
        scratch = try ScratchFile.Writer(in: data)
        for _ in 0..<count {
            outputs.append(ReportOutput())
            segments.append([])
            written.append(0)
        }
    }

    /// Moves chunk `n`'s buffered JSON into the scratch file as its next segment.
    private func spill(_ n: Int) {
        guard failure == nil, outputs[n].count > 0 else { return }
        do {
            let offset = scratch.offset
            try outputs[n].drain { try scratch.append($0) }
            segments[n].append(Segment(offset: offset, count: scratch.offset - offset))
        } catch {
            failure = error
        }
    }

    /// The number of chunks of a run of `jobs` jobs.
    static func count(jobs: Int) -> Int { max(1, min(maxChunks, (jobs + jobsPerChunk - 1) / jobsPerChunk)) }

    /// The chunk of a job: FNV-1a (32 bits) of its id's UTF-8 bytes, modulo `count` (the page computes the same).
    static func chunk(of jobID: String, count: Int) -> Int {
        var hash: UInt32 = 0x811c_9dc5
        for byte in jobID.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return Int(hash % UInt32(count))
    }

    /// Appends whole microseconds, or `null`.
    private static func micros(_ seconds: Double?, _ o: ReportOutput) {
        guard let seconds, seconds.isFinite else { return o.write(bytes: "null".utf8) }
        o.write(int: Int(Int64((seconds * 1e6).rounded())))
    }

    /// Appends an integer, or `null`.
    private static func int(_ value: Int?, _ o: ReportOutput) {
        guard let value else { return o.write(bytes: "null".utf8) }
        o.write(int: value)
    }

    /// Appends one job's entry to its chunk.
    /// - Parameter carried: the pack of each artifact the folder carries, or why it does not.
    func add(_ job: JobReport, carried: BlobCarrier.Carried) {
        // Pieces go straight into the chunk's buffer: no intermediate strings per job (100,000 of them).
        let n = Self.chunk(of: job.id, count: count)
        let o = outputs[n]
        func s(_ text: String?) { o.writeJSON(text) }
        func c() { o.write(bytes: CollectionOfOne(0x2C)) }
        o += written[n] == 0 ? "{" : ",\n"
        written[n] += 1
        s(job.id); o += ":["
        s(job.job.scenarioID); c(); s(job.job.scenarioTitle); c(); s(job.job.registry); c(); s(job.status.rawValue); c()
        Self.micros(job.row.result?.duration, o); o += ",["
        for (i, axis) in axes.enumerated() {
            if i > 0 { c() }
            s(job.axes.first { $0.axis == axis }?.value)
        }
        o += "],"; Self.int(job.row.result?.failureStep, o); c(); s(job.row.result?.failureMessage); o += ",["
        for (i, attempt) in job.attempts.enumerated() {
            o += i == 0 ? "[" : ",["
            add(attempt, i)
            o += "]"
        }
        o += "]]"

        func add(_ attempt: AttemptReport, _ position: Int) {
            let result = attempt.row.result
            o.write(int: attempt.attempt); c(); s(attempt.row.worker.isEmpty ? nil : attempt.row.worker); c()
            s(result?.outcome.rawValue); c(); Self.micros(result?.duration, o); c()
            Self.int(attempt.row.startedAt.map { Int(Int64($0.timeIntervalSince1970.rounded(.down)) - start) }, o)
            o += attempt.superseded ? ",1," : ",0,"; Self.int(result?.failureStep, o); c(); s(result?.message)
            o += ",["
            for (k, step) in attempt.steps.enumerated() {
                o += k == 0 ? "[" : ",["
                o.write(int: step.index); c(); s(step.key); c(); s(step.outcome.rawValue); c(); Self.micros(step.duration, o)
                let message = step.message.flatMap { $0.isEmpty ? nil : $0 }
                let interruptions = step.interruptions.flatMap { $0.isEmpty ? nil : $0 }
                if message != nil || interruptions != nil { c(); s(message); c(); s(interruptions) }
                o += "]"
            }
            o += "],["
            let kinds = attempt.artifacts.map { ArtifactKind(mediaType: $0.mediaType, name: $0.name) }
            for (k, j) in HTMLReport.order(attempt.artifacts, kinds: kinds).enumerated() {
                let ref = attempt.artifacts[j]
                o += k == 0 ? "[" : ",["
                o.write(int: ref.stepIndex); c(); s(ref.name); c(); s(ref.mediaType); c(); o.write(int: ref.rawSize); c()
                s(ref.sha256); c()
                switch carried.place(position, j) {
                case .success(let place):
                    o += "["; o.write(int: place.pack); c(); o.write(int: place.index); o += "],null,"
                case .failure(let note): o += "null,"; s(note.text); c()
                case nil: o += "null,\"not carried\","
                }
                s(kinds[j].rawValue)
                o += "]"
            }
            o += "]"
        }
        if o.count >= Self.bufferSize { spill(n) }
    }

    /// Compresses every chunk into `data/jobs-NNN.js` (on as many threads as there are cores: at the end of a large
    /// report this was its last half second on one thread) and removes the temporary files.
    /// - Returns: the chunk files.
    func finish() throws -> [URL] {
        for n in 0..<count {
            outputs[n] += written[n] == 0 ? "{}" : "}"
            spill(n)
        }
        outputs = []
        if let failure {
            throw ReportError(code: .output, message: "cannot write the job panels' data: \(FileErrorText.reason(failure))")
        }
        let file = try scratch.finish()
        let (segments, folder) = (segments, folder)
        let failures = Mutex<[Int: ReportError]>([:])
        DispatchQueue.concurrentPerform(iterations: count) { n in
            let url = folder.appendingPathComponent(Self.path(n))
            do {
                try Self.compress(segments[n], of: file, chunk: n, into: url)
            } catch {
                let failure = error as? ReportError
                    ?? ReportError(code: .output, message: "cannot write \(url.path): \(FileErrorText.reason(error))")
                failures.withLock { $0[n] = failure }
            }
        }
        if let first = failures.withLock({ $0.min { $0.key < $1.key }?.value }) { throw first }
        return (0..<count).map { folder.appendingPathComponent(Self.path($0)) }
    }

    /// `FM.chunk(N,"<base64 of the gzip of the chunk's JSON>");` into `url` (moved into place when written).
    private static func compress(_ segments: [Segment], of file: ScratchFile, chunk n: Int, into url: URL) throws {
        let compressor = try GzipCompressor(level: GzipCodec.defaultLevel, outputBufferSize: 64 << 10)
        var compressed: [UInt8] = []
        var reader = ScratchFile.Reader(file, slots: 1)
        var block = [UInt8](repeating: 0, count: segments.map(\.count).max() ?? 0)
        for segment in segments {
            try block.withUnsafeMutableBytes { bytes in
                try reader.read(at: segment.offset, count: segment.count, into: bytes.baseAddress!)
                try compressor.compress(UnsafeRawBufferPointer(rebasing: bytes[0..<segment.count])) {
                    compressed.append(contentsOf: $0)
                }
            }
        }
        try compressor.finish { compressed.append(contentsOf: $0) }
        let output = try ReportOutput(file: url, bufferSize: 1 << 20)
        output += "FM.chunk(\(n),\""
        output.write(bytes: Data(compressed).base64EncodedData())
        output += "\");\n"
        try output.finish()
    }

    /// `data/jobs-007.js`.
    static func path(_ n: Int) -> String {
        let digits = String(n)
        return "data/jobs-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + ".js"
    }
}
