import FlowVocabulary

/// One connected worker as the scheduler sees it: what it can run, its slots and credit, the jobs it holds. Pure.
struct SchedulerWorker: Sendable {
    var name: String
    /// The capabilities (indexes into `ReadyQueues.capabilities`) it can run.
    var capabilities: [Int]
    var slots: Int
    /// It speaks protocol version 3: attempts it has not started can be taken back.
    var canRevoke: Bool
    var credit: Int = 0
    var inFlight: Set<Int32> = []
    /// Its jobs in the order they were assigned (with some already ended): the newest are the likeliest to be
    /// still queued on the worker, so they are the ones revoked.
    var recent: [Int32] = []
    /// In-flight jobs with an unanswered REVOKE.
    var revoking = 0
    /// In-flight jobs that were on a worker when it was lost: they run alone, so the next loss is theirs.
    var suspects: Set<Int32> = []
    var lastSeen: Duration

    /// Jobs it holds beyond its slots that no REVOKE asks for yet: what work stealing may take.
    var surplus: Int { inFlight.count - revoking - slots }

    /// It grants `count` more jobs of capacity. A worker may not hoard the queue: its credit is capped at
    /// `maximumPerSlot` per advertised slot.
    mutating func grant(_ count: Int, maximumPerSlot: Int) {
        credit = min(slots * maximumPerSlot, credit + max(0, count))
    }

    /// It has a free slot and credit, no suspect running alone, and nothing queued that it can run (`isEmpty` per
    /// capability): it may take jobs other workers hold.
    func wantsToSteal(queueIsEmpty isEmpty: (Int) -> Bool) -> Bool {
        credit > 0 && suspects.isEmpty && inFlight.count < slots && capabilities.allSatisfy(isEmpty)
    }

    /// Forgets ended jobs in `recent` once they outnumber the live ones, so it does not grow with the run.
    mutating func pruneRecent() {
        guard recent.count > 2 * inFlight.count + 64 else { return }
        let inFlight = inFlight
        recent.removeAll { !inFlight.contains($0) }
    }
}
