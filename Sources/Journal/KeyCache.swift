/// The writer's cache of row keys: the key of each run by run id, and the job keys of one run by job id.
///
/// Job keys are kept for the run whose jobs were last cached (a writer serves one run at a time): finding a job's
/// key costs a comparison of run ids, usually the same string storage, and one hash of the job id, where a key of
/// run id and job id together would hash both strings per record. Jobs of another run are looked up through SQL
/// and then become the cached run.
struct KeyCache {
    private var runs: [String: Int64] = [:]
    private var jobsRunID: String?
    private var jobs: [String: Int64] = [:]

    /// About 100 MB of keys at most; past it the cache starts again (lookups still work, through SQL).
    private static let jobLimit = 1_000_000

    func run(_ runID: String) -> Int64? { runs[runID] }

    mutating func setRun(_ key: Int64, for runID: String) { runs[runID] = key }

    func job(_ runID: String, _ jobID: String) -> Int64? {
        guard jobsRunID == runID else { return nil }
        return jobs[jobID]
    }

    mutating func setJob(_ key: Int64, for runID: String, _ jobID: String) {
        if jobsRunID != runID {
            jobs.removeAll(keepingCapacity: true)
            jobsRunID = runID
        } else if jobs.count >= Self.jobLimit {
            jobs.removeAll(keepingCapacity: true)
        }
        if jobs.capacity == 0 { jobs.reserveCapacity(1 << 16) }
        jobs[jobID] = key
    }

    /// Forgets every key: after a rollback they may name rows that no longer exist.
    mutating func removeAll() {
        runs.removeAll()
        jobs.removeAll()
        jobsRunID = nil
    }
}
