import FlowVocabulary

/// Worker loss: what becomes of the attempts a lost worker had in flight, and the memory of which jobs the newest 64
/// lost workers held, so a worker that comes back (the same process, reconnected) takes back the blame its loss put
/// on them. A job whose attempts are lost with `quarantineAfterWorkerLosses` workers in a row is quarantined. Pure:
/// it works on the ledger the scheduler lends it.
struct WorkerLosses: Sendable {
    /// What becomes of an attempt lost with its worker.
    enum Fate: Sendable {
        /// The job runs again, preferably on another worker.
        case again
        /// The job ends with this outcome, for this reason.
        case ends(JobOutcome, reason: String)
    }

    /// The jobs recently lost workers had in flight (the newest 64 workers), in case a worker comes back.
    private var held = BoundedMemory<WorkerID, [Int32]>(limit: 64)
    private let quarantineAfter: Int

    init(quarantineAfter: Int) { self.quarantineAfter = quarantineAfter }

    /// `worker` was lost holding `inFlight`: each of its live attempts there, in job order, with its fate. The
    /// attempts are no longer live. `faultless`: the coordinator closed the connection itself, so the loss neither
    /// counts toward quarantine nor is remembered. `dispatchStopped`: jobs that would run again end `notRun`.
    mutating func lose(
        _ worker: WorkerID, inFlight: Set<Int32>, faultless: Bool, dispatchStopped: Bool, jobs: inout JobLedger,
        revocations: inout Revocations
    ) -> [(Assignment, Fate)] {
        let lost = inFlight.sorted()
        if !faultless { held.remember(worker, lost) }
        var fates: [(Assignment, Fate)] = []
        for job in lost {
            let index = Int(job)
            guard let live = jobs[index].live, live.worker == worker else { continue }
            jobs[index].live = nil
            revocations.forget(index, jobs: &jobs)
            if !faultless { jobs[index].lostStreak += 1 }
            let fate: Fate
            if Int(jobs[index].lostStreak) >= quarantineAfter {
                fate = .ends(.quarantined,
                             reason: "its attempts lost \(jobs[index].lostStreak) workers in a row (crash or hang)")
            } else if dispatchStopped {
                fate = .ends(.notRun, reason: "dispatch stopped before it could run again")
            } else {
                fate = .again
            }
            fates.append((Assignment(job: index, attempt: Int(live.attempt)), fate))
        }
        return fates
    }

    /// A lost worker is back: the jobs lost with it were not at fault, so that loss no longer counts toward their
    /// quarantine. Returns the jobs whose streak of losses ended and that are live (on which worker): they need not
    /// run alone any more. Nil when `worker` is not remembered.
    mutating func returned(_ worker: WorkerID, jobs: inout JobLedger) -> [(job: Int32, on: WorkerID)]? {
        guard let jobsHeld = held.forget(worker) else { return nil }
        var cleared: [(job: Int32, on: WorkerID)] = []
        for job in jobsHeld {
            let index = Int(job)
            guard jobs[index].phase != .done, jobs[index].lostStreak > 0 else { continue }
            jobs[index].lostStreak -= 1
            if jobs[index].lostStreak == 0, let live = jobs[index].live { cleared.append((job, live.worker)) }
        }
        return cleared
    }
}
