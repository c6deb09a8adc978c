/// A round being assembled: the follow-ups asked for so far, their configurations, and whether a trial found its
/// follow-up already run.
struct FollowUpRound {
    var out: [IsolationSession.FollowUp] = []
    var asked = Set<IsolationSession.Key>()
    var reused = false
}
