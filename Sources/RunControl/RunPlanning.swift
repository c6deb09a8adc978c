import Coordinator
import FlowSpec
import Foundation
import Journal
import MatrixPlan

/// The plan a run serves: the matrix loaded and checked, the request's overrides applied, repeated, cut to a shard
/// or to the jobs a resumed shard journaled.
struct PlannedRun {
    var plan: Plan
    var matrixPath: String
    /// The run's settings as journaled (`RunDefinitionBuilder.settingsJSON`).
    var settingsJSON: String
    var resume: ResumeState?
    /// Jobs a resume found with their retries used up (``ResumeState/settleExhausted(retries:)``), with the final
    /// results to journal for them.
    var settled: [(jobID: String, result: JobResult)] = []
}

/// A run ready to serve: journaled as started (or resumed), its plan turned into the coordinator's definition.
struct PreparedRun {
    var runID: String
    /// Held in an optional so the serving phase can take it: once the run is over, the definition, the engine and
    /// the server are gone before the reports are written (a million-job run must not hold both at once).
    var definition: RunDefinition?
    var matrixName: String
    var jobCount: Int
    /// Jobs final before this session (resume).
    var alreadyFinal: Int
    /// Added to the local workers' environment: the site the matrix names for its `web` registry.
    var workerEnvironment: [String: String] = [:]
}

extension RunController {
    /// Plans the run, builds its definition and journals its start (or that it resumed). The plan itself is not kept:
    /// the definition holds what the run needs.
    func prepare(_ journal: RunJournal) throws -> PreparedRun {
        let planStarted = ContinuousClock.now
        let planned = try makePlan(reader: journal.reader)
        let runID = request.resume ?? RunID.generate(at: Date())
        let definition = try RunDefinitionBuilder.makeDefinition(
            plan: planned.plan, runID: runID, reader: journal.reader, resume: planned.resume)
        var prepared = PreparedRun(runID: runID, definition: definition, matrixName: planned.plan.matrix.name,
                                   jobCount: definition.jobs.count, alreadyFinal: definition.finished.count)
        prepared.workerEnvironment = planned.plan.matrix.webSite?.workerEnvironment ?? [:]
        emit(.planned(jobs: planned.plan.jobs.count, seconds: (ContinuousClock.now - planStarted).milliseconds / 1000))
        if planned.resume != nil {
            emit(.resuming(runID: runID, alreadyFinal: prepared.alreadyFinal,
                           toRun: prepared.jobCount - prepared.alreadyFinal))
        }
        try journal.recordStart(of: planned, runID: runID)
        return prepared
    }

    /// Loads the matrix (or the resumed run's), applies the request, and checks local workers can serve it.
    /// - Throws: `RunError` (`.usage` without a matrix, `.invalidInput` for findings, the job limit or a registry
    ///   no local worker hosts, `.io` for an unknown run).
    func makePlan(reader: JournalReader) throws -> PlannedRun {
        var resumeState: ResumeState?
        var matrixPath = request.matrixPath
        var resumedShard = false
        if let runID = request.resume {
            guard let summary = try reader.run(runID) else {
                throw RunError(.io, "no run '\(runID)' in \(request.store.journalPath)")
            }
            resumeState = try reader.resumeState(run: runID)
            resumedShard = summary.isShard
            if matrixPath == nil { matrixPath = summary.info.matrixPath }
        }
        guard let matrixPath else { throw RunError(.usage, "missing <matrix>") }
        emit(.planning(matrixPath: matrixPath))
        let (loaded, findings) = request.plan.flatMap { request.resume == nil ? ($0, []) : nil }
            ?? MatrixPlanner.load(matrixAt: URL(fileURLWithPath: matrixPath), settings: request.planSettings)
        guard var plan = loaded, findings.isEmpty else {
            throw RunError(.invalidInput, "\(matrixPath) has \(findings.count) finding(s); the run did not start",
                           findings: findings.sortedForDisplay())
        }
        if let r = request.retriesOverride { plan.matrix.retries = r }
        if let s = request.seedOverride { plan.matrix.seed = s }
        var settled: [(jobID: String, result: JobResult)] = []
        if let runID = request.resume {
            settled = try Self.settleExhausted(&resumeState, reader: reader, retries: plan.matrix.retries, runID: runID)
        }
        let repetitions = request.repetitionsOverride ?? plan.matrix.repetitions
        if repetitions > 1 {
            guard plan.jobs.count * repetitions <= request.planSettings.maximumJobs else {
                throw RunError(.invalidInput, "\(plan.jobs.count) jobs × \(repetitions) repetitions is more than the job "
                    + "limit of \(request.planSettings.maximumJobs) (MX025); nothing runs. Raise it with --max-jobs, or "
                    + "repeat fewer times.")
            }
            plan.jobs = Repetitions.expand(plan.jobs, count: repetitions)
        }
        let planHash = plan.hash
        var shardRecord: [String: Any]?
        if let shard = request.shard {
            shardRecord = shard.apply(to: &plan)
        } else if let resumeState, resumedShard {
            // A shard resumes with the jobs it journaled, not a new split.
            plan.jobs = plan.jobs.filter { resumeState.done[$0.id] != nil || resumeState.nextAttempt[$0.id] != nil }
        }
        try checkLocalWorkers(serve: plan.matrix)
        let settings = RunDefinitionBuilder.settingsJSON(plan.matrix, planHash: planHash, shard: shardRecord,
                                                         key: request.shard?.settingsKey ?? "shard")
        return PlannedRun(plan: plan, matrixPath: matrixPath, settingsJSON: settings, resume: resumeState,
                          settled: settled)
    }

    /// Ends the resumed jobs whose failed attempts already used up `retries` (the coordinator stopped after the last
    /// one's failing step, or its result, reached the journal, before the job's result did): they are `failed` with
    /// their last failure, as an uninterrupted run would have ended them, and make no further attempt.
    private static func settleExhausted(
        _ state: inout ResumeState?, reader: JournalReader, retries: Int, runID: String
    ) throws -> [(jobID: String, result: JobResult)] {
        guard var resume = state else { return [] }
        let attempts = resume.nextAttempt
        let exhausted = resume.settleExhausted(retries: retries)
        state = resume
        return try exhausted.map { id in
            let last = try reader.lastFailure(run: runID, job: id)
            return (id, JobResult(outcome: last?.outcome ?? .failed, attempts: max(0, (attempts[id] ?? 1) - 1),
                                  duration: last?.duration, failureStep: last?.failureStep,
                                  failureMessage: last?.message, finishedAt: Date()))
        }
    }

    /// Refuses a matrix whose registry or labels the local workers do not have (its jobs would wait forever).
    private func checkLocalWorkers(serve matrix: MatrixFile) throws {
        guard let local = request.localWorkers, local.count > 0 else { return }
        if let hosted = local.launch.hostedRegistries, let missing = matrix.registries.first(where: { !hosted.contains($0) }) {
            throw RunError(.invalidInput, "the matrix needs registry '\(missing)', which local workers do not host "
                + "(they host: \(hosted.sorted().joined(separator: ", "))); use 'flowmatrix serve' with your own workers")
        }
        guard matrix.requiredLabels.isEmpty else {
            let labels = matrix.requiredLabels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            throw RunError(.invalidInput, "the matrix requires worker labels \(labels.joined(separator: ", ")), which "
                + "local workers do not carry; use 'flowmatrix serve' with workers started with --label")
        }
    }
}
