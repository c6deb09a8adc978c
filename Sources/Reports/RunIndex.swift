import FlowVocabulary
import Foundation
import Journal

/// What the parts of a report drawn at once need of every job (heat map, failures by axis, counts, JUnit suites),
/// with memory that does not grow with the run: the jobs themselves are spilled to scratch files (``JobRecords``, 40
/// bytes a job plus each configuration once) and read back in passes, while only the run's scenarios, registries,
/// axis values and totals stay in memory, with the first ``HTMLReport/failingRows`` jobs that did not pass. Attempts,
/// steps and artifacts are not here: writers stream them from the journal job by job.
struct RunIndex: Sendable {
    /// A job that did not pass, among the first ones the page lists.
    struct Failing: Sendable {
        var position: Int
        var id: String
        var configuration: String
        var job: Job
        /// Its failing step and message, kept when the index is asked for them (the live page lists them; the report
        /// writer takes them from its pass over the attempts).
        var step: Int?
        var message: String?
    }

    var run: RunSummary
    /// The jobs, in plan order.
    let records: JobRecords
    /// In order of first appearance in the plan.
    var scenarios: [(id: String, title: String)] = []
    /// Sorted.
    var registries: [String] = []
    /// Every axis name of the run's configurations, sorted.
    var axisNames: [String] = []
    /// Whether some configuration lacks an axis another has.
    var anyAxisMissing = false
    /// The most axis values a configuration has.
    var maxValueCount = 0
    /// Jobs by cell status (every status present, zero when none).
    var counts: [CellStatus: Int] = [:]
    /// Jobs with a final outcome, and jobs with at least one attempt.
    var finishedJobs = 0, startedJobs = 0
    /// Per axis value (by value id) and per scenario, whether a failed or timed-out job has it (the pivot counts
    /// groups of several values only then).
    var failingValues: [Bool] = [], failingScenarios: [Bool] = []
    /// Per scenario, whether a job of it did not pass (failed, flaky, timed out, quarantined): the heat map marks
    /// its row.
    var troubledScenarios: [Bool] = []
    /// The first ``HTMLReport/failingRows`` jobs that did not pass (failed, flaky, timed out, quarantined), in plan
    /// order; ``failingCount`` counts them all.
    var failing: [Failing] = []
    var failingCount = 0
    /// Attempts started (superseded ones included).
    var attemptCount = 0
    /// Workers that ran at least one attempt, sorted.
    var workers: [String] = []
    /// Wall time: start to finish, or to the last finished job while the run goes on. Nil before any job finished.
    var duration: Double?

    var runID: String { run.info.runID }
    var jobCount: Int { records.count }
    /// Every axis value, by value id.
    var values: [AxisValue] { records.values }

    /// Streams the run's job rows from the journal (one at a time) into the index.
    /// - Parameter totals: false leaves ``attemptCount`` and ``workers`` for the caller to set (the report writer
    ///   counts them in its pass over the attempts instead of two more queries).
    /// - Parameter failures: true keeps the failing step and message of ``failing``.
    /// - Parameter scratch: where the scratch files go (the system's temporary directory when nil).
    /// - Throws: ``ReportError`` `.unknownRun` or `.output`, or the journal's error.
    init(runID: String, reader: JournalReader, totals: Bool = true, failures: Bool = false, scratch: URL? = nil) throws {
        guard let run = try reader.run(runID, countingOutcomes: false) else { throw ReportError.unknownRun(runID) }
        var builder = try Builder(run: run, failures: failures, scratch: scratch)
        try reader.forEachJobRow(run: runID) { try builder.add($0) }
        self = try builder.finish()
        if totals { (attemptCount, workers) = try reader.attemptTotals(run: runID) }
    }

    /// The index of a run already in memory.
    init(_ report: RunReport, scratch: URL? = nil) throws {
        var builder = try Builder(run: report.run, failures: true, scratch: scratch)
        for job in report.jobs { try builder.add(job.row) }
        self = try builder.finish()
        attemptCount = report.attemptCount
        workers = report.workers
    }

    /// The index of rows already read, in plan order (tests; reports stream them from the journal).
    init(run: RunSummary, rows: [JobRow], scratch: URL? = nil) throws {
        var builder = try Builder(run: run, failures: true, scratch: scratch)
        for row in rows { try builder.add(row) }
        self = try builder.finish()
    }

    private init(run: RunSummary, records: JobRecords) {
        self.run = run
        self.records = records
    }

    /// A reader of the jobs (one per thread).
    func reader() -> JobRecords.Reader { JobRecords.Reader(records) }

    /// Calls `body` with each job in plan order, and a reader for its values, text and id.
    func forEachJob(_ body: (_ position: Int, _ job: Job, _ reader: inout JobRecords.Reader) throws -> Void) throws {
        var jobs = JobRecords.Reader(records), details = JobRecords.Reader(records)
        for position in 0..<records.count { try body(position, try jobs.job(position), &details) }
    }

    private struct Builder {
        let run: RunSummary
        let keepFailures: Bool
        let writer: JobRecords.Writer
        var scenarios: [(id: String, title: String)] = []
        var scenarioIndex: [String: Int32] = [:]
        var registryIndex: [String: Int32] = [:]
        var registryNames: [String] = []
        var counts = Dictionary(uniqueKeysWithValues: CellStatus.allCases.map { ($0, 0) })
        var finishedJobs = 0, startedJobs = 0
        var failing: [Failing] = []
        var failingCount = 0
        var valueCounts = Set<Int>()
        var failingValues: [Bool] = [], failingScenarios: [Bool] = [], troubled: [Bool] = []
        var lastFinish: Date?

        init(run: RunSummary, failures: Bool, scratch: URL?) throws {
            self.run = run
            keepFailures = failures
            writer = try JobRecords.Writer(in: scratch)
        }

        mutating func add(_ row: JobRow) throws {
            let job = row.job
            let scenario: Int32
            if let known = scenarioIndex[job.scenarioID] { scenario = known } else {
                scenario = Int32(scenarios.count)
                scenarioIndex[job.scenarioID] = scenario
                scenarios.append((job.scenarioID, job.scenarioTitle))
            }
            let registry: Int32
            if let known = registryIndex[job.registry] { registry = known } else {
                registry = Int32(registryNames.count)
                registryIndex[job.registry] = registry
                registryNames.append(job.registry)
            }
            if let finished = row.result?.finishedAt, finished > (lastFinish ?? .distantPast) { lastFinish = finished }
            let status = CellStatus(row)
            let configuration = try writer.configuration(of: job)
            valueCounts.insert(configuration.ids.count)
            if status.isFailure {
                for id in configuration.ids {
                    if Int(id) >= failingValues.count { failingValues += repeatElement(false, count: Int(id) + 1 - failingValues.count) }
                    failingValues[Int(id)] = true
                }
                if Int(scenario) >= failingScenarios.count {
                    failingScenarios += repeatElement(false, count: Int(scenario) + 1 - failingScenarios.count)
                }
                failingScenarios[Int(scenario)] = true
            }
            let record = Job(scenario: scenario, registry: registry, row: row, status: status, configuration: configuration,
                             id: try writer.id(job.jobID))
            counts[status, default: 0] += 1
            if row.result?.outcome != nil { finishedJobs += 1 }
            if record.attempts > 0 { startedJobs += 1 }
            if status != .passed && status != .notRun {
                if Int(scenario) >= troubled.count { troubled += repeatElement(false, count: Int(scenario) + 1 - troubled.count) }
                troubled[Int(scenario)] = true
                failingCount += 1
                if failing.count < HTMLReport.failingRows {
                    failing.append(Failing(position: writer.count, id: job.jobID, configuration: job.configuration, job: record,
                                           step: keepFailures ? row.result?.failureStep : nil,
                                           message: keepFailures ? row.result?.failureMessage : nil))
                }
            }
            try writer.append(record)
        }

        /// Registries ranked in sorted order, axis names sorted, the duration.
        mutating func finish() throws -> RunIndex {
            let sorted = registryNames.sorted()
            let position = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, Int32($0)) })
            let rank = registryNames.map { position[$0] ?? 0 }
            var index = RunIndex(run: run, records: try writer.finish(registryRank: rank))
            index.scenarios = scenarios
            index.registries = sorted
            index.axisNames = Set(index.values.map(\.axis)).sorted()
            index.anyAxisMissing = valueCounts.contains { $0 < index.axisNames.count }
            index.maxValueCount = valueCounts.max() ?? 0
            index.failingValues = failingValues + repeatElement(false, count: max(0, index.values.count - failingValues.count))
            index.failingScenarios = failingScenarios
                + repeatElement(false, count: max(0, scenarios.count - failingScenarios.count))
            index.troubledScenarios = troubled + repeatElement(false, count: max(0, scenarios.count - troubled.count))
            index.counts = counts
            (index.finishedJobs, index.startedJobs) = (finishedJobs, startedJobs)
            index.failing = failing.map { f in
                var f = f
                f.job.registry = rank[Int(f.job.registry)]
                return f
            }
            index.failingCount = failingCount
            let end = run.finishedAt ?? lastFinish
            index.duration = end.map { max(0, $0.timeIntervalSince(run.info.startedAt)) }
            return index
        }
    }

    /// The ids among `ids` that are jobs of this run (one pass over the jobs).
    func jobIDs(among ids: Set<String>) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        var found = Set<String>()
        try forEachJob { _, job, reader in
            let id = try reader.id(job)
            if ids.contains(id) { found.insert(id) }
        }
        return found
    }

    func scenarioID(_ job: Job) -> String { scenarios[Int(job.scenario)].id }
    func scenarioTitle(_ job: Job) -> String { scenarios[Int(job.scenario)].title }
    func registry(_ job: Job) -> String { registries[Int(job.registry)] }

    /// Jobs with a final outcome per second of run time.
    var jobsPerSecond: Double? {
        guard let duration, duration > 0 else { return nil }
        return Double(finishedJobs) / duration
    }
}
