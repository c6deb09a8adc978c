/// Values whose jobs fail now and then across the run, whatever the scenario (pure; docs/ISOLATE.md, "The algorithm",
/// step 4, "Noise across the run"): a `flaky` network that drops a request now and then breaks every scenario that
/// makes one.
///
/// Each subject is isolated on its own jobs, and there such a value's failures look deterministic half the time or
/// more (a job that failed both attempts): on the web shop under a pairwise plan with a flaky network, `checkout-order`
/// was confirmed to fail "with locale=en + network=flaky", `status-mirrored` "with locale=ja + network=flaky" and
/// "network=flaky + window=narrow-portrait", while six other scenarios showed the same network failing
/// intermittently (7 December 2026). A value is **noisy** when the jobs that show intermittency (a flaky job, or a
/// failing one whose configuration also passed) hold it in at least ``minimumSubjects`` subjects and
/// ``minimumJobs`` jobs, and their share among its jobs stands out from the other jobs'
/// (``IsolationEvidence/standsOut(_:background:smoothed:)``). The values are taken greedily, most such jobs first,
/// each taking its jobs from the others' counts: `locale=ar`, whose flaky jobs all ran on the flaky network, is not
/// noisy beside it. A combination holding a noisy value is neither tried nor confirmed as deterministic
/// (``TrialChoice``, ``IsolationSession``), and once every failure of a subject left to explain holds one, the value
/// is tried first as an intermittent suspect.
struct RunNoise: Sendable {
    /// A value is noisy only when intermittent jobs of this many subjects hold it (one subject's own flaky jobs are
    /// its own evidence, step 4).
    static let minimumSubjects = 2
    /// …and at least this many intermittent jobs.
    static let minimumJobs = 3

    /// The noisy values, each a combination of one value.
    private(set) var values: Set<Combination> = []

    init() {}

    /// The noisy values of `observations` (every subject's): `intermittent` says which jobs show intermittency.
    init(_ observations: [Observation], intermittent: (Observation) -> Bool) {
        var pool = observations.map { (o: $0, shows: intermittent($0)) }
        while let pick = Self.noisiest(pool) {
            values.insert(pick)

            pool = pool.map { ($0.o, $0.shows && !pick.isContained(in: $0.o.configuration)) }
        }
    }

    /// The noisy values of a session's jobs: a flaky job, or a failing one whose configuration also passed, shows
    /// intermittency.
    init(_ observations: [Observation], ledger: ConfigurationLedger) {
        self.init(observations) { o in
            o.verdict == .flaky
                || o.verdict == .failed && ledger.isMixed(IsolationKey(subject: o.subject, configuration: o.configuration))
        }
    }

    /// Whether `configuration` holds a noisy value; the first such value in order.
    func value(in configuration: [String: String]) -> Combination? {
        values.filter { $0.isContained(in: configuration) }.min()
    }

    /// The value whose intermittent jobs stand out most, among those that qualify; nil when none does.
    private static func noisiest(_ pool: [(o: Observation, shows: Bool)]) -> Combination? {
        var jobs: [Combination.Pair: IsolationEvidence.Tally] = [:]
        var subjects: [Combination.Pair: Set<Subject>] = [:]
        var all = IsolationEvidence.Tally()
        for (o, shows) in pool {
            if shows { all.failing += 1 } else { all.passing += 1 }
            for (axis, value) in o.configuration {
                let pair = Combination.Pair(axis: axis, value: value)
                if shows {
                    jobs[pair, default: .init()].failing += 1
                    subjects[pair, default: []].insert(o.subject)
                } else {
                    jobs[pair, default: .init()].passing += 1
                }
            }
        }
        var best: (value: Combination, evidence: Double)?
        for (pair, t) in jobs where t.failing >= minimumJobs && (subjects[pair]?.count ?? 0) >= minimumSubjects {
            let background = all.without(t)
            guard IsolationEvidence.standsOut(t, background: background, smoothed: true) else { continue }
            let e = IsolationEvidence.evidence(t, background: background, smoothed: true)
            let c = Combination([pair.axis: pair.value])
            if best.map({ e > $0.evidence || (e == $0.evidence && c < $0.value) }) ?? true { best = (c, e) }
        }
        return best?.value
    }
}
