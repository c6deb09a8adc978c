import Foundation

/// What a subject's jobs say, attempt by attempt (pure): the evidence ``IsolationSession`` decides on.
///
/// A **deterministic** failure-inducing combination fails every attempt, so a configuration with a passing attempt
/// (a passed job, or a flaky one's passing retry) holds none: it clears every combination it holds for that
/// hypothesis. An **intermittent** one fails some attempts only; for it a pass clears nothing, and a combination is
/// suspected by the share of the jobs holding it that failed an attempt (jobs a confirmed combination explains left out).
struct IsolationEvidence: Sendable {
    /// A configuration's attempts so far.
    struct Attempts: Sendable, Hashable {
        var passed = false
        var failed = false
    }

    /// Failing and passing jobs holding a combination (jobs a confirmed combination explains left out).
    struct Tally: Sendable, Hashable {
        var failing = 0
        var passing = 0
        /// Failing jobs that show intermittency: a flaky job (an attempt failed, a retry passed), or a job whose
        /// configuration also passed in another job. A deterministic fault never makes one.
        var intermittent = 0

        /// The share of its jobs that failed an attempt.
        var rate: Double { Double(failing) / Double(max(1, failing + passing)) }

        /// Counts one more job: passing, or failing an attempt (failed or flaky).
        mutating func count(_ verdict: Verdict) {
            if verdict == .passed { passing += 1 } else { failing += 1 }
        }

        /// These jobs but those of `part`, which they hold.
        func without(_ part: Tally) -> Tally {
            Tally(failing: max(0, failing - part.failing), passing: max(0, passing - part.passing),
                  intermittent: max(0, intermittent - part.intermittent))
        }
    }

    /// A combination is an intermittent suspect when at least this many of its jobs failed an attempt…
    static let minimumFailing = 2
    /// …and at least this share of them.
    static let minimumRate = 0.34
    /// The share of its jobs without a suspect holding it at which a part tried already still fails on its own
    /// (``Record/stillFails(_:without:)``).
    static let triedPartRate = 0.2
    /// Intermittent suspects have at most two values (a larger one is held by too few jobs to be told apart from its
    /// parts by failure shares; it stays a deterministic candidate), or three where candidates have four (a 3-wise
    /// plan holds every three values in several jobs; without them every flaky three-value fault was missed, and only
    /// larger candidates holding it were left to confirm).
    static func maximumSize(candidates maxSize: Int) -> Int { maxSize > 3 ? 3 : 2 }

    /// Tallies of every combination of at most `size` values of the jobs' configurations (job by job: a
    /// configuration run twice counts twice) that `explained` does not cover.
    /// - Parameters:
    ///   - intermittentConfigurations: configurations that both passed and failed an attempt.
    ///   - size: the largest suspect (``maximumSize(candidates:)``).
    ///   - deterministic: the combinations of `explained` confirmed as deterministic: the failures they mask count for
    ///     a combination whose own jobs show intermittency (``addMasked(to:jobs:explained:deterministic:size:)``).
    static func tallies(_ jobs: [(configuration: [String: String], verdict: Verdict)], explained: [Combination],
                        deterministic: Set<Combination> = [], intermittentConfigurations: Set<[String: String]> = [],
                        size: Int) -> [Combination: Tally]
    {
        var out: [Combination: Tally] = [:]
        for job in jobs where !explained.contains(where: { $0.isContained(in: job.configuration) }) {
            let shows = showsIntermittency(job.verdict, job.configuration, mixed: intermittentConfigurations)
            for c in Combination.subsets(of: job.configuration, maxSize: size) {
                out[c, default: Tally()].count(job.verdict)
                if shows { out[c, default: Tally()].intermittent += 1 }
            }
        }
        if !deterministic.isEmpty { addMasked(to: &out, jobs: jobs, explained: explained, deterministic: deterministic, size: size) }
        return out
    }

    /// Whether a job shows intermittency: flaky, or failed in a configuration that also passed (in `mixed`).
    static func showsIntermittency(_ verdict: Verdict, _ configuration: [String: String], mixed: Set<[String: String]>) -> Bool {
        verdict == .flaky || (verdict == .failed && mixed.contains(configuration))
    }

    /// Whether a suspect's own jobs show intermittency (``Tally/intermittent``): such a suspect explains failures a
    /// deterministic candidate cannot, and is tried before them when it explains at least as many.
    static func evidenced(_ t: Tally?) -> Bool {
        guard let t else { return false }
        return suspicious(t) && t.intermittent > 0
    }

    /// Whether a flaky job's failure is corroborated by the other jobs holding a combination `t` tallies (the flaky
    /// job among them): without it the combination is still an evidenced suspect.
    static func corroborated(_ t: Tally?) -> Bool {
        guard var t, t.intermittent > 0 else { return false }
        t.failing -= 1
        t.intermittent -= 1
        return evidenced(t)
    }

    /// Whether a suspect's failing jobs are so few (``minimumFailing``) that a value they share may do so by chance:
    /// two failing jobs of a flaky pair share some third value more often than not, and the pair with it fails "all"
    /// its jobs. Such a suspect is passed over for an evidenced part of it still to try.
    static func fewFailing(_ t: Tally?) -> Bool { (t?.failing ?? 0) <= minimumFailing }

    /// How much likelier a combination's outcomes must be if it were a flaky fault than if it were none for its
    /// failures to stand out (``standsOut(_:background:smoothed:)``).
    static let standOutRatio = 20.0

    /// Whether a combination's failures stand out from those of the other jobs (`background`): its jobs' outcomes are
    /// ``standOutRatio`` times likelier if it were a flaky fault — failing an attempt in half its jobs, the others at
    /// the background's rate — than if its jobs failed at the background's rate. A share alone does not say it: under
    /// a 3-wise plan whose two flaky values fail 44 % of the other jobs, every value and most triples of a follow-up
    /// reached the suspect share, and blocked every confirmation of either value.
    /// - Parameter smoothed: the background's rate counts one failing and one passing job more (Laplace's rule), for a
    ///   suspect: one every unexplained job holds has no background, and does not stand out from none (`a=0` once
    ///   `a=1` was confirmed on a two-valued axis). Otherwise (for a combination that may block a confirmation) the
    ///   rate is kept within 2–98 %, and a failing combination stands out from an empty background.
    static func standsOut(_ t: Tally, background: Tally, smoothed: Bool) -> Bool {
        evidence(t, background: background, smoothed: smoothed) > log(standOutRatio)
    }

    /// The log of how much likelier `t`'s outcomes are if its combination were a flaky fault than if it were none
    /// (``standsOut(_:background:smoothed:)``).
    static func evidence(_ t: Tally, background: Tally, smoothed: Bool) -> Double {
        let base = smoothed ? Double(background.failing + 1) / Double(background.failing + background.passing + 2)
            : min(0.98, max(0.02, background.rate))
        let fault = 0.5 + 0.5 * base
        return Double(t.failing) * log(fault / base) + Double(t.passing) * log((1 - fault) / (1 - base))
    }

    /// Whether a tally makes its combination an intermittent suspect.
    static func suspicious(_ t: Tally?) -> Bool {
        guard let t else { return false }
        return t.failing >= minimumFailing && t.rate >= minimumRate
    }

    /// A subject's jobs, the combinations confirmed for it, and its configurations that both passed and failed an
    /// attempt: what the tallies are made of.
    struct Record {
        var jobs: [(configuration: [String: String], verdict: Verdict)]
        var explained: [Combination]
        /// The combinations of `explained` confirmed as deterministic.
        var deterministic: Set<Combination> = []
        var mixed: Set<[String: String]>
        /// The largest suspect (``IsolationEvidence/maximumSize(candidates:)``).
        var size: Int

        /// The jobs `explained` does not cover that show intermittency: flaky, or failing in a configuration that also
        /// passed.
        var intermittentJobs: Int {
            jobs.filter { job in
                !isExplained(job.configuration)
                    && IsolationEvidence.showsIntermittency(job.verdict, job.configuration, mixed: mixed)
            }.count
        }

        /// The jobs that do not hold `target` (every job, without one) as one tally, jobs `explained` covers left out:
        /// the background a combination's failures stand out from (``IsolationEvidence/standsOut(_:background:smoothed:)``;
        /// take the combination's own tally out of it with ``Tally/without(_:)`` when its jobs are among these). Counted
        /// once per decision: a confirmation check weighs every combination of a follow-up against it.
        func background(without target: Combination? = nil) -> Tally {
            var all = Tally()
            for job in jobs where !(target?.isContained(in: job.configuration) ?? false) && !isExplained(job.configuration) {
                all.count(job.verdict)
            }
            return all
        }

        /// Whether a confirmed combination covers `configuration` (its jobs are left out of every tally).
        func isExplained(_ configuration: [String: String]) -> Bool {
            explained.contains { $0.isContained(in: configuration) }
        }

        /// The tallies of the jobs whose configuration `filter` keeps.
        func tallies(_ filter: ([String: String]) -> Bool = { _ in true }) -> [Combination: Tally] {
            IsolationEvidence.tallies(jobs.filter { filter($0.configuration) }, explained: explained,
                                      deterministic: deterministic, intermittentConfigurations: mixed, size: size)
        }

        /// The smallest proper part of `combination` that is an intermittent suspect `untried` allows, on the jobs
        /// that do not hold `combination` itself: a part of a deterministic fault fails in every follow-up that kept
        /// the whole, so only failures beside the whole make the part suspect on its own (a flaky value does: it fails
        /// elsewhere too).
        func suspectPart(of combination: Combination, untried: (Combination) -> Bool) -> Combination? {
            let tally = tallies { !combination.isContained(in: $0) }
            return Combination.subsets(of: combination.values, maxSize: combination.count - 1).sorted().first { s in
                suspicious(tally[s]) && untried(s)
            }
        }

        /// `part`'s tally on the jobs that hold neither `whole` nor any of `besides`.
        func tally(of part: Combination, without whole: Combination, besides: Set<Combination> = []) -> Tally? {
            tallies { c in
                part.isContained(in: c) && !whole.isContained(in: c) && !besides.contains { $0.isContained(in: c) }
            }[part]
        }

        /// Whether `part`'s jobs that hold neither `whole` nor any of `besides` still fail, intermittently (`evidenced`:
        /// its jobs show intermittency too): `whole`'s other values are not needed for `part` to fail.
        func failsWithout(_ part: Combination, _ whole: Combination, besides: Set<Combination> = [], evidenced: Bool = true) -> Bool {
            let t = tally(of: part, without: whole, besides: besides)
            return evidenced ? IsolationEvidence.evidenced(t) : IsolationEvidence.suspicious(t)
        }

        /// Whether `part`, tried already as an intermittent suspect, still fails in its jobs without `whole`: at least
        /// two failing, one showing intermittency, and a fifth of them (``triedPartRate``) — a lower bar than a new
        /// suspect's 34 % (``minimumRate``), because `whole` cannot explain those failures. A flaky value whose four
        /// follow-ups passed (one time in sixteen) fell below that with their passes, and pairs holding it were
        /// confirmed instead.
        func stillFails(_ part: Combination, without whole: Combination) -> Bool {
            guard let t = tally(of: part, without: whole) else { return false }
            return t.failing >= minimumFailing && t.intermittent > 0 && t.rate >= triedPartRate
        }

        /// Whether deterministic candidate `candidate` (held by more than one failing configuration) goes before the
        /// evidenced suspect `suspect` it holds: the suspect's jobs without the candidate's other values are no suspect (a value of a deterministic pair fails
        /// in every job that holds the pair; beside a flaky job elsewhere it looked intermittent, was tried first, and
        /// a failing follow-up of another fault holding it confirmed it).
        func outranks(_ candidate: Combination, _ suspect: Combination) -> Bool {
            candidate.count > suspect.count && suspect.isSubset(of: candidate) && !failsWithout(suspect, candidate, evidenced: false)
        }
    }

    /// The intermittent suspect of a failing configuration whose own jobs show intermittency most (held by at least
    /// half of the subject's unexplained intermittent jobs, `intermittentJobs`), then the smaller — unless the smaller
    /// is a part of the larger whose other jobs only passed (``onlyPassesWithout(_:_:)``) — then the higher failure
    /// share, among those `untried` allows. (The higher share before the smaller chose a flaky value's pair with
    /// whatever value its few unexplained failing jobs happened to share.)
    static func evidencedSuspect(in failing: [String: String], tally: [Combination: Tally], intermittentJobs total: Int,
                                 maxSize: Int, size: Int? = nil, untried: (Combination) -> Bool) -> Combination?
    {
        Combination.subsets(of: failing, maxSize: size ?? min(maxSize, maximumSize(candidates: maxSize)))
            .filter { c in
                guard let t = tally[c], evidenced(t), t.intermittent * 2 >= total else { return false }
                return untried(c)
            }
            .min { a, b in
                let (ta, tb) = (tally[a] ?? .init(), tally[b] ?? .init())
                if ta.intermittent != tb.intermittent { return ta.intermittent > tb.intermittent }
                if a.count != b.count {
                    let (part, whole) = a.count < b.count ? (ta, tb) : (tb, ta)
                    let smallerFirst = a.isSubset(of: b) || b.isSubset(of: a) ? !onlyPassesWithout(part, whole) : true
                    return smallerFirst == (a.count < b.count)
                }
                if ta.rate != tb.rate { return ta.rate > tb.rate }
                return a < b
            }
    }

    /// Whether a part's jobs without the larger suspect holding it (`part` tallies them all, `whole` those that hold
    /// the larger) passed, at least ``cleanPasses`` of them and not one failing: were the part a fault failing half its
    /// jobs, that would happen one time in eight or less.
    static func onlyPassesWithout(_ part: Tally, _ whole: Tally) -> Bool {
        part.failing == whole.failing && part.passing - whole.passing >= cleanPasses
    }

    /// Passes without a failure that clear a part of a larger suspect (``onlyPassesWithout(_:_:)``).
    static let cleanPasses = 3

    /// The best intermittent suspect of a failing configuration that `untried` allows: the smaller, then the higher
    /// failure share, then the more failing jobs.
    static func bestSuspect(in failing: [String: String], tally: [Combination: Tally], size: Int,
                            untried: (Combination) -> Bool) -> Combination?
    {
        Combination.subsets(of: failing, maxSize: size)
            .filter { suspicious(tally[$0]) && untried($0) }
            .min { a, b in
                let (ta, tb) = (tally[a] ?? .init(), tally[b] ?? .init())
                if a.count != b.count { return a.count < b.count }
                if ta.rate != tb.rate { return ta.rate > tb.rate }
                if ta.failing != tb.failing { return ta.failing > tb.failing }
                return a < b
            }
    }
}

extension IsolationEvidence.Record {
    /// `subject`'s record in `session`: its jobs, its confirmations, and `mixed`, its configurations that both
    /// passed and failed an attempt.
    init(_ subject: Subject, of session: IsolationSession, mixed: Set<[String: String]>) {
        let own = session.confirmed.filter { $0.subject == subject }
        self.init(jobs: session.observations.filter { $0.subject == subject }.map { ($0.configuration, $0.verdict) },
                  explained: own.map(\.combination),
                  deterministic: IsolationEvidence.overlapRules(candidates: session.settings.maxSize)
                      ? Set(own.filter { !$0.intermittent }.map(\.combination)) : [],
                  mixed: mixed, size: session.settings.suspectSize)
    }
}
