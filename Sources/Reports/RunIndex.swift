import FlowVocabulary
import Foundation
import Journal

/// The compact facts of every job that the parts of a report drawn at once need (heat map, failures by axis,
/// counts, JUnit suite totals): 32 bytes per job, with ids packed and scenarios, configurations and registries
/// interned (a configuration costs a few dozen bytes more, see ``ConfigurationTable``). Attempts, steps and
/// artifacts are not here: writers stream them from the journal job by job.
struct RunIndex {
    /// 24 bytes: the id is in ``ids`` at the job's plan position.
    struct Job {
        /// Index into ``RunIndex/scenarios``.
        var scenario: Int32
        /// Index into ``RunIndex/configurations``.
        var configuration: Int32
        /// Index into ``RunIndex/registries``.
        var registry: Int32
        /// Attempts the journal counted (at most 65,535 are told apart).
        var attempts: UInt16
        var status: CellStatus
        var outcome: JobOutcome?
        /// The duration in seconds, NaN for none.
        private var seconds: Double

        var duration: Double? { seconds.isNaN ? nil : seconds }

        init(scenario: Int32, configuration: Int32, registry: Int32, attempts: Int, status: CellStatus,
             outcome: JobOutcome?, duration: Double?) {
            self.scenario = scenario
            self.configuration = configuration
            self.registry = registry
            self.attempts = UInt16(clamping: attempts)
            self.status = status
            self.outcome = outcome
            seconds = duration ?? .nan
        }
    }

    /// A job's failing step and message, kept when the index is asked for them (the live page lists them; the
    /// report writer takes them from its pass over the attempts).
    struct Failure {
        var step: Int?
        var message: String?
    }

    var run: RunSummary
    /// In plan order.
    var jobs: [Job] = []
    /// The jobs' ids, by plan position.
    var ids = JobIDTable()
    /// In order of first appearance in the plan.
    var scenarios: [(id: String, title: String)] = []
    var configurations = ConfigurationTable()
    /// By plan position, for jobs that did not pass, when the index was built with `failures: true`.
    var failures: [Int: Failure] = [:]
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
    /// - Parameter failures: true keeps ``failures``.
    /// - Throws: ``ReportError`` `.unknownRun`, or the journal's error.
    init(runID: String, reader: JournalReader, totals: Bool = true, failures: Bool = false) throws {
        guard let run = try reader.run(runID, countingOutcomes: false) else { throw ReportError.unknownRun(runID) }
        var builder = Builder(run: run, failures: failures)
        try reader.forEachJobRow(run: runID) { builder.add($0) }
        self = builder.finish()
        if totals { (attemptCount, workers) = try reader.attemptTotals(run: runID) }
    }

    /// The index of a run already in memory.
    init(_ report: RunReport) {
        var builder = Builder(run: report.run, failures: true)
        for job in report.jobs { builder.add(job.row) }
        self = builder.finish()
        attemptCount = report.attemptCount
        workers = report.workers
    }

    /// The index of rows already read, in plan order (tests; reports stream them from the journal).
    init(run: RunSummary, rows: [JobRow]) {
        var builder = Builder(run: run, failures: true)
        for row in rows { builder.add(row) }
        self = builder.finish()
    }

    private init(run: RunSummary) { self.run = run }

    private struct Builder {
        var index: RunIndex
        let keepFailures: Bool
        var scenarioIndex: [String: Int32] = [:]
        var registryIndex: [String: Int32] = [:]
        var registryNames: [String] = []
        var lastFinish: Date?

        init(run: RunSummary, failures: Bool) {
            index = RunIndex(run: run)
            keepFailures = failures
        }

        mutating func add(_ row: JobRow) {
            let job = row.job
            let scenario: Int32
            if let known = scenarioIndex[job.scenarioID] { scenario = known } else {
                scenario = Int32(index.scenarios.count)
                scenarioIndex[job.scenarioID] = scenario
                index.scenarios.append((job.scenarioID, job.scenarioTitle))
            }
            let configuration = index.configurations.id(text: job.configuration, json: job.configurationJSON)
            let registry: Int32
            if let known = registryIndex[job.registry] { registry = known } else {
                registry = Int32(registryNames.count)
                registryIndex[job.registry] = registry
                registryNames.append(job.registry)
            }
            if let finished = row.result?.finishedAt, finished > (lastFinish ?? .distantPast) { lastFinish = finished }
            let status = CellStatus(row)
            if keepFailures && status != .passed && status != .notRun {
                index.failures[index.jobs.count] = Failure(step: row.result?.failureStep, message: row.result?.failureMessage)
            }
            index.ids.append(job.jobID)
            index.jobs.append(Job(
                scenario: scenario, configuration: configuration, registry: registry, attempts: row.result?.attempts ?? 0,
                status: status, outcome: row.result?.outcome, duration: row.result?.duration))
        }

        /// Registries renumbered in sorted order, axis names sorted, the duration.
        mutating func finish() -> RunIndex {
            let sorted = registryNames.sorted()
            let position = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, Int32($0)) })
            let renumber = registryNames.map { position[$0] ?? 0 }
            for i in index.jobs.indices { index.jobs[i].registry = renumber[Int(index.jobs[i].registry)] }
            index.registries = sorted
            index.axisNames = Set(index.configurations.values.map(\.axis)).sorted()
            let end = index.run.finishedAt ?? lastFinish
            index.duration = end.map { max(0, $0.timeIntervalSince(index.run.info.startedAt)) }
            return index
        }
    }

    func scenarioID(_ job: Job) -> String { scenarios[Int(job.scenario)].id }
    func scenarioTitle(_ job: Job) -> String { scenarios[Int(job.scenario)].title }
    func configurationText(_ job: Job) -> String { configurations.text(job.configuration) }
    func registry(_ job: Job) -> String { registries[Int(job.registry)] }

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
