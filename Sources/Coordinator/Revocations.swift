import FlowVocabulary

/// Taking back jobs that workers hold but have not started (REVOKE, protocol version 3): which jobs to ask for and
/// for whom (work stealing's promises), and which answers count. An answer counts only for an attempt that is live
/// on the answering worker with a REVOKE out for it; any other (a REVOKE nobody sent, a stale attempt) is ignored.
/// Pure: it works on the ledger and the workers the scheduler lends it.
struct Revocations: Sendable {
    /// Jobs being taken back for an idle worker.
    private(set) var stealing = WorkStealing()

    /// Whether job `index`'s live attempt is on `worker` with a REVOKE out for it.
    static func isOut(job index: Int, on worker: WorkerID, jobs: JobLedger) -> Bool {
        index >= 0 && index < jobs.count && jobs[index].revoking && jobs[index].live?.worker == worker
    }

    /// Asks `worker` to give back up to `count` of its newest in-flight jobs: marks them and returns them (nil when
    /// none). With a `thief`, only jobs it can run and that are long enough to be worth stealing
    /// (`stealingThreshold` against `durations`); without, any (dispatch stopped).
    mutating func request(
        from worker: WorkerID, count: Int, for thief: (id: WorkerID, capabilities: [Int])?,
        jobs: inout JobLedger, workers: inout SchedulerWorkers, durations: JobDurations, stealingThreshold: Duration
    ) -> [Assignment] {
        guard count > 0, var state = workers.removeValue(forKey: worker) else { return [] }
        defer { workers.put(state, for: worker, waiting: nil) }
        var batch: [Assignment] = []
        var position = state.recent.count - 1
        while position >= 0, batch.count < count {
            let job = state.recent[position]
            position -= 1
            let index = Int(job)
            guard state.inFlight.contains(job), !jobs[index].revoking, !state.suspects.contains(job),
                let live = jobs[index].live, live.worker == worker
            else { continue }
            if let thief {
                let c = Int(jobs[index].capability)
                guard thief.capabilities.contains(c),
                    durations.expectedDuration(ofJob: index, capability: c).map({ $0 >= stealingThreshold }) ?? true
                else { continue }
                stealing.promise(job, to: thief.id)
            }
            jobs[index].revoking = true
            state.revoking += 1
            batch.append(Assignment(job: index, attempt: Int(live.attempt)))
        }
        return batch
    }

    /// Work stealing: each worker with free slots and credit, and nothing queued that it can run, asks workers
    /// that hold jobs beyond their slots for enough of them to fill its slots. Returns the REVOKEs, in order.
    mutating func steal(
        jobs: inout JobLedger, workers: inout SchedulerWorkers, queueIsEmpty: (Int) -> Bool, durations: JobDurations,
        stealingThreshold: Duration
    ) -> [(WorkerID, [Assignment])] {
        guard let (thieves, victims) = WorkStealing.candidates(in: workers, queueIsEmpty: queueIsEmpty) else { return [] }
        var requests: [(WorkerID, [Assignment])] = []
        for thiefID in thieves {
            guard let thief = workers[thiefID] else { continue }
            var wanted = thief.slots - thief.inFlight.count
            wanted -= stealing.promisedCount(to: thiefID)
            for victimID in victims where victimID != thiefID {
                guard wanted > 0 else { break }
                guard let victim = workers[victimID] else { continue }
                let surplus = victim.surplus
                guard surplus > 0 else { continue }
                let batch = request(
                    from: victimID, count: min(surplus, wanted), for: (thiefID, thief.capabilities), jobs: &jobs,
                    workers: &workers, durations: durations, stealingThreshold: stealingThreshold)
                if !batch.isEmpty { requests.append((victimID, batch)) }
                wanted -= batch.count
            }
        }
        return requests
    }

    /// `worker` answered a REVOKE: the answers that count end their REVOKE, and the jobs it took back leave it
    /// (no longer in flight or live). Returns the attempts taken back, in answer order.
    mutating func answer(
        _ answers: [(Assignment, taken: Bool)], from worker: WorkerID, jobs: inout JobLedger,
        workers: inout SchedulerWorkers
    ) -> [Assignment] {
        var takenBack: [Assignment] = []
        for (assignment, taken) in answers {
            let index = assignment.job
            guard Self.isOut(job: index, on: worker, jobs: jobs), let live = jobs[index].live,
                Int(live.attempt) == assignment.attempt
            else { continue }
            end(index, on: worker, jobs: &jobs, workers: &workers)
            guard taken else { continue }
            workers[worker]?.inFlight.remove(Int32(index))
            workers[worker]?.suspects.remove(Int32(index))
            jobs[index].live = nil
            takenBack.append(assignment)
        }
        return takenBack
    }

    /// The REVOKE out for job `index` on `worker` is over (answered, or the attempt ended anyway).
    mutating func end(_ index: Int, on worker: WorkerID, jobs: inout JobLedger, workers: inout SchedulerWorkers) {
        jobs[index].revoking = false
        stealing.withdraw(Int32(index))
        workers[worker]?.revoking -= 1
    }

    /// Job `index` was lost with its worker: no REVOKE for it is out any more.
    mutating func forget(_ index: Int, jobs: inout JobLedger) {
        jobs[index].revoking = false
        stealing.withdraw(Int32(index))
    }
}
