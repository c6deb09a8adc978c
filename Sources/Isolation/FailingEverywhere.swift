/// Subjects whose every source job failed every attempt, in at least two configurations: no value or combination of
/// values is needed for them to fail, so ``IsolationSession`` gives them no follow-up and ``IsolationRecord`` lists
/// them apart. (A scenario broken in every configuration had `direction=auto` confirmed by four follow-ups, which
/// failed like every other job.)
enum FailingEverywhere {
    /// Such subjects of the source run's jobs, with their job counts.
    static func subjects(in source: [Observation]) -> [Subject: Int] {
        var jobs: [Subject: [Observation]] = [:]
        for o in source where !o.followUp { jobs[o.subject, default: []].append(o) }
        return jobs.filter { _, os in
            os.allSatisfy { $0.verdict == .failed } && Set(os.map(\.configuration)).count >= 2
        }.mapValues(\.count)
    }
}
