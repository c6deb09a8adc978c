/// `flowmatrix isolate`'s pure core: observations in, follow-up jobs out (docs/ISOLATE.md).
///
/// Per subject (a scenario under a registry) the session ranks the candidates of its failing configurations
/// (``SuspicionRanking``), and each round asks for one follow-up per failing configuration not yet explained: its
/// best candidate kept, the other axes on the least suspicious allowed values (``FollowUpGenerator``). A follow-up
/// that passes clears every combination it holds; one that fails while the kept candidate is the only one it holds,
/// and every smaller combination inside it has been cleared, **confirms** that candidate. A flaky job (source or
/// follow-up) is repeated before it counts; a passing job that holds a confirmed combination **retracts** it. The
/// session ends when every failure is explained, the budget is spent, or nothing is left to try.
public struct IsolationSession: Sendable {
    public struct Settings: Sendable {
        /// The largest candidate (the plan's strength + 1; 3 for full plans).
        public var maxSize: Int
        /// Follow-up jobs at most (repeats included).
        public var budget: Int
        /// Clean passing repeats a flaky job needs before it counts as passing (a failing repeat makes it failing).
        public var flakyRepeats = 2
        /// Tries of one candidate whose follow-up failed while holding other candidates.
        public var triesPerCandidate = 2
        public var seed: UInt64

        public init(maxSize: Int, budget: Int, seed: UInt64) {
            self.maxSize = max(1, maxSize)
            self.budget = max(0, budget)
            self.seed = seed
        }
    }

    /// A job the session asks for.
    public struct FollowUp: Sendable, Hashable {
        public var subject: Subject
        public var configuration: [String: String]
        /// The candidate it keeps; nil for a repeat of a flaky job.
        public var target: Combination?
    }

    /// A confirmed combination with the follow-up jobs that decided it.
    public struct Confirmation: Sendable, Hashable {
        public var subject: Subject
        public var combination: Combination
        public var jobs: [String]
    }

    public let settings: Settings
    let generator: FollowUpGenerator
    /// Every job seen, source and follow-ups, in order.
    public private(set) var observations: [Observation] = []
    /// Per configuration of a subject: the flaky job's clean passing repeats so far, until it is settled.
    private var flaky: [Key: Int] = [:]
    /// Settled verdicts (a flaky job's after its repeats).
    private var settled: [Key: Verdict] = [:]
    private var targets: [Key: Combination] = [:]
    private var tries: [Subject: [Combination: Int]] = [:]
    public private(set) var confirmed: [Confirmation] = []
    public private(set) var retracted: [Confirmation] = []
    /// Follow-up jobs asked for so far.
    public private(set) var spent = 0
    private var round = 0
    /// Each subject's ranking on the evidence of the last decision.
    private var rankings: [Subject: SuspicionRanking] = [:]

    struct Key: Hashable {
        var subject: Subject
        var configuration: [String: String]
    }

    public init(source: [Observation], generator: FollowUpGenerator, settings: Settings) {
        self.generator = generator
        self.settings = settings
        onResults(source)
    }

    /// Records jobs' outcomes: the source run's, or a round's follow-ups (each matched to what asked for it).
    public mutating func onResults(_ results: [Observation]) {
        for o in results {
            observations.append(o)
            let key = Key(subject: o.subject, configuration: o.configuration)
            if let passes = flaky[key] {
                // A repeat of a flaky job: a failure settles it failing; enough clean passes settle it passing.
                if o.verdict != .passed {
                    flaky[key] = nil
                    settled[key] = .failed
                } else if passes + 1 >= settings.flakyRepeats {
                    flaky[key] = nil
                    settled[key] = .passed
                } else {
                    flaky[key] = passes + 1
                }
            } else if o.verdict == .flaky, settled[key] == nil {
                flaky[key] = 0
            } else if o.verdict != .flaky {
                settled[key] = o.verdict
            }
        }
        decide()
    }

    /// The next round's follow-ups (repeats of flaky jobs first, then one per unexplained failing configuration),
    /// within the budget; empty when the session is over.
    public mutating func nextRound() -> [FollowUp] {
        var out: [FollowUp] = []
        var asked = Set<Key>()
        func add(_ f: FollowUp) {
            guard spent + out.count < settings.budget else { return }
            if asked.insert(Key(subject: f.subject, configuration: f.configuration)).inserted { out.append(f) }
        }
        for key in flaky.keys.sorted(by: { Self.order($0, $1) }) {
            add(FollowUp(subject: key.subject, configuration: key.configuration, target: nil))
        }
        round += 1
        for subject in subjects {
            let ranking = self.ranking(subject)
            var picked = Set<Combination>()
            for failing in unexplained(subject) {
                // Its best candidate still to try; when another failing configuration asked for it already this
                // round, that follow-up will decide for both.
                guard let suspect = ranking.suspects(in: failing).first(where: { s in
                    (tries[subject]?[s.combination] ?? 0) < settings.triesPerCandidate
                }), picked.insert(suspect.combination).inserted else { continue }
                tries[subject, default: [:]][suspect.combination, default: 0] += 1
                let seed = settings.seed &+ UInt64(round) &* 0x9E37_79B9 &+ UInt64(picked.count)
                let earlier = targets.filter { $0.key.subject == subject && $0.value == suspect.combination }.map(\.key.configuration)
                guard let config = generator.configuration(keeping: suspect.combination, ranking: ranking,
                                                           maxSize: settings.maxSize, seed: seed, avoiding: earlier) else {
                    tries[subject, default: [:]][suspect.combination] = settings.triesPerCandidate
                    continue
                }
                let key = Key(subject: subject, configuration: config)
                if settled[key] != nil { continue }  // already decided: the ranking will move on
                targets[key] = suspect.combination
                add(FollowUp(subject: subject, configuration: config, target: suspect.combination))
            }
        }
        spent += out.count
        return out
    }

    /// Subjects with a failure, in order.
    public var failingSubjects: [Subject] { subjects }

    var subjects: [Subject] { Set(settled.filter { $0.value == .failed }.keys.map(\.subject)).sorted() }

    /// The source run's failing configurations of `subject` that hold no confirmed combination, in order.
    public func unexplained(_ subject: Subject) -> [[String: String]] {
        let mine = confirmed.filter { $0.subject == subject }.map(\.combination)
        return sourceConfigurations(subject, .failed).filter { c in !mine.contains { $0.isContained(in: c) } }
    }

    /// Settled configurations of `subject` with `verdict`, source only or all, in a stable order.
    func sourceConfigurations(_ subject: Subject, _ verdict: Verdict, all: Bool = false) -> [[String: String]] {
        var seen = Set<[String: String]>()
        var out: [[String: String]] = []
        for o in observations where o.subject == subject && (all || !o.followUp) && seen.insert(o.configuration).inserted {
            if settled[Key(subject: subject, configuration: o.configuration)] == verdict { out.append(o.configuration) }
        }
        return out
    }

    /// The subject's ranking on the evidence so far (kept from the last decision when the evidence has not changed).
    public func ranking(_ subject: Subject) -> SuspicionRanking {
        rankings[subject] ?? makeRanking(subject)
    }

    private func makeRanking(_ subject: Subject) -> SuspicionRanking {
        SuspicionRanking(candidatesFrom: sourceConfigurations(subject, .failed),
                         failing: sourceConfigurations(subject, .failed, all: true),
                         passing: sourceConfigurations(subject, .passed, all: true), maxSize: settings.maxSize)
    }

    /// Confirms the candidates a failing follow-up isolated, and retracts confirmations a passing job contradicts.
    private mutating func decide() {
        rankings = [:]
        for subject in subjects {
            let ranking = makeRanking(subject)
            rankings[subject] = ranking
            let followUps = observations.filter { $0.subject == subject && $0.followUp }
            for (i, c) in confirmed.enumerated().reversed() where c.subject == subject && !ranking.live.contains(c.combination) {
                retracted.append(c)
                confirmed.remove(at: i)
            }
            for o in followUps {
                let key = Key(subject: subject, configuration: o.configuration)
                guard settled[key] == .failed, let target = targets[key], ranking.live.contains(target),
                      !confirmed.contains(where: { $0.subject == subject && $0.combination == target }),
                      !retracted.contains(where: { $0.subject == subject && $0.combination == target }),
                      isolates(target, subject: subject, ranking: ranking) else { continue }
                let jobs = followUps.filter { f in
                    let k = Key(subject: subject, configuration: f.configuration)
                    return targets[k].map { $0.isSubset(of: target) } ?? target.isContained(in: f.configuration)
                }.map(\.jobID)
                confirmed.append(Confirmation(subject: subject, combination: target, jobs: jobs))
            }
        }
    }

    /// Whether the failing follow-ups that kept `target` leave it the only minimal candidate: one of them holds no
    /// other candidate, or what they all hold besides it (their common values) does not.
    private func isolates(_ target: Combination, subject: Subject, ranking: SuspicionRanking) -> Bool {
        let failing = targets.filter { $0.key.subject == subject && $0.value == target && settled[$0.key] == .failed }
            .map(\.key.configuration)
        if failing.contains(where: { ranking.isOnlySuspect(target, in: $0, maxSize: settings.maxSize) }) { return true }
        guard failing.count >= 2, let first = failing.first else { return false }
        let common = first.filter { pair in failing.allSatisfy { $0[pair.key] == pair.value } }
        return ranking.isOnlySuspect(target, in: common, maxSize: settings.maxSize)
    }

    static func order(_ a: Key, _ b: Key) -> Bool {
        a.subject != b.subject ? a.subject < b.subject
            : Combination(a.configuration).pairs.lexicographicallyPrecedes(Combination(b.configuration).pairs)
    }
}
