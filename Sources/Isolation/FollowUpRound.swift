/// A round being assembled: the follow-ups asked for so far, their configurations, and whether a trial found its
/// follow-up already run.
struct FollowUpRound {
    var out: [IsolationSession.FollowUp] = []
    var asked = Set<IsolationSession.Key>()
    /// Per subject, the configurations its trials of this round keep (one trial per configuration: a second one took
    /// the first one's job as its own evidence, and a flaky value's failing follow-up confirmed another value it held).
    var kept: [Subject: [[String: String]]] = [:]
    var reused = false

    /// Adds a follow-up while `budget` (the jobs left) allows: one job per configuration of a scenario, so a command
    /// job's tests that ask for the same one share it.
    mutating func add(_ f: IsolationSession.FollowUp, budget: Int) {
        guard out.count < budget else { return }
        if asked.insert(IsolationSession.Key(subject: f.subject.job, configuration: f.configuration)).inserted { out.append(f) }
    }
}
