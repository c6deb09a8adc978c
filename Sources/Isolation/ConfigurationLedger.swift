/// What each configuration of a subject has shown, attempt by attempt, and which flaky jobs still wait for their
/// failure to count (docs/ISOLATE.md, "The algorithm", step 1). Pure bookkeeping for ``IsolationSession``.
struct ConfigurationLedger: Sendable {
    typealias Key = IsolationSession.Key

    /// Per configuration of a subject: whether an attempt passed, whether one failed.
    private(set) var attempts: [Key: IsolationEvidence.Attempts] = [:]
    /// Flaky jobs awaiting their repeats: the passing repeats so far.
    private(set) var pending: [Key: Int] = [:]
    /// Flaky jobs whose repeats passed: not failures to explain.
    private var noise = Set<Key>()
    /// Noise given one more repeat (``recheck(_:)``).
    private var rechecked = Set<Key>()

    /// Records one job's outcome.
    /// - Parameters:
    ///   - repeatsItself: the job is a follow-up that keeps an intermittent suspect: it is itself the repeat of flaky
    ///     evidence, and its failing attempt counts at once.
    ///   - flakyRepeats: passing repeats that make a flaky job noise.
    ///
    /// A flaky job's passing retry is a pass at once: its configuration passed an attempt, so no deterministic fault
    /// holds it.
    mutating func record(_ o: Observation, repeatsItself: Bool, flakyRepeats: Int) {
        let key = Key(subject: o.subject, configuration: o.configuration)
        let before = attempts[key] ?? .init()
        attempts[key] = .init(passed: before.passed || o.verdict != .failed,
                              failed: before.failed || o.verdict != .passed)
        if let passes = pending[key] {
            // A repeat of a flaky job: a failing attempt makes it a failure; enough passing repeats make it noise.
            if o.verdict != .passed {
                pending[key] = nil
            } else if passes + 1 >= flakyRepeats {
                pending[key] = nil
                noise.insert(key)
            } else {
                pending[key] = passes + 1
            }
        } else if o.verdict == .flaky, !before.failed, !repeatsItself {
            pending[key] = 0
        } else if o.verdict != .passed {
            noise.remove(key)
        }
    }

    /// The flaky jobs of `subject` that proved noise and have not been rechecked, in order; each is marked rechecked.
    /// With every failure explained and budget left, each gets one more repeat: a fault that fails half the time
    /// passes one repeat half the time too, and a failing recheck makes it a failure to explain again.
    mutating func recheck(_ subject: Subject) -> [Key] {
        let keys = noise.filter { $0.subject == subject && !rechecked.contains($0) }.sorted { $0.precedes($1) }
        rechecked.formUnion(keys)
        return keys
    }

    /// Whether a configuration has run.
    func hasRun(_ key: Key) -> Bool { attempts[key] != nil }

    /// Whether an attempt of a configuration failed (a flaky job's included).
    func failedAnAttempt(_ key: Key) -> Bool { attempts[key]?.failed ?? false }

    /// Whether a configuration passed an attempt, or its flaky failure proved noise: it clears its combinations as
    /// deterministic candidates.
    func passed(_ key: Key) -> Bool { (attempts[key]?.passed ?? false) || noise.contains(key) }

    /// Whether a configuration counts as failing: an attempt failed, and it is neither awaiting repeats nor noise.
    func isFailing(_ key: Key) -> Bool { failedAnAttempt(key) && pending[key] == nil && !noise.contains(key) }

    /// Whether every job of a configuration failed every attempt: a deterministic failure can explain it.
    func isDeterministic(_ key: Key) -> Bool { isFailing(key) && !(attempts[key]?.passed ?? true) }

    /// Subjects with a configuration that counts as failing, in order.
    var failingSubjects: [Subject] { Set(attempts.keys.filter(isFailing).map(\.subject)).sorted() }

    /// Whether a configuration both passed and failed an attempt.
    func isMixed(_ key: Key) -> Bool { attempts[key].map { $0.passed && $0.failed } ?? false }

    /// Configurations of `subject` that both passed and failed an attempt.
    func mixed(_ subject: Subject) -> Set<[String: String]> {
        Set(attempts.filter { $0.key.subject == subject && $0.value.passed && $0.value.failed }.map(\.key.configuration))
    }

    /// Settles the flaky jobs of `subject` awaiting repeats whose failure other jobs corroborate: their configuration
    /// holds a combination of at most `size` values that `tally` keeps an evidenced suspect without them
    /// (``IsolationEvidence/corroborated(_:)``). Their failure counts without a repeat: the suspect's other failing
    /// jobs are its repeats (a system whose every job held a flaky value spent its whole budget repeating them).
    mutating func corroborate(_ subject: Subject, tally: [Combination: IsolationEvidence.Tally], size: Int,
                              explained: ([String: String]) -> Bool) {
        for key in pending.keys where key.subject == subject && !explained(key.configuration)
            && Combination.subsets(of: key.configuration, maxSize: size).contains(where: { IsolationEvidence.corroborated(tally[$0]) }) {
            pending[key] = nil
        }
    }
}
