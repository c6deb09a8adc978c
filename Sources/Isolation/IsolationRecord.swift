import Foundation

/// `runs/<run>/isolation.json` (docs/ISOLATE.md): what `flowmatrix isolate` confirmed about a source run.
public struct IsolationRecord: Sendable, Hashable, Codable {
    /// A confirmed combination of a subject, with the follow-up jobs that decided it.
    public struct Confirmed: Sendable, Hashable, Codable {
        public var scenario: String
        public var registry: String
        /// The command job's test it is about (its own verdicts were the evidence); absent for the whole job.
        public var test: String?
        /// Axis → its values: one each for a confirmed combination; several on an axis where confirmations that
        /// differ only in that axis's value are one (``merged(_:)``: `locale ∈ {de, fr}`, each confirmed on its own).
        public var combination: [String: [String]]
        public var followUps: Int
        /// The follow-up jobs' ids.
        public var jobs: [String]
        /// True when confirmed as intermittent (it failed an attempt in a clean configuration, though jobs holding it
        /// passed too); absent for a deterministic one.
        public var intermittent: Bool?

        public init(scenario: String, registry: String, test: String?, combination: [String: [String]], followUps: Int,
                    jobs: [String], intermittent: Bool?) {
            (self.scenario, self.registry, self.test, self.combination) = (scenario, registry, test, combination)
            (self.followUps, self.jobs, self.intermittent) = (followUps, jobs, intermittent)
        }

        /// Its scenario, registry and test.
        public var subject: Subject { Subject(scenario: scenario, registry: registry, test: test) }

        /// `locale=ar + window=narrow`, axes sorted.
        public var label: String { label(axes: nil) }

        /// As ``label``, with a set written as the values of its axis (in `axes`) it leaves out when those are at
        /// most half as many: `locale ∉ {en-GB, he}` for ten locales of twelve (seven of twelve stay a set).
        public func label(axes: [String: [String]]?) -> String {
            combination.keys.sorted().map { axis in
                let values = combination[axis] ?? []
                if values.count == 1 { return "\(axis)=\(values[0])" }
                if let all = axes?[axis], Set(values).isSubset(of: all) {
                    let rest = all.filter { !values.contains($0) }
                    if !rest.isEmpty && rest.count * 2 <= values.count { return "\(axis) ∉ {\(rest.joined(separator: ", "))}" }
                }
                return "\(axis) ∈ {\(values.joined(separator: ", "))}"
            }.joined(separator: " + ")
        }
    }

    /// A subject whose failures the budget or the evidence left unexplained.
    public struct Unresolved: Sendable, Hashable, Codable {
        public var scenario: String
        public var registry: String
        /// The command job's test, as in ``Confirmed/test``.
        public var test: String?
        /// Failing configurations that hold no confirmed combination (canonical `k=v,k=v`).
        public var configurations: [String]
        /// The best remaining candidates (at most 5), as labels: the live deterministic candidates that `configurations`
        /// hold, in rank order, then their intermittent suspects, labelled `(intermittent)`.
        public var suspects: [String]

        /// Its scenario, registry and test.
        public var subject: Subject { Subject(scenario: scenario, registry: registry, test: test) }
        /// Of `configurations`, those the source run did not have: a probe of second faults found them failing
        /// (docs/ISOLATE.md, step 9). Absent when none.
        public var foundByProbes: [String]?
        /// When no suspect is left: of the subject's jobs (source and follow-ups) that no confirmed combination
        /// explains, how many failed an attempt — for a scenario that fails now and then wherever it runs, how often
        /// it does is what there is to say.
        public var failingJobs: Int?
        public var jobs: Int?
        /// Its follow-up jobs, and how many of them failed an attempt (absent without follow-ups). None failing in
        /// two or more says the failure did not come back: fixed since the run, or intermittent.
        public var followUps: Int?
        public var failingFollowUps: Int?
    }

    /// A subject that failed in every configuration it ran (every source job, every attempt): no value or combination
    /// of values is needed for it to fail, and no follow-up was spent on it.
    public struct Everywhere: Sendable, Hashable, Codable {
        public var scenario: String
        public var registry: String
        /// The command job's test, as in ``Confirmed/test``.
        public var test: String?
        /// Its source jobs (all failed).
        public var jobs: Int

        /// Its scenario, registry and test.
        public var subject: Subject { Subject(scenario: scenario, registry: registry, test: test) }
    }

    /// The run whose failures were isolated.
    public var source: String
    public var confirmed: [Confirmed]
    public var unresolved: [Unresolved]
    /// Follow-up jobs run (flaky repeats and samples included).
    public var jobsRun: Int
    /// Confirmations a later passing job contradicted (kept for the record).
    public var retracted: [Confirmed]
    /// The follow-up runs, in order (the last one holds this file).
    public var runs: [String]
    /// The budget in jobs.
    public var budget: Int
    /// Subjects that failed in every configuration they ran; absent when none.
    public var failsEverywhere: [Everywhere]?
    /// The source run's registries when it ran more than one (one corpus on several renderers: a scenario is a subject
    /// per registry, and the lines name it with its registry); absent otherwise.
    public var registries: [String]?
    /// Every axis of the source run's matrix with its values, in the matrix's order: a set of nearly all of an axis's
    /// values is written as those it leaves out (``label(_:)``). Absent in records written before 7 December 2026.
    public var axes: [String: [String]]?

    /// A confirmation's combination as the lines write it (``Confirmed/label(axes:)`` with this record's axes).
    public func label(_ c: Confirmed) -> String { c.label(axes: axes) }

    /// A subject as the lines name it: with its registry when the run had several (`cart-total-layout (web)`), where
    /// the same words for the catalog and for web said twice what was one renderer's defect or both's.
    public func name(_ s: Subject) -> String { registries == nil ? s.label : "\(s.label) (\(s.registry))" }

    public init(source: String, confirmed: [Confirmed], unresolved: [Unresolved], jobsRun: Int, retracted: [Confirmed],
                runs: [String], budget: Int) {
        self.source = source
        self.confirmed = confirmed
        self.unresolved = unresolved
        self.jobsRun = jobsRun
        self.retracted = retracted
        self.runs = runs
        self.budget = budget
    }

    /// The session's outcome as a record.
    public init(source: String, session: IsolationSession, runs: [String]) {
        func record(_ c: IsolationSession.Confirmation) -> Confirmed {
            Confirmed(scenario: c.subject.scenario, registry: c.subject.registry, test: c.subject.test,
                      combination: c.combination.values.mapValues { [$0] }, followUps: c.jobs.count, jobs: c.jobs,
                      intermittent: c.intermittent ? true : nil)
        }
        // The source run's configurations per subject, once (a probe's finding is a configuration not among them).
        var ran: [Subject: Set<[String: String]>] = [:]
        for o in session.observations where !o.followUp { ran[o.subject, default: []].insert(o.configuration) }
        let unresolved = session.subjects.compactMap { subject -> Unresolved? in
            let left = session.unexplained(subject)
            guard !left.isEmpty else { return nil }
            let suspects = Self.suspects(left, of: subject, in: session)
            func label(_ c: [String: String]) -> String { Combination(c).pairs.map { "\($0.axis)=\($0.value)" }.joined(separator: ",") }
            let probed = left.filter { !(ran[subject]?.contains($0) ?? false) }.map(label)
            var u = Unresolved(scenario: subject.scenario, registry: subject.registry, test: subject.test,
                               configurations: left.map(label), suspects: Array(suspects),
                               foundByProbes: probed.isEmpty ? nil : probed)
            let followUps = session.observations.filter { $0.followUp && $0.subject == subject }
            if !followUps.isEmpty {
                u.followUps = followUps.count
                u.failingFollowUps = followUps.filter { $0.verdict != .passed }.count
            }
            if suspects.isEmpty {
                let jobs = session.observations
                    .filter { $0.subject == subject && !session.explained($0.configuration, subject) }
                u.failingJobs = jobs.filter { $0.verdict != .passed }.count
                u.jobs = jobs.count
            }
            return u
        }
        self.init(source: source, confirmed: Confirmed.merged(session.confirmed.map(record)), unresolved: unresolved, jobsRun: session.spent,
                  retracted: session.retracted.map(record), runs: runs, budget: session.settings.budget)
        let everywhere = session.failingEverywhere.keys.sorted().map { s in
            Everywhere(scenario: s.scenario, registry: s.registry, test: s.test, jobs: session.failingEverywhere[s] ?? 0)
        }
        failsEverywhere = everywhere.isEmpty ? nil : everywhere
        let ranOn = Set(session.observations.map(\.subject.registry))
        registries = ranOn.count > 1 ? ranOn.sorted() : nil
        axes = Dictionary(session.generator.axes.map { ($0.name, $0.values) }) { a, _ in a }
    }

    /// "fails in every configuration it ran (8 of 8 jobs failed every attempt): no value is needed for it to fail".
    public static func everywhere(_ e: Everywhere) -> String {
        "fails in every configuration it ran (\(e.jobs) of \(e.jobs) jobs failed every attempt): no value is needed for it to fail"
    }

    /// "; none of its 12 follow-up jobs failed: it did not fail again (fixed since the run, or intermittent)", when
    /// two or more follow-ups ran and none failed an attempt: what a user isolating yesterday's run after a fix sees.
    static func notAgain(_ u: Unresolved) -> String {
        guard let n = u.followUps, n >= 2, u.failingFollowUps == 0 else { return "" }
        return "; none of its \(n) follow-up jobs failed: it did not fail again (fixed since the run, or intermittent)"
    }

    /// How often a subject without suspects fails: " (8 of its 36 jobs that no confirmation explains failed an
    /// attempt)".
    static func spread(_ u: Unresolved) -> String {
        guard let failing = u.failingJobs, let jobs = u.jobs, jobs > 0 else { return "" }
        return " (\(failing) of its \(jobs) jobs that no confirmation explains failed an attempt)"
    }

    /// What may still explain a subject's unexplained configurations `left` (at most five, as labels): the noisy
    /// values they hold (``RunNoise``), as intermittent suspects; the live deterministic candidates they hold that hold
    /// no noisy value, in rank order; then the intermittent suspects they hold (most failing share first). Never a
    /// confirmed combination, nor one that none of them holds. (A deterministic candidate holding a noisy value is
    /// never tried, and `network=flaky + window=narrow-portrait` was named as the best suspect of a scenario whose
    /// failures were that network's.)
    static func suspects(_ left: [[String: String]], of subject: Subject, in session: IsolationSession) -> [String] {
        let confirmed = Set(session.confirmed.filter { $0.subject == subject }.map(\.combination))
        func open(_ c: Combination) -> Bool { !confirmed.contains(c) && left.contains { c.isContained(in: $0) } }
        let noisy = session.noise.values.filter(open).sorted()
        var out = noisy.prefix(5).map { "\($0.description) (intermittent)" }
        out += session.ranking(subject).suspects.map(\.combination)
            .filter { open($0) && session.noise.value(in: $0.values) == nil }.prefix(max(0, 5 - out.count)).map(\.description)
        if out.count < 5, let tally = session.tallies[subject] {
            let size = session.settings.suspectSize
            let intermittent = Set(left.flatMap { Combination.subsets(of: $0, maxSize: size) })
                .filter { open($0) && !noisy.contains($0) && IsolationEvidence.suspicious(tally[$0]) }
                .sorted { a, b in
                    let (ra, rb) = (tally[a]?.rate ?? 0, tally[b]?.rate ?? 0)
                    return ra != rb ? ra > rb : a.count != b.count ? a.count < b.count : a < b
                }
            out += intermittent.prefix(5 - out.count).map { "\($0.description) (intermittent)" }
        }
        return out
    }

    /// The file's name in a run folder.
    public static let fileName = "isolation.json"

    /// Reads `isolation.json` in `folder`; nil when there is none.
    /// - Throws: a decoding error for a file that is not an isolation record.
    public static func read(in folder: URL) throws -> IsolationRecord? {
        let url = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(IsolationRecord.self, from: Data(contentsOf: url))
    }

    /// Writes the record as `isolation.json` in `folder` (sorted keys, atomically).
    public func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try encoder.encode(self).write(to: folder.appendingPathComponent(Self.fileName), options: .atomic)
    }

    /// What decided a confirmation: "confirmed by 6 follow-up jobs", or, when the source run alone decided it (a full
    /// plan ran every configuration that could), "decided by the run's own jobs, no follow-up needed".
    public static func evidence(followUps n: Int) -> String {
        n == 0 ? "decided by the run's own jobs, no follow-up needed" : "confirmed by \(n) follow-up job\(n == 1 ? "" : "s")"
    }

    /// One line per confirmed combination and per unresolved subject, for a terminal.
    public var lines: [String] {
        confirmed.map { c in
            "confirmed: \(name(c.subject)) fails \(c.intermittent == true ? "intermittently " : "")with \(label(c)) ("
                + Self.evidence(followUps: c.followUps) + ")"
        }
            + unresolved.map { u in
                "unresolved: \(name(u.subject)): \(u.configurations.count) failing configuration"
                    + (u.configurations.count == 1 ? "" : "s") + " unexplained"
                    + (u.foundByProbes.map { " (\($0.count) of them found by probes, not in the source run)" } ?? "")
                    + Self.notAgain(u)
                    + (u.suspects.first.map { "; best suspect: \($0)" } ?? "; no suspect left" + Self.spread(u))
            }
            + (failsEverywhere ?? []).map { "everywhere: \(name($0.subject)) \(Self.everywhere($0))" }
            + retracted.map { "retracted: \(name($0.subject)) with \(label($0)) (a later job passed with it)" }
            + budgetSpent
    }

    /// When the budget ran out with failures unexplained: how to go further. An isolation with a larger budget starts
    /// afresh (an earlier isolation's follow-ups are not reused), and finds more — but not every fault: under a
    /// pairwise plan a flaky three-value fault is found by none (docs/ISOLATE.md, "What the budget buys").
    var budgetSpent: [String] {
        guard !unresolved.isEmpty, jobsRun >= budget else { return [] }
        let left = unresolved.map(\.configurations.count).reduce(0, +)
        return ["budget spent: all \(budget) follow-up job\(budget == 1 ? "" : "s") ran with \(left) failing configuration"
            + (left == 1 ? "" : "s") + " still unexplained; a larger budget explains more ('flowmatrix isolate \(source) --budget "
            + "\(budget * 2)' starts a new isolation of the run)"]
    }
}
