import Artifacts
import Foundation
import Journal

/// The one pass of ``ReportWriter`` over the journal's jobs, in plan order, as a pipeline of four threads joined by
/// bounded queues (each stage keeps plan order, so packs, chunks and entries are the same whatever the threads do):
///
/// 1. the calling thread steps through the journal (``JournalReader/forEachJob(run:_:)``: rows, steps, artifact
///    references) and makes each job's ``JobReport``;
/// 2. the second carries the job's blobs into the open pack (``BlobCarrier``: reads, Z85, pack files);
/// 3. the third appends its panel to its chunk (``JobChunks``);
/// 4. the fourth writes its `summary.json` entry (``SummaryDocument/Writer``) and — unless it is a plain pass — its
///    JUnit test case (``JUnitReport/Cases``) into their scratch files, and keeps the failure text the page lists.
///
/// A queue holds at most ``queueBatches`` batches of ``batchSize`` jobs, so memory does not grow with the run.
final class JobPass {
    static let batchSize = 256
    static let queueBatches = 8

    let carrier: BlobCarrier
    let chunks: JobChunks
    let summary: SummaryDocument.Writer
    let cases: JUnitReport.Cases
    private let index: RunIndex

    /// What the pass produced besides its writers' files.
    struct Output {
        /// Attempts started (superseded ones included) and the workers that ran them, sorted (by UTF-8 bytes, as
        /// SQLite sorts).
        var attemptCount: Int
        var workers: [String]
        /// Failure text (`step 2 (key): message`) of each job that did not pass, by plan position.
        var failures: [Int: String]
        var anyArtifact: Bool
    }

    /// A job with where its artifacts went (stage 2 to 3).
    private struct Placed: Sendable {
        var job: JobReport
        var carried: [ArtifactReference: Result<BlobCarrier.Place, BlobCarrier.Note>]
    }

    /// A job with the artifacts the folder carries (stage 3 to 4).
    private struct Streamed: Sendable {
        var job: JobReport
        var carried: Set<ArtifactReference>
    }

    /// The producer stops: the consumer failed, and its error is the one thrown.
    private struct Stopped: Error {}

    init(index: RunIndex, store: BlobStore?, folder: URL, settings: ReportSettings) throws {
        self.index = index
        carrier = try BlobCarrier(store: store, folder: folder, selection: settings.artifacts,
                                  maxArtifactSize: settings.maxArtifactSize)
        chunks = try JobChunks(folder: folder, jobs: index.jobs.count, axes: index.axisNames, start: index.run.info.startedAt)
        summary = try SummaryDocument.Writer(index: index, folder: folder)
        cases = try JUnitReport.Cases(grouping: settings.junitGrouping, multipleRegistries: index.registries.count > 1,
                                      folder: folder)
    }

    /// Streams run `runID`'s jobs through every writer and closes the last pack (``JobChunks/finish()`` is left to
    /// the caller, to run alongside the files written after the pass).
    func run(runID: String, reader: JournalReader) throws -> Output {
        let read = Parallel.Channel<JobReport>(capacity: Self.queueBatches)
        let placed = Parallel.Channel<Placed>(capacity: Self.queueBatches)
        let streamed = Parallel.Channel<Streamed>(capacity: Self.queueBatches)
        let (totals, (_, (_, (failures, anyArtifact)))) = try Parallel.both({
            defer { read.close() }
            do { return try produce(runID: runID, reader: reader, into: read) } catch is Stopped { return (0, []) }
        }, {
            try Parallel.both({
                guard try Self.stage(read, placed, { Placed(job: $0, carried: try carrier.carry($0)) }) else { return }
                try carrier.finish()
            }, {
                try Parallel.both({
                    guard try Self.stage(placed, streamed, { p in
                        chunks.add(p.job, carried: p.carried)
                        var kept = Set<ArtifactReference>()
                        for (ref, place) in p.carried { if case .success = place { kept.insert(ref) } }
                        return Streamed(job: p.job, carried: kept)
                    }) else { return }
                }, {
                    do {
                        return try consume(streamed)
                    } catch {
                        streamed.cancel()
                        throw error
                    }
                })
            })
        })
        return Output(attemptCount: totals.0, workers: totals.1, failures: failures, anyArtifact: anyArtifact)
    }

    /// Stage 1: the journal. Returns the attempts and the workers.
    private func produce(runID: String, reader: JournalReader, into queue: Parallel.Channel<JobReport>) throws
        -> (Int, [String])
    {
        var batch: [JobReport] = []
        batch.reserveCapacity(Self.batchSize)
        var attempts = 0
        var workers = Set<String>()
        try reader.forEachJob(run: runID) { detail in
            attempts += detail.attempts.count
            for attempt in detail.attempts where !attempt.attempt.worker.isEmpty { workers.insert(attempt.attempt.worker) }
            batch.append(JobReport(detail, axes: index.axes(of: detail.row)))
            if batch.count == Self.batchSize {
                guard queue.send(batch) else { throw Stopped() }
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { guard queue.send(batch) else { throw Stopped() } }
        return (attempts, workers.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// A middle stage: each batch of `input` transformed, job by job in order, into `output`, which is closed at the
    /// end. When it fails or the next stage stops, the previous stage is stopped too.
    /// - Returns: false when the next stage stopped (its error is the one thrown).
    private static func stage<In, Out>(_ input: Parallel.Channel<In>, _ output: Parallel.Channel<Out>,
                                       _ transform: (In) throws -> Out) throws -> Bool {
        defer { output.close() }
        do {
            while let batch = input.receive() {
                guard output.send(try batch.map(transform)) else { throw Stopped() }
            }
            return true
        } catch {
            input.cancel()
            if error is Stopped { return false }
            throw error
        }
    }

    /// Stage 4: summary entries, test cases and failure texts.
    private func consume(_ queue: Parallel.Channel<Streamed>) throws -> ([Int: String], Bool) {
        var failures: [Int: String] = [:]
        var anyArtifact = false
        while let batch = queue.receive() {
            for item in batch {
                let job = item.job
                anyArtifact = anyArtifact || job.attempts.contains { !$0.artifacts.isEmpty }
                cases.add(job)
                try summary.add(job) { item.carried.contains($0) }
                if job.status != .passed && job.status != .notRun {
                    let result = job.row.result
                    failures[job.row.ordinal] = JUnitReport.failureText(
                        step: result?.failureStep, steps: job.decidingAttempt?.steps ?? [], message: result?.failureMessage)
                }
            }
        }
        return (failures, anyArtifact)
    }
}
