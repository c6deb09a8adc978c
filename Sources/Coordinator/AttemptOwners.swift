/// Which connection owns each job's live attempt, and how many steps that attempt reported: the only attempt a
/// peer's STEP, RESULT, REVOKED answer or ARTIFACT_CHUNK is taken from (docs/PROTOCOL.md, "Bounds"). It also finds
/// a job by its id. Per job, two flat arrays rather than a set of keys, so checking a report costs two loads.
struct AttemptOwners {
    private let jobIndex: [String: Int]
    /// A job's STEP events and RESULT arrive one after another, so the last lookup is kept: comparing two ids is
    /// cheaper than hashing one.
    private var lastLookup: (id: String, index: Int)?
    /// Per job, the peer holding its latest assignment (0: none, or it reported its result) and that attempt's wire
    /// number.
    private var peer: [UInt64]
    private var attempt: [UInt32]
    /// Per job, the steps taken of its latest assigned attempt.
    private var steps: [UInt32]

    init(jobIDs: [String]) {
        var index: [String: Int] = [:]
        index.reserveCapacity(jobIDs.count)
        for (i, id) in jobIDs.enumerated() { index[id] = i }
        jobIndex = index
        peer = Array(repeating: 0, count: jobIDs.count)
        attempt = Array(repeating: 0, count: jobIDs.count)
        steps = Array(repeating: 0, count: jobIDs.count)
    }

    /// The index of job `id`, remembering the answer for the next report.
    mutating func index(of id: String) -> Int? {
        if let last = lastLookup, last.id == id { return last.index }
        guard let index = jobIndex[id] else { return nil }
        lastLookup = (id, index)
        return index
    }

    /// The index of job `id`, without remembering it (a report that is not one of an attempt's steps).
    func knownIndex(of id: String) -> Int? { jobIndex[id] }

    /// `owner` now holds attempt `wireAttempt` of job `index`, with no step reported yet.
    mutating func assign(_ index: Int, to owner: UInt64, attempt wireAttempt: UInt32) {
        peer[index] = owner
        attempt[index] = wireAttempt
        steps[index] = 0
    }

    /// Whether `owner` holds attempt `wireAttempt` of job `index`.
    func owns(_ index: Int, peer owner: UInt64, attempt wireAttempt: UInt32) -> Bool {
        peer[index] == owner && attempt[index] == wireAttempt
    }

    /// No connection holds job `index`'s latest attempt any more.
    mutating func release(_ index: Int) { peer[index] = 0 }

    /// Attempt `wireAttempt` of job `index` is over: if it is the latest, no connection holds it any more.
    mutating func release(_ index: Int, ifAttempt wireAttempt: UInt32) {
        if attempt[index] == wireAttempt { peer[index] = 0 }
    }

    /// Counts `count` more steps of job `index`'s live attempt. - Returns: false past `bound` (nothing is counted).
    mutating func takeSteps(_ count: Int, job index: Int, bound: Int) -> Bool {
        let total = Int(steps[index]) + count
        guard total <= bound else { return false }
        steps[index] = UInt32(total)
        return true
    }
}
