/// `flowmatrix isolate`'s pure core: observations in, follow-up jobs out (docs/ISOLATE.md).
///
/// Per subject (a scenario under a registry) the session ranks the candidates of its failing configurations
/// (``SuspicionRanking``), and each round asks for one follow-up per failing configuration not yet explained: its
/// best candidate kept, the other axes on the least suspicious allowed values (``FollowUpGenerator``). A follow-up
/// that passes clears every combination it holds; one that fails while the kept candidate is the only candidate it
/// holds **confirms** that candidate. Failures that no deterministic candidate can explain (a configuration that
/// also passed an attempt, or one whose candidates were all cleared) are explained by **intermittent** suspects: the
/// combinations most of whose jobs failed an attempt (``IsolationEvidence``); one is confirmed when a follow-up that
/// keeps it in an otherwise clean configuration fails an attempt. A flaky job is repeated before it counts as a
/// failure; a passing job that holds a deterministic confirmation **retracts** it. The session ends when every
/// failure is explained, the budget is spent, or nothing is left to try.
public struct IsolationSession: Sendable {
    public typealias Settings = IsolationSettings

    public typealias FollowUp = IsolationFollowUp

    /// A confirmed combination with the follow-up jobs that decided it.
    public struct Confirmation: Sendable, Hashable {
        public var subject: Subject
        public var combination: Combination
        public var jobs: [String]
        /// Confirmed as intermittent: it failed an attempt in a clean configuration, though jobs holding it passed too.
        public var intermittent = false
    }

    struct Key: Hashable {
        var subject: Subject
        var configuration: [String: String]
    }

    /// A kept candidate, tried as deterministic or as intermittent.
    struct Trial: Hashable {
        var combination: Combination
        var intermittent: Bool
    }

    public let settings: Settings
    let generator: FollowUpGenerator
    /// Every job seen, source and follow-ups, in order.
    public private(set) var observations: [Observation] = []
    /// Per configuration of a subject: whether an attempt passed, whether one failed.
    private var attempts: [Key: IsolationEvidence.Attempts] = [:]
    /// Flaky jobs awaiting their repeats: the passing repeats so far.
    private var pending: [Key: Int] = [:]
    /// Flaky jobs whose repeats passed: not failures to explain.
    private var noise = Set<Key>()
    private var targets: [Key: Trial] = [:]
    private var tries: [Subject: [Trial: Int]] = [:]
    public private(set) var confirmed: [Confirmation] = []
    public private(set) var retracted: [Confirmation] = []
    /// Follow-up jobs asked for so far.
    public private(set) var spent = 0
    private var round = 0
    /// Each subject's ranking and intermittent tallies on the evidence of the last decision.
    private var rankings: [Subject: SuspicionRanking] = [:]
    private(set) var tallies: [Subject: [Combination: IsolationEvidence.Tally]] = [:]
    /// Per subject: its jobs that show intermittency, jobs a confirmed combination explains left out.
    private(set) var intermittentJobs: [Subject: Int] = [:]
    /// Deterministic candidates isolated by a failing follow-up but held back: a part of them is an intermittent
    /// suspect still to try (it, not the whole, may be what failed).
    private var heldBack: [Subject: [Combination: Combination]] = [:]

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
            let before = attempts[key] ?? .init()
            // A flaky job's passing retry is not a pass until its repeats settle it (noise counts as passing).
            attempts[key] = .init(passed: before.passed || o.verdict == .passed, failed: before.failed || o.verdict != .passed)
            if let passes = pending[key] {
                // A repeat of a flaky job: a failing attempt makes it a failure; enough passing repeats make it noise.
                if o.verdict != .passed {
                    pending[key] = nil
                } else if passes + 1 >= settings.flakyRepeats {
                    pending[key] = nil
                    noise.insert(key)
                } else {
                    pending[key] = passes + 1
                }
            } else if o.verdict == .flaky, !before.failed, !(o.followUp && targets[key]?.intermittent == true) {
                // (A follow-up that keeps an intermittent suspect is itself the repeat of flaky evidence: its
                // failing attempt counts at once.)
                pending[key] = 0
            } else if o.verdict != .passed {
                noise.remove(key)
            }
        }
        decide()
    }

    /// Whether a configuration counts as failing: an attempt failed, and it is neither awaiting repeats nor noise.
    func isFailing(_ key: Key) -> Bool {
        (attempts[key]?.failed ?? false) && pending[key] == nil && !noise.contains(key)
    }

    /// Whether every job of a configuration failed (a flaky one after a failing repeat): a deterministic failure can
    /// explain it.
    func isDeterministic(_ key: Key) -> Bool { isFailing(key) && !(attempts[key]?.passed ?? true) }

    /// The next round's follow-ups (repeats of flaky jobs first, then one per unexplained failing configuration; when
    /// every failure is explained, the second faults a failing configuration may hold), within the budget; empty
    /// when the session is over.
    public mutating func nextRound() -> [FollowUp] {
        var draft = FollowUpRound()
        for key in pending.keys.sorted(by: { Self.order($0, $1) }) where !explained(key.configuration, key.subject) {
            add(FollowUp(subject: key.subject, configuration: key.configuration, target: nil), to: &draft)
        }
        round += 1
        for subject in subjects {
            let ranking = self.ranking(subject)
            var picked = Set<Trial>()
            for failing in unexplained(subject) {
                // Its best trial still to make; when another failing configuration asked for it already this round,
                // that follow-up decides for both.
                guard let trial = nextTrial(subject, failing, ranking: ranking), picked.insert(trial).inserted else { continue }
                ask(trial, subject: subject, ranking: ranking, salt: picked.count, draft: &draft)
            }
        }
        if draft.out.isEmpty && !draft.reused {
            for subject in subjects {
                let ranking = self.ranking(subject)
                var picked = Set<Trial>()
                let (done, most) = (tries[subject] ?? [:], settings.triesPerCandidate)
                let candidates = SecondFaults.candidates(
                    failing: configurations(subject) { isDeterministic($0) },
                    confirmed: confirmed.filter { $0.subject == subject && !$0.intermittent }.map(\.combination),
                    ranking: ranking, untried: { (done[Trial(combination: $0, intermittent: false)] ?? 0) < most })
                for c in candidates {
                    let trial = Trial(combination: c, intermittent: false)
                    guard picked.insert(trial).inserted else { continue }
                    ask(trial, subject: subject, ranking: ranking, salt: picked.count, draft: &draft)
                }
            }
        }
        spent += draft.out.count
        if draft.out.isEmpty && draft.reused {
            // Every trial of this round had run already: decide on those outcomes, then try again.
            decide()
            return nextRound()
        }
        return draft.out
    }

    private func add(_ f: FollowUp, to draft: inout FollowUpRound) {
        guard spent + draft.out.count < settings.budget else { return }
        if draft.asked.insert(Key(subject: f.subject, configuration: f.configuration)).inserted { draft.out.append(f) }
    }

    /// Asks for a follow-up that keeps `trial`'s combination in the least suspicious environment (or notes that one
    /// has run already: its outcome decides).
    private mutating func ask(_ trial: Trial, subject: Subject, ranking: SuspicionRanking, salt: Int, draft: inout FollowUpRound) {
        tries[subject, default: [:]][trial, default: 0] += 1
        let seed = settings.seed &+ UInt64(round) &* 0x9E37_79B9 &+ UInt64(salt)
        let earlier = targets.filter { $0.key.subject == subject && $0.value.combination == trial.combination }
            .map(\.key.configuration)
        guard let config = generator.configuration(keeping: trial.combination, ranking: ranking,
                                                   maxSize: settings.maxSize, seed: seed, avoiding: earlier) else {
            tries[subject, default: [:]][trial] = Int.max / 2
            return
        }
        let key = Key(subject: subject, configuration: config)
        if attempts[key] != nil {
            // Already run: its outcome is this trial's evidence (decided before the next round).
            if targets[key] == nil { targets[key] = trial; draft.reused = true }
            return
        }
        targets[key] = trial
        add(FollowUp(subject: subject, configuration: config, target: trial.combination, intermittent: trial.intermittent),
            to: &draft)
    }

    /// What to try for a failing configuration: its best deterministic candidate (or the intermittent part holding it
    /// back), else its best intermittent suspect; nil when everything has been tried.
    private func nextTrial(_ subject: Subject, _ failing: [String: String], ranking: SuspicionRanking) -> Trial? {
        let done = tries[subject] ?? [:]
        func untried(_ t: Trial) -> Bool {
            (done[t] ?? 0) < (t.intermittent ? settings.intermittentTries : settings.triesPerCandidate)
        }
        let deterministic = isDeterministic(Key(subject: subject, configuration: failing))
        let suspects = deterministic ? ranking.suspects(in: failing) : []
        // An evidenced intermittent suspect goes first unless a deterministic candidate explains more failures.
        if let evidenced = evidencedSuspect(subject, failing, untried: untried),
           (tallies[subject]?[evidenced.combination]?.failing ?? 0) >= (suspects.first?.failing ?? 0) { return evidenced }
        if deterministic {
            if let keep = TieNarrowing.keep(failing, suspects) {
                let t = Trial(combination: keep, intermittent: false)
                if untried(t) { return t }
            }
            for s in suspects {
                if let part = heldBack[subject]?[s.combination] {
                    let t = Trial(combination: part, intermittent: true)
                    if untried(t) { return t }
                    continue
                }
                let t = Trial(combination: s.combination, intermittent: false)
                if untried(t) { return t }
            }
        }
        return IsolationEvidence.bestSuspect(in: failing, tally: tallies[subject] ?? [:], maxSize: settings.maxSize) {
            untried(Trial(combination: $0, intermittent: true))
        }.map { Trial(combination: $0, intermittent: true) }
    }

    /// Every combination a follow-up has kept so far (any subject): what the session suspected enough to test.
    public var tried: Set<Combination> { Set(tries.values.flatMap { $0.keys.map(\.combination) }) }

    /// Subjects with a failure, in order.
    public var failingSubjects: [Subject] { subjects }

    var subjects: [Subject] { Set(attempts.keys.filter(isFailing).map(\.subject)).sorted() }

    /// Whether a confirmed combination of `subject` explains `configuration`.
    func explained(_ configuration: [String: String], _ subject: Subject) -> Bool {
        confirmed.contains { $0.subject == subject && $0.combination.isContained(in: configuration) }
    }

    /// The source run's failing configurations of `subject` that hold no confirmed combination, in order.
    public func unexplained(_ subject: Subject) -> [[String: String]] {
        configurations(subject) { isFailing($0) }.filter { !explained($0, subject) }
    }

    /// Configurations of `subject` whose key passes `filter`, source only or all, in a stable order.
    func configurations(_ subject: Subject, all: Bool = false, _ filter: (Key) -> Bool) -> [[String: String]] {
        var seen = Set<[String: String]>()
        var out: [[String: String]] = []
        for o in observations where o.subject == subject && (all || !o.followUp) && seen.insert(o.configuration).inserted {
            if filter(Key(subject: subject, configuration: o.configuration)) { out.append(o.configuration) }
        }
        return out
    }

    /// The subject's ranking on the evidence so far (kept from the last decision when the evidence has not changed).
    public func ranking(_ subject: Subject) -> SuspicionRanking {
        rankings[subject] ?? makeRanking(subject)
    }

    private func makeRanking(_ subject: Subject) -> SuspicionRanking {
        SuspicionRanking(candidatesFrom: configurations(subject) { isDeterministic($0) },
                         failing: configurations(subject, all: true) { attempts[$0]?.failed ?? false },
                         passing: configurations(subject, all: true) { (attempts[$0]?.passed ?? false) || noise.contains($0) },
                         maxSize: settings.maxSize)
    }

    /// Confirms the candidates failing follow-ups isolated, and retracts deterministic confirmations a passing
    /// attempt contradicts.
    private mutating func decide() {
        rankings = [:]
        tallies = [:]
        for subject in subjects {
            let ranking = makeRanking(subject)
            rankings[subject] = ranking
            for (i, c) in confirmed.enumerated().reversed()
            where c.subject == subject && !c.intermittent && !ranking.live.contains(c.combination) {
                retracted.append(c)
                confirmed.remove(at: i)
            }
            tally(subject)
            let before = confirmed.count
            confirmFollowUps(subject, ranking: ranking)
            // The next round chooses on the tallies of these confirmations too (their jobs left out).
            if confirmed.count != before, IsolationEvidence.overlapRules(candidates: settings.maxSize) { tally(subject) }
        }
    }

    /// The subject's intermittent tallies and intermittent jobs, jobs a confirmed combination explains left out.
    private mutating func tally(_ subject: Subject) {
        let record = self.record(subject)
        tallies[subject] = record.tallies()
        intermittentJobs[subject] = record.jobs.filter { job in
            !record.explained.contains { $0.isContained(in: job.configuration) }
                && (job.verdict == .flaky || (job.verdict == .failed && record.mixed.contains(job.configuration)))
        }.count
    }

    /// Confirms each target a failing follow-up decided: a deterministic one when it is the only candidate left
    /// (and no part of it is an intermittent suspect still to try), an intermittent one when nothing else in its
    /// configuration is suspect.
    private mutating func confirmFollowUps(_ subject: Subject, ranking: SuspicionRanking) {
        let followUps = observations.filter { $0.subject == subject && $0.followUp }
        // The follow-ups that decided `c`: those that kept it, or a part of it.
        func jobs(_ c: Combination) -> [String] {
            followUps.filter { f in
                c.isContained(in: f.configuration)
                    || targets[Key(subject: subject, configuration: f.configuration)].map { $0.combination.isSubset(of: c) } == true
            }.map(\.jobID)
        }
        for o in observations where o.subject == subject {
            let key = Key(subject: subject, configuration: o.configuration)
            guard let trial = targets[key], isFailing(key), !explained(o.configuration, subject),
                  !retracted.contains(where: { $0.subject == subject && $0.combination == trial.combination }) else { continue }
            let target = trial.combination
            if trial.intermittent, let part = intermittentPart(of: target, in: o.configuration, subject: subject, ranking: ranking) {
                confirmed.append(Confirmation(subject: subject, combination: part, jobs: jobs(part), intermittent: true))
                continue
            }
            // An intermittent suspect whose follow-ups failed every attempt may still be decided as deterministic.
            let intermittent = trial.intermittent
                && isolatesIntermittent(target, in: o.configuration, subject: subject, ranking: ranking)
            if !intermittent {
                guard isDeterministic(key), ranking.live.contains(target), isolates(target, subject: subject, ranking: ranking)
                else { continue }
                if let part = suspectPart(of: target, subject: subject) {
                    heldBack[subject, default: [:]][target] = part
                    continue
                }
            }
            confirmed.append(Confirmation(subject: subject, combination: target, jobs: jobs(target), intermittent: intermittent))
        }
    }

    /// The proper part of intermittent suspect `target` that explains a failing follow-up which kept `target`:
    /// a part already tried as an intermittent suspect, whose jobs without `target` fail intermittently too, and
    /// nothing else in `configuration` is suspect (the part isolated as in
    /// ``isolatesIntermittent(_:in:subject:ranking:)``). A flaky value whose own follow-ups happened to pass left only
    /// pairs holding it to try, and their failing follow-ups confirmed nothing, or the pair.
    private func intermittentPart(of target: Combination, in configuration: [String: String], subject: Subject,
                                  ranking: SuspicionRanking) -> Combination?
    {
        Combination.subsets(of: target.values, maxSize: target.count - 1).sorted().first { part in
            (tries[subject]?[Trial(combination: part, intermittent: true)] ?? 0) > 0
                && failsWithout(part, target, subject: subject)
                && isolatesIntermittent(part, in: configuration, subject: subject, ranking: ranking)
        }
    }

    /// Whether the failing follow-ups that kept `target` leave it the only candidate
    /// (``SuspicionRanking/isolates(_:failing:maxSize:)``).
    private func isolates(_ target: Combination, subject: Subject, ranking: SuspicionRanking) -> Bool {
        ranking.isolates(target, failing: targets.filter { $0.key.subject == subject && $0.value.combination == target
            && isDeterministic($0.key) }.map(\.key.configuration), maxSize: settings.maxSize)
    }

    /// Whether a failing follow-up that kept intermittent suspect `target` holds nothing else suspect: no
    /// deterministic candidate, and no other combination most of whose other jobs failed (jobs holding `target`
    /// left out: their failures may be its own).
    private func isolatesIntermittent(_ target: Combination, in configuration: [String: String], subject: Subject,
                                      ranking: SuspicionRanking) -> Bool
    {
        let tally = record(subject).tallies { !target.isContained(in: $0) }
        // A larger suspect holding `target` that never passed (a deterministic pair seen through one of its values)
        // explains the failure better, unless `target`'s jobs without it fail too, intermittently.
        return Combination.subsets(of: configuration, maxSize: settings.maxSize).allSatisfy { s in
            if target.isSubset(of: s) {
                let t = tallies[subject]?[s]
                return s == target || !IsolationEvidence.suspicious(t) || (t?.passing ?? 0) > 0
                    || failsWithout(target, s, subject: subject)
            }
            return !ranking.live.contains(s) && !IsolationEvidence.suspicious(tally[s])
        }
    }

    /// Whether `part`'s jobs that do not hold `whole` still fail, intermittently (jobs a confirmed combination
    /// explains left out): `whole`'s other values are not needed for `part` to fail.
    func failsWithout(_ part: Combination, _ whole: Combination, subject: Subject, evidenced: Bool = true) -> Bool {
        let tally = record(subject).tallies { part.isContained(in: $0) && !whole.isContained(in: $0) }
        return evidenced ? IsolationEvidence.evidenced(tally[part]) : IsolationEvidence.suspicious(tally[part])
    }

    /// The smallest proper part of `combination` that is an intermittent suspect not yet tried out, if any
    /// (``IsolationEvidence/Record/suspectPart(of:untried:)``).
    private func suspectPart(of combination: Combination, subject: Subject) -> Combination? {
        record(subject).suspectPart(of: combination) {
            (tries[subject]?[Trial(combination: $0, intermittent: true)] ?? 0) < settings.intermittentTries
        }
    }

    /// The subject's jobs, its confirmed combinations, and its configurations that both passed and failed an attempt.
    func record(_ subject: Subject) -> IsolationEvidence.Record {
        .init(jobs: observations.filter { $0.subject == subject }.map { ($0.configuration, $0.verdict) },
              explained: confirmed.filter { $0.subject == subject }.map(\.combination),
              deterministic: IsolationEvidence.overlapRules(candidates: settings.maxSize)
                  ? Set(confirmed.filter { $0.subject == subject && !$0.intermittent }.map(\.combination)) : [],
              mixed: Set(attempts.filter { $0.key.subject == subject && $0.value.passed && $0.value.failed }.map(\.key.configuration)),
              size: IsolationEvidence.maximumSize(candidates: settings.maxSize))
    }

    static func order(_ a: Key, _ b: Key) -> Bool {
        a.subject != b.subject ? a.subject < b.subject
            : Combination(a.configuration).pairs.lexicographicallyPrecedes(Combination(b.configuration).pairs)
    }
}
