import MatrixPlan

/// Sampling around a failing configuration nothing is left to try for (docs/ISOLATE.md, "The algorithm", step 10).
///
/// A flaky fault of three values is held by a few jobs of a 3-wise plan; when one of them fails (both attempts, so it
/// looks deterministic) and the rest pass, no combination of that configuration fails in two jobs, so none is an
/// intermittent suspect, and the follow-ups that tried its deterministic candidates passed half the time and cleared
/// them all: the configuration is left unexplained with most of the budget unspent. Samples keep about three quarters
/// of its values, the other axes on the least suspicious values allowed (``FollowUpGenerator``). A sample that holds
/// the fault fails half the time, so the fault's combination gathers failures faster than the others the
/// configuration holds, becomes an intermittent suspect, and is tried as one; a sample that fails an attempt counts at
/// once, like a follow-up of a suspect, and decides nothing itself.
struct FailureSampling: Sendable {
    /// Samples of one configuration per round: the next round chooses on their evidence.
    static let perRound = 8
    /// Samples of one configuration in all.
    static let most = 32

    /// Samples asked for so far around each failing configuration.
    private var asked: [IsolationKey: Int] = [:]
    /// The samples' own configurations: a flaky one's failure counts at once.
    private(set) var samples = Set<IsolationKey>()

    /// The next samples around each of `stuck` (up to ``perRound`` each, until ``most``) in `session`: configurations
    /// that have not run, made by its ``FollowUpGenerator`` as a follow-up of the values a sample keeps would be.
    mutating func next(around stuck: [IsolationKey], in session: IsolationSession,
                       hasRun: (IsolationKey) -> Bool) -> [IsolationFollowUp]
    {
        var out: [IsolationFollowUp] = []
        let seed = session.settings.seed
        for failing in stuck {
            let done = asked[failing] ?? 0, ranking = session.ranking(failing.subject)
            for index in done..<min(done + Self.perRound, Self.most) {
                asked[failing] = index + 1
                guard let c = session.generator.configuration(
                    keeping: Self.kept(failing.configuration, index: index, seed: seed), ranking: ranking,
                    maxSize: session.settings.maxSize, seed: seed &+ UInt64(index), avoiding: [failing.configuration])
                else { continue }
                let key = IsolationKey(subject: failing.subject, configuration: c)
                if !hasRun(key) && samples.insert(key).inserted {
                    out.append(IsolationFollowUp(subject: key.subject, configuration: c, target: nil, sample: true))
                }
            }
        }
        return out
    }

    /// The values sample `index` of `configuration` keeps: each with probability ¾, by a generator seeded with `seed`
    /// and `index` (the same on every run).
    static func kept(_ configuration: [String: String], index: Int, seed: UInt64) -> Combination {
        var rng = SplitMix64(seed: seed ^ (UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15))
        var keep: [String: String] = [:]
        for axis in configuration.keys.sorted() where rng.below(4) != 0 { keep[axis] = configuration[axis] }
        return Combination(keep)
    }
}
