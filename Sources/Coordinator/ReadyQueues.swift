import FlowVocabulary

/// The jobs waiting for a worker, one queue per capability (a registry and the labels it requires): fresh jobs
/// longest-expected-first, and re-queued ones (retries, jobs of lost workers) served before them, oldest first.
/// Pure: it knows job indexes and capabilities, not workers or attempts.
struct ReadyQueues: Sendable {
    struct Capability: Sendable, Hashable {
        var registry: String
        var labels: [String: String]
    }

    struct Queue: Sendable {
        /// Fresh jobs sorted longest-expected-first, consumed from `head`.
        var fresh: [Int32] = []
        var head = 0
        /// Re-queued jobs, served before fresh ones, oldest first.
        var retry: [Int32] = []
        var retryHead = 0
        var isEmpty: Bool { head == fresh.count && retryHead == retry.count }
        var count: Int { (fresh.count - head) + (retry.count - retryHead) }
    }

    /// Where the next job for a worker is: a capability's retry queue at a position, or its fresh queue's head.
    struct Pick {
        var job: Int
        var capability: Int
        var retryPosition: Int?
    }

    private(set) var capabilities: [Capability] = []
    private(set) var queues: [Queue] = []
    private var capabilityIndex: [Capability: Int] = [:]

    /// The capability job `job` needs, added if it is the first job to need it.
    mutating func capability(of job: SchedulableJob) -> Int {
        let cap = Capability(registry: job.registry, labels: job.requiredLabels)
        if let existing = capabilityIndex[cap] { return existing }
        capabilityIndex[cap] = capabilities.count
        capabilities.append(cap)
        queues.append(Queue())
        return capabilities.count - 1
    }

    mutating func addFresh(_ job: Int32, capability c: Int) { queues[c].fresh.append(job) }

    /// Orders the fresh queues longest expected first; ties keep plan order so dispatch is deterministic.
    mutating func sortFresh(expected: [Duration]) {
        for c in queues.indices {
            queues[c].fresh.sort { a, b in
                let (x, y) = (expected[Int(a)], expected[Int(b)])
                return x != y ? x > y : a < b
            }
        }
    }

    mutating func requeue(_ job: Int32, capability c: Int) { queues[c].retry.append(job) }

    func isEmpty(_ c: Int) -> Bool { queues[c].isEmpty }

    /// Whether re-queued jobs of capability `c` wait.
    func hasRetries(_ c: Int) -> Bool { queues[c].retryHead < queues[c].retry.count }

    /// The fresh job capability `c` serves next, if any.
    func freshHead(_ c: Int) -> Int? { queues[c].head < queues[c].fresh.count ? Int(queues[c].fresh[queues[c].head]) : nil }

    /// The capabilities a worker with these registries and labels can run.
    func eligible(registries: Set<String>, labels: [String: String]) -> [Int] {
        capabilities.indices.filter { c in
            let cap = capabilities[c]
            return registries.contains(cap.registry) && cap.labels.allSatisfy { labels[$0.key] == $0.value }
        }
    }

    /// Per capability that has jobs waiting and that `isServed` says no worker offers: its registry, labels, count.
    func unserved(isServed: (Int) -> Bool) -> [(registry: String, labels: [String: String], jobs: Int)] {
        queues.enumerated().compactMap { c, queue in
            guard !queue.isEmpty, !isServed(c) else { return nil }
            return (capabilities[c].registry, capabilities[c].labels, queue.count)
        }
    }

    /// Empties every queue; returns the jobs that were waiting, per capability retries first.
    mutating func drain() -> [Int32] {
        var jobs: [Int32] = []
        for c in queues.indices {
            let queue = queues[c]
            queues[c] = Queue()
            jobs += queue.retry[queue.retryHead...] + queue.fresh[queue.head...]
        }
        return jobs
    }

    /// The next job for a worker serving `served`, without taking it: the first retry that `retryFilter(c)` accepts,
    /// then the fresh job with the longest expected duration among the capabilities served. `retryFilter` is asked
    /// once per capability with retries waiting, and its answer once per retry.
    func peek(served: [Int], expected: [Duration], retryFilter: (_ capability: Int) -> (Int32) -> Bool) -> Pick? {
        for c in served where queues[c].retryHead < queues[c].retry.count {
            let queue = queues[c]
            let mayRetry = retryFilter(c)
            guard let position = queue.retry[queue.retryHead...].firstIndex(where: mayRetry) else {
                continue
            }
            return Pick(job: Int(queue.retry[position]), capability: c, retryPosition: position)
        }
        var best: Int?
        for c in served where queues[c].head < queues[c].fresh.count {
            if let b = best {
                if expected[Int(queues[c].fresh[queues[c].head])] > expected[Int(queues[b].fresh[queues[b].head])] { best = c }
            } else {
                best = c
            }
        }
        guard let c = best else { return nil }
        return Pick(job: Int(queues[c].fresh[queues[c].head]), capability: c, retryPosition: nil)
    }

    /// Takes the job `peek` found off its queue.
    mutating func take(_ pick: Pick) -> Int {
        let c = pick.capability
        guard let position = pick.retryPosition else {
            queues[c].head += 1
            return pick.job
        }
        var queue = queues[c]
        if position == queue.retryHead { queue.retryHead += 1 } else { queue.retry.remove(at: position) }
        if queue.retryHead == queue.retry.count {
            queue.retry.removeAll(keepingCapacity: true)
            queue.retryHead = 0
        }
        queues[c] = queue
        return pick.job
    }
}
