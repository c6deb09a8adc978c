import Artifacts
import Foundation
import Journal

/// The one pass of ``ReportWriter`` over the journal's jobs, in plan order, as a pipeline of three threads joined by
/// bounded queues (each stage keeps plan order, so packs, chunks and entries are the same whatever the threads do):
///
/// 1. the calling thread steps through the journal (``JournalReader/forEachJob(run:_:)``: rows, steps, artifact
///    references) and makes each job's ``JobReport``;
/// 2. the second carries the job's blobs into the open pack (``BlobCarrier``) and appends its panel to its chunk
///    (``JobChunks``);
/// 3. the third writes its `summary.json` entry (``SummaryDocument/Writer``) and — unless it is a plain pass — its
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
        var chunks: [URL]
        /// Failure text (`step 2 (key): message`) of each job that did not pass, by plan position.
        var failures: [Int: String]
        var anyArtifact: Bool
    }

    /// A job on its way from the first stage to the second, with the artifacts the folder carries.
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

    /// Streams run `runID`'s jobs through every writer, then compresses the chunks and closes the last pack.
    func run(runID: String, reader: JournalReader) throws -> Output {
        let read = Parallel.Channel<JobReport>(capacity: Self.queueBatches)
        let carried = Parallel.Channel<Streamed>(capacity: Self.queueBatches)
        let (_, (chunkFiles, (failures, anyArtifact))) = try Parallel.both({
            defer { read.close() }
            do { try produce(runID: runID, reader: reader, into: read) } catch is Stopped {}
        }, {
            try Parallel.both({
                defer { carried.close() }
                do {
                    try carry(read, into: carried)
                } catch {
                    read.cancel()
                    if error is Stopped { return [URL]() }
                    throw error
                }
                let files = try chunks.finish()
                try carrier.finish()
                return files
            }, {
                do {
                    return try consume(carried)
                } catch {
                    carried.cancel()
                    throw error
                }
            })
        })
        return Output(chunks: chunkFiles, failures: failures, anyArtifact: anyArtifact)
    }

    /// Stage 1: the journal.
    private func produce(runID: String, reader: JournalReader, into queue: Parallel.Channel<JobReport>) throws {
        var batch: [JobReport] = []
        batch.reserveCapacity(Self.batchSize)
        try reader.forEachJob(run: runID) { detail in
            batch.append(JobReport(detail, axes: index.axes(of: detail.row)))
            if batch.count == Self.batchSize {
                guard queue.send(batch) else { throw Stopped() }
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { guard queue.send(batch) else { throw Stopped() } }
    }

    /// Stage 2: blobs and chunks.
    private func carry(_ input: Parallel.Channel<JobReport>, into output: Parallel.Channel<Streamed>) throws {
        while let batch = input.receive() {
            var out: [Streamed] = []
            out.reserveCapacity(batch.count)
            for job in batch {
                let carried = try carrier.carry(job)
                chunks.add(job, carried: carried)
                var kept = Set<ArtifactReference>()
                for (ref, place) in carried { if case .success = place { kept.insert(ref) } }
                out.append(Streamed(job: job, carried: kept))
            }
            guard output.send(out) else { throw Stopped() }
        }
    }

    /// Stage 3: summary entries, test cases and failure texts.
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
