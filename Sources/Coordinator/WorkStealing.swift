import FlowVocabulary

/// Work stealing's bookkeeping: which workers may take jobs that others hold but have not started, from whom, and
/// the jobs being taken back for a worker. Pure.
struct WorkStealing: Sendable {
    /// Jobs being taken back for an idle worker: job → the worker that wants it.
    private var promised: [Int32: WorkerID] = [:]

    mutating func promise(_ job: Int32, to thief: WorkerID) { promised[job] = thief }

    /// Job `job` is no longer being taken back (answered, or its worker lost).
    mutating func withdraw(_ job: Int32) { promised[job] = nil }

    /// How many jobs are being taken back for `thief`.
    func promisedCount(to thief: WorkerID) -> Int { promised.values.reduce(0) { $0 + ($1 == thief ? 1 : 0) } }

    /// The workers that may steal and those they may steal from (speaking version 3, holding jobs beyond their
    /// slots), each sorted; nil unless both exist. Cheap checks first, as this runs after every dispatch pass:
    /// nothing sorts unless a thief and a victim exist.
    static func candidates(
        in workers: [WorkerID: SchedulerWorker], queueIsEmpty: (Int) -> Bool
    ) -> (thieves: [WorkerID], victims: [WorkerID])? {
        var thieves: [WorkerID] = []
        var victims: [WorkerID] = []
        for (id, worker) in workers {
            if worker.canRevoke, worker.surplus > 0 { victims.append(id) }
            if worker.wantsToSteal(queueIsEmpty: queueIsEmpty) { thieves.append(id) }
        }
        guard !thieves.isEmpty, !victims.isEmpty else { return nil }
        return (thieves.sorted(), victims.sorted())
    }
}
