import FlowVocabulary
import Foundation
import Journal
import MatrixPlan
import RunControl

/// Which shard a `flowmatrix run --shard …` runs, where that came from, and the durations that balance the split.
struct ShardSelection: PlanShard {
    var spec: ShardSpec
    /// Where the index and count came from (`--shard`, `CI_NODE_INDEX/CI_NODE_TOTAL`, …), for the run's first line.
    var source: String
    /// Expected seconds per job id (`--durations`); nil splits by count.
    var durations: [String: Double]?
    /// The `--durations` path, recorded in the run's settings.
    var durationsPath: String?

    /// The environment variables each engine sets, in the order they are looked at by `--shard auto`.
    static let environmentHelp = """
        --shard auto reads the index and count from the engine's environment:
          Kubernetes Indexed Job   JOB_COMPLETION_INDEX (from 0) + --shard-count N or FLOWMATRIX_SHARD_COUNT
          GitLab parallel:         CI_NODE_INDEX (from 1) / CI_NODE_TOTAL
          Buildkite parallelism    BUILDKITE_PARALLEL_JOB (from 0) / BUILDKITE_PARALLEL_JOB_COUNT
          GitHub Actions matrix    no variables: pass --shard ${{ matrix.shard }}/N
        """

    /// Resolves `--shard i/n` or `--shard auto` (with `--shard-count`) against `environment`.
    /// - Returns: nil when neither `--shard` nor `--shard-count` is given.
    /// - Throws: `UsageError` for a malformed value or an `auto` that finds no engine variables.
    static func resolve(shard: String?, count: Int?, environment: [String: String]) throws -> (ShardSpec, String)? {
        guard let shard else {
            if count != nil { throw UsageError("'--shard-count' goes with '--shard auto'") }
            return nil
        }
        if shard != "auto" {
            guard count == nil else { throw UsageError("'--shard-count' goes with '--shard auto', not '--shard i/n'") }
            guard let spec = ShardSpec(shard) else {
                throw UsageError("'--shard' takes i/n with 1 <= i <= n (e.g. 2/4), or 'auto', not '\(shard)'")
            }
            return (spec, "--shard")
        }
        func int(_ name: String) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw UsageError("\(name) is '\(text)', not a whole number")
            }
            return value
        }
        func make(_ index: Int, _ total: Int, _ from: String) throws -> (ShardSpec, String) {
            guard let spec = ShardSpec(index: index, count: total) else {
                throw UsageError("\(from) give shard \(index) of \(total), which does not exist (shards count from 1)")
            }
            return (spec, from)
        }
        if let index = try int("JOB_COMPLETION_INDEX") {
            guard let total = try count ?? int("FLOWMATRIX_SHARD_COUNT") else {
                throw UsageError("JOB_COMPLETION_INDEX is set (Kubernetes Indexed Job) but not the shard count: "
                    + "pass --shard-count N or set FLOWMATRIX_SHARD_COUNT")
            }
            return try make(index + 1, total, "JOB_COMPLETION_INDEX (from 0) of \(total)")
        }
        if let index = try int("CI_NODE_INDEX"), let total = try int("CI_NODE_TOTAL") {
            return try make(index, total, "CI_NODE_INDEX/CI_NODE_TOTAL")
        }
        if let index = try int("BUILDKITE_PARALLEL_JOB"), let total = try int("BUILDKITE_PARALLEL_JOB_COUNT") {
            return try make(index + 1, total, "BUILDKITE_PARALLEL_JOB (from 0)/BUILDKITE_PARALLEL_JOB_COUNT")
        }
        throw UsageError("'--shard auto' found none of JOB_COMPLETION_INDEX, CI_NODE_INDEX/CI_NODE_TOTAL, "
            + "BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT; pass --shard i/n")
    }

    /// Expected seconds per job from a previous run: a journal (`journal.sqlite`, or its store folder; medians
    /// over the recent runs) or a `summary.json` (docs/REPORTS.md).
    /// - Throws: `CommandFailure` when the file cannot be read or is neither.
    static func loadDurations(_ path: String) throws -> [String: Double] {
        var isFolder: ObjCBool = false
        var file = path
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            file = RunStore(path: path).journalPath
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure("cannot read the durations file \(file)")
        }
        if data.starts(with: Array("SQLite format 3\u{0}".utf8)) {
            do {
                return try JournalReader(path: file).durationEstimates().perJob
            } catch {
                throw CommandFailure("cannot read durations from the journal \(file): \(error)")
            }
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandFailure("\(file) is neither a journal nor a summary.json")
        }
        guard object["schemaVersion"] != nil else {
            throw CommandFailure("\(file) is JSON but not a summary.json (no schemaVersion)")
        }
        var out: [String: Double] = [:]
        // Plain passes: [id, scenarioID, configuration, registry, durationSeconds].
        for case let row as [Any] in object["passed"] as? [Any] ?? [] where row.count >= 5 {
            if let id = row[0] as? String, let seconds = (row[4] as? NSNumber)?.doubleValue { out[id] = seconds }
        }
        for case let job as [String: Any] in object["jobs"] as? [Any] ?? [] {
            if let id = job["id"] as? String, let seconds = (job["durationSeconds"] as? NSNumber)?.doubleValue {
                out[id] = seconds
            }
        }
        return out
    }

    /// Keeps only this shard's jobs of `plan` and returns what the run's settings record about it.
    func apply(to plan: inout Plan) -> [String: Any] {
        let hash = plan.hash
        let total = plan.jobs.count
        let split = ShardSplit(jobIDs: plan.jobs.map(\.id), count: spec.count, durations: durations)
        let positions = split.positions(of: spec)
        plan.jobs = positions.map { plan.jobs[$0] }
        var record: [String: Any] = [
            "index": spec.index, "count": spec.count, "planHash": hash, "planJobs": total,
            "split": split.method.rawValue, "positions": positions,
        ]
        if let durationsPath { record["durations"] = durationsPath }
        return record
    }
}
