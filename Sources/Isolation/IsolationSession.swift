/// `flowmatrix isolate`'s pure core: observations in, follow-up jobs out (docs/ISOLATE.md).
///
/// Per subject (a scenario under a registry) the session ranks the candidates of its failing configurations
/// (``SuspicionRanking``), and each round asks for one follow-up per failing configuration not yet explained (the
/// cheapest to isolate only, when the budget left is short of them all: ``BudgetFocus``): its best candidate kept, the
/// other axes on the least suspicious allowed values (``FollowUpGenerator``). A follow-up
/// that passes clears every combination it holds; one that fails while the kept candidate is the only candidate it
/// holds **confirms** that candidate. Failures that no deterministic candidate can explain (a configuration that
/// also passed an attempt, or one whose candidates were all cleared) are explained by **intermittent** suspects: the
/// combinations most of whose jobs failed an attempt (``IsolationEvidence``); one is confirmed when a follow-up that
/// keeps it in an otherwise clean configuration fails an attempt. A flaky job's failure counts once its repeat fails,
/// or (pairwise and full plans) once other jobs corroborate it; a passing job that holds a deterministic confirmation
/// **retracts** it. With every failure explained and budget left, a one-value confirmation tried once is tried again,
/// and so is a larger one whose follow-ups all held a larger candidate of it (``SecondTries``; a pass retracts it),
/// and the failing configurations a confirmation explains are probed for second faults
/// (``SecondFaults``): a failing probe is one more failure to explain. A failing
/// configuration nothing is left to try for is sampled around (``FailureSampling``) for its intermittent suspects' sake.
/// The session ends when every failure is explained, the budget is spent, or nothing is left to try.
public struct IsolationSession: Sendable {
    public typealias Settings = IsolationSettings
    public typealias FollowUp = IsolationFollowUp
    public typealias Confirmation = IsolationConfirmation
    typealias Key = IsolationKey
    typealias Trial = IsolationTrial

    public let settings: Settings
    let generator: FollowUpGenerator
    /// Every job seen, source and follow-ups, in order.
    public private(set) var observations: [Observation] = []
    /// What each configuration has shown, and the flaky jobs awaiting repeats.
    private var ledger = ConfigurationLedger()
    private var targets: [Key: Trial] = [:]
    private(set) var tries: [Subject: [Trial: Int]] = [:]
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
    private(set) var heldBack: [Subject: [Combination: Combination]] = [:]
    /// Probes of second faults (``SecondFaults``): their failures are to explain, like the source run's.
    private var probes = Set<Key>()
    /// Per failing configuration, the probes asked of it so far.
    private var probeCounts: [Key: Int] = [:]
    /// Samples around failing configurations nothing is left to try for.
    private var sampling = FailureSampling()
    /// Values whose jobs fail intermittently across the run's subjects (``RunNoise``).
    private(set) var noise = RunNoise()

    /// Subjects that fail in every configuration they ran, with their job counts (``FailingEverywhere``).
    public let failingEverywhere: [Subject: Int]

    public init(source: [Observation], generator: FollowUpGenerator, settings: Settings) {
        self.generator = generator
        self.settings = settings
        failingEverywhere = FailingEverywhere.subjects(in: source)
        onResults(source)
    }

    /// Records jobs' outcomes: the source run's, or a round's follow-ups (each matched to what asked for it).
    public mutating func onResults(_ results: [Observation]) {
        for o in results {
            observations.append(o)
            let key = Key(subject: o.subject, configuration: o.configuration)
            ledger.record(o, repeatsItself: o.followUp && (targets[key]?.intermittent == true || sampling.samples.contains(key)),
                          flakyRepeats: settings.flakyRepeats)
        }
        noise = RunNoise(observations, ledger: ledger)
        decide()
    }

    /// Whether a configuration counts as failing (``ConfigurationLedger/isFailing(_:)``).
    func isFailing(_ key: Key) -> Bool { ledger.isFailing(key) }

    /// Whether a deterministic failure can explain a configuration (``ConfigurationLedger/isDeterministic(_:)``).
    func isDeterministic(_ key: Key) -> Bool { ledger.isDeterministic(key) }

    /// Whether no job of `subject` both failed and passed an attempt in one configuration.
    func showsNoIntermittency(_ subject: Subject) -> Bool { ledger.mixed(subject).isEmpty }

    /// The next round's follow-ups (repeats of flaky jobs first, then one per unexplained failing configuration; when
    /// every failure is explained, the parts of intermittent confirmations still to try (``SharedParts``), then one more
    /// repeat of each flaky job that proved noise and probes of the second faults a failing configuration may hold, in
    /// at most half the budget left), within the budget; empty when the session is over.
    public mutating func nextRound() -> [FollowUp] {
        while true {
            let draft = draftRound()
            spent += draft.out.count
            guard draft.out.isEmpty && draft.reused else { return draft.out }
            // Every trial of this round had run already: decide on those outcomes, then try again (each pass spent a
            // try of every trial it asked for, so the passes end).
            decide()
        }
    }

    /// One pass of ``nextRound()``: the follow-ups to ask, or none with `reused` when trials were decided by jobs
    /// that had run.
    private mutating func draftRound() -> FollowUpRound {
        var draft = FollowUpRound()
        for key in ledger.pending.keys.sorted(by: { $0.precedes($1) }) where !explained(key.configuration, key.subject) {
            draft.add(FollowUp(subject: key.subject, configuration: key.configuration, target: nil), budget: settings.budget - spent)
        }
        round += 1
        var stuck: [Key] = []
        // A deterministic candidate is chosen on the tries as the round began: a candidate asked for this round is still
        // the best of the next failing configuration that holds it, not one it has used up (its last try then spent a
        // second follow-up on the next candidate, which that try decided: it clears the candidate for every
        // configuration, or confirms it). An intermittent suspect's try decides nothing for the others until it fails,
        // so they move on to their next trial at once, on the tries as they are.
        let choice = TrialChoice(session: self)
        let focus = BudgetFocus.focused(self, left: settings.budget - spent - draft.out.count)
        var waiting = false
        for pass in [true, false] where pass || (waiting && draft.out.isEmpty && !draft.reused) {
            for subject in subjects {
                let ranking = self.ranking(subject)
                var picked = Set<Trial>()
                // The failing configurations the focus leaves out wait for a round whose others ask for nothing.
                for failing in unexplained(subject) {
                    guard focus.contains(Key(subject: subject, configuration: failing)) == pass else { waiting = true; continue }
                    // Its best trial still to make; when another failing configuration asked for it already this round,
                    // that follow-up decides for both.
                    let first = choice.next(subject, failing, ranking: ranking)
                    guard let trial = first?.intermittent == false ? first : TrialChoice(session: self).next(subject, failing, ranking: ranking)
                    else { stuck.append(Key(subject: subject, configuration: failing)); continue }
                    guard picked.insert(trial).inserted else { continue }
                    ask(trial, subject: subject, ranking: ranking, salt: picked.count, draft: &draft)
                }
            }
        }
        if draft.out.isEmpty && !draft.reused {
            for subject in subjects {
                let (ranking, done) = (self.ranking(subject), tries[subject] ?? [:])
                let own = confirmed.filter { $0.subject == subject }.map { (combination: $0.combination, intermittent: $0.intermittent) }
                let parts = SharedParts.next(own, untried: { (done[Trial(combination: $0, intermittent: true)] ?? 0) < settings.intermittentTries },
                                             begun: { (done[Trial(combination: $0, intermittent: true)] ?? 0) > 0 })
                for (i, part) in parts.enumerated() {
                    ask(Trial(combination: part, intermittent: true), subject: subject, ranking: ranking, salt: i + 1, draft: &draft)
                }
            }
        }
        if draft.out.isEmpty && !draft.reused {
            for subject in Set(observations.map(\.subject)).sorted() {
                for key in ledger.recheck(subject) where !explained(key.configuration, subject) {
                    draft.add(FollowUp(subject: key.subject, configuration: key.configuration, target: nil), budget: settings.budget - spent)
                }
            }
            askVerifications(&draft)
            askProbes(&draft)
        }
        if draft.out.isEmpty && !draft.reused {
            let session = self
            for f in sampling.next(around: stuck, in: session, hasRun: ledger.hasRun) { draft.add(f, budget: settings.budget - spent) }
        }
        return draft
    }

    /// Asks for the second tries of confirmations (``SecondTries``).
    private mutating func askVerifications(_ draft: inout FollowUpRound) {
        for subject in subjects {
            let ranking = self.ranking(subject)
            for (i, c) in SecondTries.next(self, subject, ranking: ranking).enumerated() {
                ask(Trial(combination: c, intermittent: false), subject: subject, ranking: ranking, salt: i + 1,
                    wholes: c.count > 1, draft: &draft)
            }
        }
    }

    /// Asks for probes of second faults (``SecondFaults``), the configurations probed least so far first (each one's
    /// first probe before another's second), within half the budget left: a failing probe is a new failure to explain,
    /// and needs follow-ups of its own (pairwise system 2020818 spent its last 15 on probes in one round, and the one
    /// that failed was left unexplained).
    private mutating func askProbes(_ draft: inout FollowUpRound) {
        let probeEnd = draft.out.count + max(1, (settings.budget - spent - draft.out.count) / 2)
        for subject in subjects where draft.out.count < probeEnd {
            let ranking = self.ranking(subject)
            var picked = Set<Trial>()
            let (done, most) = (tries[subject] ?? [:], settings.triesPerCandidate)
            let next = SecondFaults.next(
                failing: configurations(subject) { isDeterministic($0) },
                confirmed: confirmed.filter { $0.subject == subject && !$0.intermittent }.map(\.combination),
                intermittent: confirmed.filter { $0.subject == subject && $0.intermittent }.map(\.combination),
                ranking: ranking, untried: { (done[Trial(combination: $0, intermittent: false)] ?? 0) < most })
            let order = next.enumerated().sorted { a, b in
                let (pa, pb) = (probed(a.element.probed, subject), probed(b.element.probed, subject))
                return pa != pb ? pa < pb : a.offset < b.offset
            }.map(\.element)
            for n in order where draft.out.count < probeEnd {
                let trial = Trial(combination: n.keep, intermittent: false)
                guard picked.insert(trial).inserted else { continue }
                ask(trial, subject: subject, ranking: ranking, salt: picked.count, probing: n.probed, draft: &draft)
                if let c = n.probed { probeCounts[Key(subject: subject, configuration: c), default: 0] += 1 }
            }
        }
    }

    /// Asks for a follow-up that keeps `trial`'s combination in the least suspicious environment (or notes that one
    /// has run already: its outcome decides).
    /// - Parameters:
    ///   - probing: for a probe of second faults (``SecondFaults``), the failing configuration it breaks the
    ///     confirmations of: its moved axes take other values, and its failure is one to explain like the source's.
    ///   - wholes: the second try of a confirmation that larger candidates holding it may explain: the generator
    ///     avoids those its first follow-up held (``FollowUpGenerator``).
    private mutating func ask(_ trial: Trial, subject: Subject, ranking: SuspicionRanking, salt: Int,
                              probing: [String: String]? = nil, wholes: Bool = false, draft: inout FollowUpRound) {
        tries[subject, default: [:]][trial, default: 0] += 1
        let seed = settings.seed &+ UInt64(round) &* 0x9E37_79B9 &+ UInt64(salt)
        let earlier = targets.filter { $0.key.subject == subject && $0.value.combination == trial.combination }
            .map(\.key.configuration)
        var confounding = trial.intermittent ? IsolationEvidence.confounding(trial.combination, subject: subject, in: observations) : []
        if trial.intermittent, let pair = IntermittentConfirmation(session: self).ambiguousPair(of: trial.combination, subject: subject, ranking: ranking) {
            confounding.append(pair.values.filter { trial.combination[axis: $0.key] == nil })
        }
        // An intermittent suspect's earlier follow-ups that failed: they confirmed nothing (it is not confirmed yet).
        let undecided = trial.intermittent ? earlier.filter { ledger.failedAnAttempt(Key(subject: subject, configuration: $0)) } : []
        guard let config = generator.configuration(keeping: trial.combination, ranking: ranking, maxSize: settings.maxSize, seed: seed,
                                                   avoiding: earlier + (probing.map { [$0] } ?? []), confounding: confounding,
                                                   undecided: undecided, wholes: wholes),
              probing == nil || !confirmed.contains(where: { $0.subject == subject && $0.combination.isContained(in: config) })
        else {
            tries[subject, default: [:]][trial] = Int.max / 2
            return
        }
        // One trial per configuration a round: the job is the evidence of the trial it was made for.
        guard draft.kept[subject]?.contains(config) != true else { return }
        let key = Key(subject: subject, configuration: config)
        if probing != nil {
            tries[subject, default: [:]][trial] = Int.max / 2
            probes.insert(key)
        }
        if ledger.hasRun(key) && !trial.intermittent {
            // Already run: its outcome is this trial's evidence (decided before the next round). Not for an
            // intermittent suspect: the recorded job may be one of those that made it a suspect, so it runs afresh.
            // A job that is another trial's evidence decides nothing for this one, whose try is spent: the next pass
            // moves on (the round used to end there, and the session with it, with candidates and budget left: a
            // three-value Boolean model, whose every configuration holding `x + z` had run).
            if targets[key] == nil { targets[key] = trial }
            draft.reused = true
            return
        }
        targets[key] = trial
        draft.kept[subject, default: []].append(config)
        draft.add(FollowUp(subject: subject, configuration: config, target: trial.combination, intermittent: trial.intermittent,
                           probe: probing != nil),
                  budget: settings.budget - spent)
    }

    /// The probes asked so far of `configuration` (none for a single candidate's try: nil).
    private func probed(_ configuration: [String: String]?, _ subject: Subject) -> Int {
        configuration.map { probeCounts[Key(subject: subject, configuration: $0)] ?? 0 } ?? 0
    }

    /// Every combination a follow-up has kept so far (any subject): what the session suspected enough to test.
    public var tried: Set<Combination> { Set(tries.values.flatMap { $0.keys.map(\.combination) }) }

    /// Subjects with a failure to explain, in order (those failing everywhere, ``failingEverywhere``, aside).
    var subjects: [Subject] { ledger.failingSubjects.filter { failingEverywhere[$0] == nil } }

    /// Whether a confirmed combination of `subject` explains `configuration`.
    func explained(_ configuration: [String: String], _ subject: Subject) -> Bool {
        confirmed.contains { $0.subject == subject && $0.combination.isContained(in: configuration) }
    }

    /// The source run's failing configurations of `subject` that hold no confirmed combination, in order.
    public func unexplained(_ subject: Subject) -> [[String: String]] {
        configurations(subject) { isFailing($0) }.filter { !explained($0, subject) }
    }

    /// Configurations of `subject` whose key passes `filter`, in a stable order: the source run's and the probes of
    /// second faults', or all.
    func configurations(_ subject: Subject, all: Bool = false, _ filter: (Key) -> Bool) -> [[String: String]] {
        var seen = Set<[String: String]>()
        var out: [[String: String]] = []
        for o in observations where o.subject == subject && seen.insert(o.configuration).inserted {
            let key = Key(subject: subject, configuration: o.configuration)
            if (all || !o.followUp || probes.contains(key)) && filter(key) { out.append(o.configuration) }
        }
        return out
    }

    /// The subject's ranking on the evidence so far (kept from the last decision when the evidence has not changed).
    public func ranking(_ subject: Subject) -> SuspicionRanking {
        rankings[subject] ?? makeRanking(subject)
    }

    private func makeRanking(_ subject: Subject) -> SuspicionRanking {
        SuspicionRanking(candidatesFrom: configurations(subject) { isDeterministic($0) },
                         failing: configurations(subject, all: true) { ledger.failedAnAttempt($0) },
                         passing: configurations(subject, all: true) { ledger.passed($0) },
                         maxSize: settings.maxSize)
    }

    /// Confirms the candidates failing follow-ups isolated, and retracts deterministic confirmations a passing
    /// attempt contradicts.
    private mutating func decide() {
        rankings = [:]
        tallies = [:]
        // A subject whose only failures are flaky jobs awaiting repeats: those other jobs corroborate count at once.
        for subject in Set(ledger.pending.keys.map(\.subject)).subtracting(subjects).sorted() {
            tally(subject)
            corroborate(subject)
        }
        for subject in subjects {
            let ranking = makeRanking(subject)
            rankings[subject] = ranking
            for (i, c) in confirmed.enumerated().reversed()
            where c.subject == subject && !c.intermittent && !ranking.live.contains(c.combination) {
                retracted.append(c)
                confirmed.remove(at: i)
            }
            tally(subject)
            corroborate(subject)
            let before = confirmed.count
            confirmFollowUps(subject, ranking: ranking)
            let own = confirmed.filter { $0.subject == subject && $0.intermittent }.map(\.combination)
            confirmed.removeAll { $0.subject == subject && SharedParts.superseded($0.combination, by: own) }
            // The next round chooses on the tallies of these confirmations too (their jobs left out).
            if confirmed.count != before, IsolationEvidence.overlapRules(candidates: settings.maxSize) { tally(subject) }
        }
    }

    /// Settles the flaky jobs of `subject` that other jobs corroborate (``ConfigurationLedger/corroborate(_:tally:size:explained:)``).
    private mutating func corroborate(_ subject: Subject) {
        guard let tally = tallies[subject] else { return }
        let session = self
        ledger.corroborate(subject, tally: tally, size: settings.suspectSize) {
            session.explained($0, subject)
        }
    }

    /// The subject's intermittent tallies and intermittent jobs, jobs a confirmed combination explains left out.
    private mutating func tally(_ subject: Subject) {
        let record = self.record(subject)
        tallies[subject] = record.tallies()
        intermittentJobs[subject] = record.intermittentJobs
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
            // An intermittent suspect is confirmed only by a follow-up job that itself failed an attempt.
            if trial.intermittent && (!o.followUp || o.verdict == .passed) { continue }
            let target = trial.combination
            if trial.intermittent, let part = IntermittentConfirmation(session: self).intermittentPart(of: target, in: o.configuration, subject: subject, ranking: ranking) {
                confirmed.append(Confirmation(subject: subject, combination: part, jobs: jobs(part), intermittent: true))
                continue
            }
            // An intermittent suspect whose follow-ups failed every attempt may still be decided as deterministic.
            let intermittent = trial.intermittent
                && IntermittentConfirmation(session: self).isolatesIntermittent(target, in: o.configuration, subject: subject, ranking: ranking)
            if !intermittent {
                // A combination holding a noisy value (``RunNoise``) is never confirmed as deterministic.
                guard isDeterministic(key), ranking.live.contains(target), noise.value(in: target.values) == nil,
                      isolates(target, subject: subject, ranking: ranking)
                else { continue }
                if (intermittentJobs[subject] ?? 0) > 0, let part = IntermittentConfirmation(session: self).suspectPart(of: target, subject: subject) {
                    heldBack[subject, default: [:]][target] = part
                    continue
                }
            }
            confirmed.append(Confirmation(subject: subject, combination: target, jobs: jobs(target), intermittent: intermittent))
        }
        dropUnisolated(subject, ranking: ranking)
    }

    /// Withdraws the deterministic confirmations that no longer isolate their combination because a failing follow-up
    /// they rested on holds another deterministic confirmation: one confirmed by the values its failing follow-ups
    /// share, when one of those follow-ups failed for the other. (A three-value Boolean model with
    /// `a + b` and `!b + c` planted: `a + c`'s follow-ups `a b c` and `a !b c` share only `a c`, and `a + c` was
    /// confirmed just before `!b + c`, which explains the second.) It may be confirmed again on new evidence.
    private mutating func dropUnisolated(_ subject: Subject, ranking: SuspicionRanking) {
        var changed = true
        while changed {
            changed = false
            let deterministic = confirmed.filter { $0.subject == subject && !$0.intermittent }.map(\.combination)
            for i in confirmed.indices.reversed() where confirmed[i].subject == subject && !confirmed[i].intermittent {
                let c = confirmed[i].combination
                let undermined = targets.contains { key, trial in
                    key.subject == subject && trial.combination == c && isDeterministic(key)
                        && deterministic.contains { $0 != c && $0.isContained(in: key.configuration) }
                }
                guard undermined, !isolates(c, subject: subject, ranking: ranking) else { continue }
                confirmed.remove(at: i)
                changed = true
                break
            }
        }
    }

    /// Whether the failing follow-ups that kept `target` leave it the only candidate
    /// (``SuspicionRanking/isolates(_:failing:maxSize:)``).
    private func isolates(_ target: Combination, subject: Subject, ranking: SuspicionRanking) -> Bool {
        ranking.isolates(target, failing: targets.filter { $0.key.subject == subject && $0.value.combination == target
            && isDeterministic($0.key) }.map(\.key.configuration), maxSize: settings.maxSize,
            explainedBy: confirmed.filter { $0.subject == subject && !$0.intermittent }.map(\.combination))
    }

    /// The subject's jobs, its confirmed combinations, and its configurations that both passed and failed an attempt.
    func record(_ subject: Subject) -> IsolationEvidence.Record { .init(subject, of: self, mixed: ledger.mixed(subject)) }
}
