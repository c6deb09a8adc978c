import FlowVocabulary
import Foundation
import Journal

/// The compact facts of every job that the parts of a report drawn at once need (heat map, failures by axis,
/// counts, JUnit suite totals): a few dozen bytes per job, with scenarios, configurations and registries interned.
/// Attempts, steps and artifacts are not here: writers stream them from the journal job by job.
struct RunIndex {
    struct Job {
        var id: String
        /// Index into ``RunIndex/scenarios``.
        var scenario: Int32
        /// Index into ``RunIndex/configurations``.
        var configuration: Int32
        /// Index into ``RunIndex/registries``.
        var registry: Int32
        var status: CellStatus
        var outcome: JobOutcome?
        var duration: Double?
        var failureStep: Int?
        var failureMessage: String?
        /// Attempts the journal counted.
        var attempts: Int32
    }

    struct Configuration {
        /// The canonical `k=v,k=v` text.
        var text: String
        /// Sorted by axis name.
        var axes: [AxisValue]
    }

    var run: RunSummary
    /// In plan order.
    var jobs: [Job] = []
    /// In order of first appearance in the plan.
    var scenarios: [(id: String, title: String)] = []
    var configurations: [Configuration] = []
    /// Sorted.
    var registries: [String] = []
    /// Every axis name of the run's configurations, sorted.
    var axisNames: [String] = []
    /// Attempts started (superseded ones included).
    var attemptCount = 0
    /// Workers that ran at least one attempt, sorted.
    var workers: [String] = []
    /// Wall time: start to finish, or to the last finished job while the run goes on. Nil before any job finished.
    var duration: Double?

    var runID: String { run.info.runID }

    /// Streams the run's job rows from the journal (one at a time) into the index.
    /// - Parameter totals: false leaves ``attemptCount`` and ``workers`` for the caller to set (the report writer
    ///   counts them in its pass over the attempts instead of two more queries).
    /// - Throws: ``ReportError`` `.unknownRun`, or the journal's error.
    init(runID: String, reader: JournalReader, totals: Bool = true) throws {
        guard let run = try reader.run(runID, countingOutcomes: false) else { throw ReportError.unknownRun(runID) }
        var builder = Builder(run: run)
        try reader.forEachJobRow(run: runID) { builder.add($0) }
        self = builder.finish()
        if totals { (attemptCount, workers) = try reader.attemptTotals(run: runID) }
    }

    /// The index of a run already in memory.
    init(_ report: RunReport) {
        var builder = Builder(run: report.run)
        for job in report.jobs { builder.add(job.row) }
        self = builder.finish()
        attemptCount = report.attemptCount
        workers = report.workers
    }

    private init(run: RunSummary) { self.run = run }

    private struct Builder {
        var index: RunIndex
        var scenarioIndex: [String: Int32] = [:]
        var configurationIndex: [String: [(json: String, id: Int32)]] = [:]
        var registryIndex: [String: Int32] = [:]
        var registryNames: [String] = []
        var axes = Set<String>()
        var lastFinish: Date?

        init(run: RunSummary) { index = RunIndex(run: run) }

        mutating func add(_ row: JobRow) {
            let job = row.job
            let scenario: Int32
            if let known = scenarioIndex[job.scenarioID] { scenario = known } else {
                scenario = Int32(index.scenarios.count)
                scenarioIndex[job.scenarioID] = scenario
                index.scenarios.append((job.scenarioID, job.scenarioTitle))
            }
            // The canonical text and the JSON describe one configuration; the JSON decides the values (looked up by
            // the text, then the JSON compared: no key string is built per job).
            let configuration: Int32
            if let known = configurationIndex[job.configuration]?.first(where: { $0.json == job.configurationJSON }) {
                configuration = known.id
            } else {
                configuration = Int32(index.configurations.count)
                configurationIndex[job.configuration, default: []].append((job.configurationJSON, configuration))
                let values = AxisValue.parse(configuration: job.configuration, json: job.configurationJSON)
                for value in values { axes.insert(value.axis) }
                index.configurations.append(Configuration(text: job.configuration, axes: values))
            }
            let registry: Int32
            if let known = registryIndex[job.registry] { registry = known } else {
                registry = Int32(registryNames.count)
                registryIndex[job.registry] = registry
                registryNames.append(job.registry)
            }
            if let finished = row.result?.finishedAt, finished > (lastFinish ?? .distantPast) { lastFinish = finished }
            index.jobs.append(Job(
                id: job.jobID, scenario: scenario, configuration: configuration, registry: registry,
                status: CellStatus(row), outcome: row.result?.outcome, duration: row.result?.duration,
                failureStep: row.result?.failureStep, failureMessage: row.result?.failureMessage,
                attempts: Int32(clamping: row.result?.attempts ?? 0)))
        }

        /// Registries renumbered in sorted order, axis names sorted, the duration.
        mutating func finish() -> RunIndex {
            let sorted = registryNames.sorted()
            let position = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, Int32($0)) })
            let renumber = registryNames.map { position[$0] ?? 0 }
            for i in index.jobs.indices { index.jobs[i].registry = renumber[Int(index.jobs[i].registry)] }
            index.registries = sorted
            index.axisNames = axes.sorted()
            let end = index.run.finishedAt ?? lastFinish
            index.duration = end.map { max(0, $0.timeIntervalSince(index.run.info.startedAt)) }
            return index
        }
    }

    func scenarioID(_ job: Job) -> String { scenarios[Int(job.scenario)].id }
    func scenarioTitle(_ job: Job) -> String { scenarios[Int(job.scenario)].title }
    func configuration(_ job: Job) -> Configuration { configurations[Int(job.configuration)] }
    func registry(_ job: Job) -> String { registries[Int(job.registry)] }

    /// The parsed axes of a streamed job row: its configuration's in the index (parsed once per configuration), or
    /// parsed now for a job the index does not hold (planned after the index was read, by a resume).
    func axes(of row: JobRow) -> [AxisValue] {
        if row.ordinal < jobs.count, jobs[row.ordinal].id == row.job.jobID {
            return configurations[Int(jobs[row.ordinal].configuration)].axes
        }
        return AxisValue.parse(configuration: row.job.configuration, json: row.job.configurationJSON)
    }

    /// Jobs by cell status (every status present, zero when none).
    var counts: [CellStatus: Int] {
        var counts = Dictionary(uniqueKeysWithValues: CellStatus.allCases.map { ($0, 0) })
        for job in jobs { counts[job.status, default: 0] += 1 }
        return counts
    }

    /// Jobs with a final outcome per second of run time.
    var jobsPerSecond: Double? {
        guard let duration, duration > 0 else { return nil }
        return Double(jobs.reduce(0) { $0 + ($1.outcome != nil ? 1 : 0) }) / duration
    }
}
