import FlowVocabulary

/// The connected workers, indexed so that a result costs the same however large the fleet is. Pure.
///
/// Dispatch visits only `pending` workers: those whose state changed since it last looked at them (credit granted,
/// a job ended, a REVOKE answered). A worker with credit that found nothing to take waits on each capability it
/// serves, as `waitingForJobs` (no job it may take) or `waitingForDepth` (it holds as many as the next job's
/// feeding depth allows), until something it waits for happens there: a job queued again (`wake(capability:)`), or
/// a shorter job or measurement deepening the feed (`wakeForDepth(capability:)`). Work stealing looks only at
/// `idle` workers (credit, a free slot, no suspect) and `victims` (speaking version 3 and holding surplus jobs).
/// Every mutation through the subscript re-indexes its worker, so the index cannot drift from the workers.
struct SchedulerWorkers: Sendable {
    /// Why dispatch left a worker with credit unserved.
    enum Wait: Sendable { case jobs, depth }

    private var byID: [WorkerID: SchedulerWorker] = [:]
    private var pending: Set<WorkerID> = []
    private var waiting: [WorkerID: Wait] = [:]
    private var waitingForJobs: [Set<WorkerID>]
    private var waitingForDepth: [Set<WorkerID>]
    /// Workers with credit, a free slot and no suspect running alone: those that may steal.
    private(set) var idle: Set<WorkerID> = []
    /// Workers speaking version 3 that hold jobs beyond their slots with no REVOKE for them: those stolen from.
    private(set) var victims: Set<WorkerID> = []
    /// Per capability, how many workers can run it.
    private var servers: [Int]
    /// Jobs in flight over every worker.
    private(set) var inFlightCount = 0
    /// How many times a waiting worker was woken: dispatch checks for newly pending workers only when it grew.
    private(set) var wakes = 0

    init(capabilityCount: Int) {
        waitingForJobs = Array(repeating: [], count: capabilityCount)
        waitingForDepth = Array(repeating: [], count: capabilityCount)
        servers = Array(repeating: 0, count: capabilityCount)
    }

    var count: Int { byID.count }
    var ids: Dictionary<WorkerID, SchedulerWorker>.Keys { byID.keys }
    var values: Dictionary<WorkerID, SchedulerWorker>.Values { byID.values }
    /// Every worker in id order (the order every scheduling decision that spans workers follows).
    var sorted: [(key: WorkerID, value: SchedulerWorker)] { byID.sorted { $0.key < $1.key } }

    /// Whether a connected worker can run capability `c`.
    func serves(_ c: Int) -> Bool { servers[c] > 0 }

    /// A worker, re-indexed after every change made through it.
    subscript(id: WorkerID) -> SchedulerWorker? {
        get { byID[id] }
        _modify {
            // Only scalars and the capabilities array are kept across the yield, so the worker's sets stay uniquely
            // referenced and are changed in place.
            let oldInFlight = byID[id]?.inFlight.count
            let oldCapabilities = byID[id]?.capabilities
            yield &byID[id]
            reindex(id, oldInFlight: oldInFlight, oldCapabilities: oldCapabilities)
        }
    }

    /// Takes the worker out (a lost worker, or one dispatch works on); nil if unknown.
    mutating func removeValue(forKey id: WorkerID) -> SchedulerWorker? {
        guard let worker = byID[id] else { return nil }
        self[id] = nil
        return worker
    }

    /// Puts back a worker that dispatch worked on; `waiting` says why it still has unused credit, if it does.
    mutating func put(_ worker: SchedulerWorker, for id: WorkerID, waiting reason: Wait?) {
        self[id] = worker
        guard let reason, worker.credit > 0, pending.remove(id) != nil else { return }
        waiting[id] = reason
        for c in worker.capabilities {
            switch reason {
            case .jobs: waitingForJobs[c].insert(id)
            case .depth: waitingForDepth[c].insert(id)
            }
        }
    }

    /// Records that `id` was heard from; no scheduling state changes, so it is not re-indexed.
    mutating func sawAlive(_ id: WorkerID, at now: Duration) {
        byID[id]?.lastSeen = now
    }

    /// The workers dispatch must look at (those above `after`, if given), in id order; they leave the set.
    mutating func takePending(after: WorkerID?) -> [WorkerID] {
        guard !pending.isEmpty else { return [] }
        guard let after else {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending.sorted()
        }
        let taken = pending.filter { $0 > after }
        pending.subtract(taken)
        return taken.sorted()
    }

    /// Whether a worker above `id` waits for dispatch.
    func hasPending(after id: WorkerID) -> Bool { pending.contains { $0 > id } }

    /// A job of capability `c` was queued: every worker waiting on `c` looks again.
    mutating func wake(capability c: Int) {
        for id in waitingForJobs[c] { unwait(id) }
        wakeForDepth(capability: c)
    }

    /// Capability `c`'s next job may be fed deeper than before: workers at their depth there look again.
    mutating func wakeForDepth(capability c: Int) {
        for id in waitingForDepth[c] { unwait(id) }
    }

    /// Something every waiting worker's choice depends on changed (a suspect cleared): all look again.
    mutating func wakeAll() {
        for id in Array(waiting.keys) { unwait(id) }
    }

    private mutating func unwait(_ id: WorkerID) {
        guard let reason = waiting.removeValue(forKey: id) else { return }
        if let worker = byID[id] {
            for c in worker.capabilities {
                switch reason {
                case .jobs: waitingForJobs[c].remove(id)
                case .depth: waitingForDepth[c].remove(id)
                }
            }
        }
        pending.insert(id)
        wakes += 1
    }

    private mutating func reindex(_ id: WorkerID, oldInFlight: Int?, oldCapabilities: [Int]?) {
        if let reason = waiting.removeValue(forKey: id), let capabilities = oldCapabilities {
            for c in capabilities {
                switch reason {
                case .jobs: waitingForJobs[c].remove(id)
                case .depth: waitingForDepth[c].remove(id)
                }
            }
        }
        inFlightCount -= oldInFlight ?? 0
        guard let worker = byID[id] else {
            for c in oldCapabilities ?? [] { servers[c] -= 1 }
            pending.remove(id)
            idle.remove(id)
            victims.remove(id)
            return
        }
        if oldCapabilities == nil { for c in worker.capabilities { servers[c] += 1 } }
        inFlightCount += worker.inFlight.count
        let mayTake = worker.credit > 0 && worker.suspects.isEmpty
        if mayTake { pending.insert(id) } else { pending.remove(id) }
        if mayTake && worker.inFlight.count < worker.slots { idle.insert(id) } else { idle.remove(id) }
        if worker.canRevoke && worker.surplus > 0 { victims.insert(id) } else { victims.remove(id) }
    }
}
