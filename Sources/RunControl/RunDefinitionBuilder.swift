import Coordinator
import FlowCrypto
import FlowSpec
import FlowVocabulary
import Foundation
import Journal
import MatrixPlan
import Wire

/// A plan as the coordinator runs it: the run definition, each job's seed, the settings the journal records.
public enum RunDefinitionBuilder {
    /// Turns a plan into the coordinator's run definition: scenario bodies by hash, seeds, expected durations.
    public static func makeDefinition(plan: Plan, runID: String, reader: JournalReader, resume: ResumeState?) throws -> RunDefinition {
        let estimates = try reader.durationEstimates(including: PlannedJobIDs(plan.jobs.lazy.map(\.id)).contains)
        var bodies: [Bytes32: [UInt8]] = [:]
        var hashes: [String: Bytes32] = [:]
        var jobs: [RunJob] = []
        jobs.reserveCapacity(plan.jobs.count)
        var finished: [Int: JobOutcome] = [:]
        var offsets: [Int: Int] = [:]
        var priorFailures: [Int: Int] = [:]
        // Plan order is scenario by scenario: a job of the previous job's scenario shares its hash and its step keys (one
        // array for all its jobs, not one each).
        var previous: (scenario: Scenario, hash: Bytes32, stepKeys: [String])?
        for (index, job) in plan.jobs.enumerated() {
            let hash: Bytes32, stepKeys: [String]
            if let previous, previous.scenario == job.scenario {
                (hash, stepKeys) = (previous.hash, previous.stepKeys)
            } else {
                let body = Array(JobIdentity.canonicalJSON(job.scenario).utf8)
                let key = job.scenario.id + "\u{0}" + String(body.count)
                if let known = hashes[key], bodies[known] == body { hash = known } else {
                    hash = Bytes32(SHA256.hash(body)) ?? .zero
                    hashes[key] = hash
                    bodies[hash] = body
                }
                stepKeys = job.scenario.steps.map(\.key)
                previous = (job.scenario, hash, stepKeys)
            }
            // No history at all: zero, "unknown", and the scheduler goes by what this run measures.
            let seconds = estimates.expected(job.id, fallback: 0)
            jobs.append(RunJob(
                id: job.id, scenarioID: job.scenario.id, scenarioTitle: job.scenario.title, scenarioHash: hash,
                stepKeys: stepKeys, registry: job.registry, requiredLabels: plan.matrix.requiredLabels,
                configurations: job.configurations, configurationIndex: job.configurationIndex,
                seed: jobSeed(plan.matrix.seed, job.id), expectedDuration: .milliseconds(Int64(seconds * 1000))))
            if let resume {
                // Every real outcome stays; the other jobs (never run, interrupted, or not run, cancelled, or left
                // with a retry due when an interrupt stopped the run) run now, after the attempts and failures they
                // already made.
                if let outcome = resume.done[job.id] { finished[index] = outcome }
                if let next = resume.nextAttempt[job.id], next > 1 { offsets[index] = next - 1 }
                if let failures = resume.failures[job.id] { priorFailures[index] = failures }
            }
        }
        let scheduler = SchedulerSettings(retries: plan.matrix.retries, failFast: plan.matrix.failFast,
                                          jobTimeout: plan.matrix.jobTimeout)
        var definition = RunDefinition(runID: runID, jobs: jobs, scenarioBodies: bodies, scheduler: scheduler,
                                       finished: finished, attemptOffsets: offsets, keep: plan.matrix.keep)
        definition.priorFailures = priorFailures
        return definition
    }

    /// A job's seed: the matrix seed mixed with the job id, the same on every rerun of that job.
    public static func jobSeed(_ seed: UInt64, _ jobID: String) -> UInt64 {
        let digest = SHA256.hash(Array("\(seed):\(jobID)".utf8))
        return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The run's settings as stored in the journal; a shard also records its index, count, plan hash and the
    /// plan positions of its jobs (what `merge` checks and orders by).
    public static func settingsJSON(_ m: MatrixFile, planHash: String? = nil, shard: [String: Any]? = nil,
                                    key: String = "shard") -> String {
        var object: [String: Any] = [
            "registry": m.registry, "retries": m.retries, "jobTimeoutSeconds": m.jobTimeout.milliseconds / 1000,
            "failFast": m.failFast, "keep": m.keep.rawValue, "reduction": m.reduction.description,
        ]
        if m.registries.count > 1 { object["registries"] = m.registries }
        if let planHash { object["planHash"] = planHash }
        if let visual = m.visual, let value = try? JSONSerialization.jsonObject(with: Data(visual.json.utf8)) {
            object[MatrixFile.visualSettingsKey] = value
        }
        if let shard { object[key] = shard }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
