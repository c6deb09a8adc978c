import FlowVocabulary

/// What the scheduler knows of how long jobs take, and so how deep a worker is fed: each job's expected duration
/// (from history), and per capability a moving average of what this run measured. Pure: no clock.
struct JobDurations: Sendable {
    /// Per job, its expected duration (zero: unknown).
    let expected: [Duration]
    /// `expected` in nanoseconds, for the per-assignment depth check (Duration arithmetic is 128-bit).
    let expectedNanos: [Int64]
    /// Per capability, a moving average of the durations measured in this run, in nanoseconds (0: none yet).
    private(set) var measuredNanos: [Int64]
    /// `SchedulerSettings.queuedWorkPerSlot` in nanoseconds.
    let queuedWorkNanos: Int64

    init(jobs: [SchedulableJob], capabilityCount: Int, queuedWorkPerSlot: Duration) {
        expected = jobs.map(\.expectedDuration)
        expectedNanos = jobs.map { Self.nanoseconds($0.expectedDuration) }
        measuredNanos = Array(repeating: 0, count: capabilityCount)
        queuedWorkNanos = Self.nanoseconds(queuedWorkPerSlot)
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        let (seconds, attoseconds) = d.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Job `index`'s history, else what this run measured of its capability `c`.
    func expectedDuration(ofJob index: Int, capability c: Int) -> Duration? {
        if expected[index] > .zero { return expected[index] }
        let nanos = measuredNanos[c]
        return nanos > 0 ? .nanoseconds(nanos) : nil
    }

    /// An attempt of a job of capability `c` took `nanoseconds`: integer arithmetic only, as it runs once per result.
    /// Returns whether jobs of unknown length there may now be fed deeper (so workers at their depth look again).
    mutating func measure(capability c: Int, nanoseconds: Int64, maximumCreditPerSlot: Int) -> Bool {
        let before = measuredDepthPerSlot(c, maximumCreditPerSlot: maximumCreditPerSlot)
        // A moving average weighting the newest 1/8; 0 means none yet, so every measurement is at least 1 ns.
        let previous = measuredNanos[c]
        measuredNanos[c] = max(1, previous == 0 ? nanoseconds : (previous * 7 + nanoseconds) / 8)
        return measuredDepthPerSlot(c, maximumCreditPerSlot: maximumCreditPerSlot) > before
    }

    /// How many jobs of unknown length per slot capability `c`'s measurements allow queued.
    private func measuredDepthPerSlot(_ c: Int, maximumCreditPerSlot: Int) -> Int64 {
        let nanos = measuredNanos[c]
        guard nanos > 0 else { return 1 }
        return min(Int64(maximumCreditPerSlot), queuedWorkNanos / nanos)
    }

    /// Whether job `next`, now first of its capability `c`'s fresh queue, may be fed deeper than job `taken` was.
    func feedsDeeper(next: Int, than taken: Int, capability c: Int, settings: SchedulerSettings) -> Bool {
        queuedAllowance(slots: 1, job: next, capability: c, settings: settings)
            > queuedAllowance(slots: 1, job: taken, capability: c, settings: settings)
    }

    /// Jobs beyond its slots that a worker may hold, for job `index` (of capability `c`): as many per slot as
    /// fit in `queuedWorkPerSlot`, at most `maximumCreditPerSlot`. Jobs longer than that get none: a slot then
    /// pulls its next job when it frees (one round trip, negligible next to the job), which is greedy list
    /// scheduling — no job waits behind another on a busy worker while a slot elsewhere is free. Unknown
    /// durations get one per slot until the run measures some.
    func queuedAllowance(slots: Int, job index: Int, capability c: Int, settings: SchedulerSettings) -> Int {
        guard settings.adaptiveFeeding else { return slots * settings.maximumCreditPerSlot }
        // The job's history, else what the run measured of its capability (nanoseconds; 0 = unknown).
        let known = expectedNanos[index]
        let nanos = known > 0 ? known : measuredNanos[c]
        guard nanos > 0 else { return slots }
        return slots * Int(min(Int64(settings.maximumCreditPerSlot), queuedWorkNanos / nanos))
    }
}
