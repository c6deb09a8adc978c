import FlowVocabulary

/// Work stealing's bookkeeping: which workers may take jobs that others hold but have not started, from whom, and
/// the jobs being taken back for a worker. Pure.
struct WorkStealing: Sendable {
    /// Jobs being taken back for an idle worker: job → the worker that wants it.
    private var promised: [Int32: WorkerID] = [:]
    /// Per thief, how many jobs are being taken back for it.
    private var promisedPerThief: [WorkerID: Int] = [:]

    mutating func promise(_ job: Int32, to thief: WorkerID) {
        withdraw(job)
        promised[job] = thief
        promisedPerThief[thief, default: 0] += 1
    }

    /// Job `job` is no longer being taken back (answered, or its worker lost).
    mutating func withdraw(_ job: Int32) {
        guard let thief = promised.removeValue(forKey: job) else { return }
        let left = (promisedPerThief[thief] ?? 1) - 1
        promisedPerThief[thief] = left > 0 ? left : nil
    }

    /// How many jobs are being taken back for `thief`.
    func promisedCount(to thief: WorkerID) -> Int { promisedPerThief[thief] ?? 0 }

    /// The workers that may steal and those they may steal from (speaking version 3, holding jobs beyond their
    /// slots), each sorted; nil unless both exist. This runs after every dispatch pass, so it looks only at the
    /// indexed idle workers and victims, never the whole fleet, and sorts nothing unless a thief and a victim exist.
    static func candidates(
        in workers: SchedulerWorkers, queueIsEmpty: (Int) -> Bool
    ) -> (thieves: [WorkerID], victims: [WorkerID])? {
        guard !workers.victims.isEmpty, !workers.idle.isEmpty else { return nil }
        let thieves = workers.idle.filter { workers[$0]?.wantsToSteal(queueIsEmpty: queueIsEmpty) ?? false }
        guard !thieves.isEmpty else { return nil }
        return (thieves.sorted(), workers.victims.sorted())
    }
}
