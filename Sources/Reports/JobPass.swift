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
    static let queueBatches = 32

    let carrier: BlobCarrier
    private let folder: URL
    private let settings: ReportSettings
    /// Job id → changed steps against the visual baselines (`visual.json`), for summary.json; set before ``run``.
    var visualChanges: [String: Int] = [:]

    /// What the pass produced besides its writers' files.
    struct Output {
        /// The writers stages 3 and 4 made once the index was there (their files are finished by the caller).
        var chunks: JobChunks
        var summary: SummaryDocument.Writer
        var cases: JUnitReport.Cases
        /// Attempts started (superseded ones included) and the workers that ran them, sorted (by UTF-8 bytes, as
        /// SQLite sorts).
        var attemptCount: Int
        var workers: [String]
        /// Failure text (`step 2 (key): message`) of the first ``HTMLReport/failingRows`` jobs that did not pass, by
        /// plan position.
        var failures: [Int: String]
        var anyArtifact: Bool
        /// The accessibility findings by axis (nil when no failure is an audit's).
        var audit: AuditPivot?
        /// Where the time went per registry (nil on one registry).
        var registryTimes: RegistryTimes?
    }

    /// A job with where its artifacts went (stages 2 to 3 to 4).
    private struct Placed: Sendable {
        var job: JobReport
        var carried: BlobCarrier.Carried
    }

    /// The producer stops: the consumer failed, and its error is the one thrown.
    private struct Stopped: Error {}

    /// - Parameter alsoCarry: jobs whose artifacts are carried whatever their status (unless the selection is none).
    init(store: BlobStore?, folder: URL, settings: ReportSettings, alsoCarry: Set<String> = []) throws {
        self.folder = folder
        self.settings = settings
        carrier = try BlobCarrier(store: store, folder: folder, selection: settings.artifacts,
                                  maxArtifactSize: settings.maxArtifactSize, alsoCarry: alsoCarry)
    }

    /// Streams run `runID`'s jobs through every writer and closes the last pack (``JobChunks/finish()`` is left to
    /// the caller, to run alongside the files written after the pass). Stages 1 and 2 start at once; stages 3 and 4
    /// wait for `index` (built meanwhile on another connection).
    func run(runID: String, reader: JournalReader, index: Parallel.Promise<RunIndex>) throws -> Output {
        let read = Parallel.Channel<JobReport>(capacity: Self.queueBatches)
        let placed = Parallel.Channel<Placed>(capacity: Self.queueBatches)
        let streamed = Parallel.Channel<Placed>(capacity: Self.queueBatches)
        let (totals, (_, (chunks, (summary, cases, failures, anyArtifact, audit, times)))) = try Parallel.both({
            defer { read.close() }
            do { return try produce(runID: runID, reader: reader, into: read) } catch is Stopped { return (0, []) }
        }, {
            try Parallel.both({
                guard try Self.stage(read, placed, prepare: { carrier.prefetch($0) }, {
                    Placed(job: $0, carried: try carrier.carry($0))
                }) else { return }
                try carrier.finish()
            }, {
                try Parallel.both({ try chunkStage(placed, streamed, index: index) }, {
                    do {
                        return try consume(streamed, index: try index.wait())
                    } catch {
                        streamed.cancel()
                        throw error
                    }
                })
            })
        })
        return Output(chunks: chunks, summary: summary, cases: cases, attemptCount: totals.0, workers: totals.1,
                      failures: failures, anyArtifact: anyArtifact, audit: audit, registryTimes: times)
    }

    /// Stage 3: the chunks (their writer needs the index's axis names).
    private func chunkStage(_ input: Parallel.Channel<Placed>, _ output: Parallel.Channel<Placed>,
                            index: Parallel.Promise<RunIndex>) throws -> JobChunks {
        let chunks: JobChunks
        do {
            let index = try index.wait()
            chunks = try JobChunks(folder: folder, jobs: index.jobCount, axes: index.axisNames,
                                   start: index.run.info.startedAt)
        } catch {
            input.cancel()
            output.close()
            throw error
        }
        _ = try Self.stage(input, output) { p in
            chunks.add(p.job, carried: p.carried)
            return p
        }
        return chunks
    }

    /// Stage 1: the journal. Returns the attempts and the workers.
    private func produce(runID: String, reader: JournalReader, into queue: Parallel.Channel<JobReport>) throws
        -> (Int, [String])
    {
        var batch: [JobReport] = []
        batch.reserveCapacity(Self.batchSize)
        var attempts = 0
        var workers = Set<String>()
        // A configuration's axes parsed once while it recurs (by its text, then its JSON): the cache is emptied when it
        // holds ``JobRecords/Writer/recentLimit`` configurations, so a run of a million of them holds no copy.
        var axes: [String: [(json: String, axes: [AxisValue])]] = [:]
        try reader.forEachJob(run: runID) { detail in
            attempts += detail.attempts.count
            for attempt in detail.attempts where !attempt.attempt.worker.isEmpty { workers.insert(attempt.attempt.worker) }
            let job = detail.row.job
            let parsed: [AxisValue]
            if let known = axes[job.configuration]?.first(where: { $0.json == job.configurationJSON }) {
                parsed = known.axes
            } else {
                parsed = AxisValue.parse(configuration: job.configuration, json: job.configurationJSON)
                if axes.count >= JobRecords.Writer.recentLimit { axes.removeAll(keepingCapacity: true) }
                axes[job.configuration, default: []].append((job.configurationJSON, parsed))
            }
            batch.append(JobReport(detail, axes: parsed))
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
    /// - Parameter prepare: called with each batch before its jobs are transformed.
    private static func stage<In, Out>(_ input: Parallel.Channel<In>, _ output: Parallel.Channel<Out>,
                                       prepare: ([In]) -> Void = { _ in }, _ transform: (In) throws -> Out) throws -> Bool {
        defer { output.close() }
        do {
            while let batch = input.receive() {
                prepare(batch)
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
    private func consume(_ queue: Parallel.Channel<Placed>, index: RunIndex) throws
        -> (SummaryDocument.Writer, JUnitReport.Cases, [Int: String], Bool, AuditPivot?, RegistryTimes?)
    {
        let summary = try SummaryDocument.Writer(index: index, folder: folder)
        summary.visualChanges = visualChanges
        let cases = try JUnitReport.Cases(grouping: settings.junitGrouping, multipleRegistries: index.registries.count > 1,
                                          folder: folder)
        var failures: [Int: String] = [:]
        var anyArtifact = false
        var audit = AuditPivot.Tally()
        var times = RegistryTimes.Tally()
        while let batch = queue.receive() {
            for item in batch {
                let job = item.job
                anyArtifact = anyArtifact || job.attempts.contains { !$0.artifacts.isEmpty }
                cases.add(job)
                audit.add(job)
                times.add(job)
                try summary.add(job) { item.carried.isCarried($0, $1) }
                // The page lists the first ones only.
                if job.status != .passed && job.status != .notRun && failures.count < HTMLReport.failingRows {
                    let result = job.row.result
                    failures[job.row.ordinal] = JUnitReport.failureText(
                        step: result?.failureStep, steps: job.decidingAttempt?.steps ?? [], message: result?.failureMessage)
                }
            }
        }
        return (summary, cases, failures, anyArtifact, audit.pivot(), times.finish())
    }
}
