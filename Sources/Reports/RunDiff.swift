import FlowVocabulary
import Foundation
import Journal
import MatrixPlan

/// What changed between two runs, by job id.
///
/// Categories (a job appears in at most one of the first six; `added` and `removed` list jobs present in one run):
/// - `newFailures`: failing (failed / timed out) in head, not failing in base — including jobs new in head.
/// - `fixed`: failing in base, passed or flaky in head.
/// - `stillFailing`: failing in both.
/// - `newlyFlaky`: flaky in head, passed or without a verdict in base — including jobs new in head.
/// - `noLongerFlaky`: flaky in base, passed in head.
/// - `otherChanges`: any other change of outcome (to or from quarantined, cancelled, not run).
/// - `durationRegressions`: passed or flaky in both, and head took more than `base × (1 + threshold)` and at least
///   `minimumDelta` seconds longer.
/// - `added` / `removed`: job ids only in head / only in base. An added job whose scenario id, configuration and
///   registry match a removed job names it in `replaces` (the scenario's content changed, so its job id did).
///
/// With repetitions in either run (stability mode), jobs are also compared over their repetitions — scenario,
/// configuration without the repetition axis, registry — by flake rate: `flakeRateRose` / `flakeRateFell`.
///
/// Regressions (``hasRegressions``, exit 1 of `flowmatrix diff`): new failures, newly flaky, duration regressions,
/// a flake rate that rose.
public struct RunDiff: Sendable, Hashable, Codable {
    /// One job in a category.
    public struct Entry: Sendable, Hashable, Codable {
        public var jobID: String
        public var scenarioID: String
        public var scenarioTitle: String
        public var configuration: String
        public var registry: String
        /// Nil when the job is not in the base run (or has no outcome there).
        public var baseOutcome: JobOutcome?
        /// Nil when the job is not in the head run (or has no outcome there).
        public var headOutcome: JobOutcome?
        public var baseDuration: Double?
        public var headDuration: Double?
        /// The failing step index in head (or base for removed and fixed jobs).
        public var failureStep: Int?
        public var failureMessage: String?
        /// For an added job: the removed job with the same scenario id, configuration and registry.
        public var replaces: String?
    }

    public var base: String
    public var head: String
    /// Relative duration threshold (0.2 = 20 %).
    public var durationThreshold: Double
    /// Seconds a duration must grow by, besides the threshold, to count.
    public var minimumDelta: Double
    public var newFailures: [Entry]
    public var fixed: [Entry]
    public var stillFailing: [Entry]
    public var newlyFlaky: [Entry]
    public var noLongerFlaky: [Entry]
    public var otherChanges: [Entry]
    public var durationRegressions: [Entry]
    public var added: [Entry]
    public var removed: [Entry]
    /// Jobs in both runs with the same outcome and no duration regression.
    public var unchanged: Int
    /// Stability mode: jobs whose flake rate (failed repetitions / repetitions) is higher in head, most risen first.
    public var flakeRateRose: [FlakeRateChange] = []
    /// Stability mode: jobs whose flake rate is lower in head.
    public var flakeRateFell: [FlakeRateChange] = []
    /// Command jobs in both runs, compared test by test (their `test:` steps; docs/COMMAND-JOBS.md).
    public var tests = TestChanges()
    /// Jobs whose failure names accessibility findings the base run's did not (`RunDiff+Audit.swift`).
    public var newAuditFindings: [AuditChange] = []
    /// Steps whose picture changed against its visual baseline in head and not in base (`RunDiff+Visual.swift`).
    public var newVisualChanges: [VisualChange] = []
    /// Whether head's `policy.visual.onChange` is `fail`: then new visual changes are regressions.
    public var visualChangesFail = false
    /// Set when the runs are of different matrices (the journal's matrix names differ): then only the jobs both runs
    /// have are compared, and the others are counted here instead of listed as added, removed or new failures.
    public var differentMatrices: DifferentMatrices?
    /// New and fixed disagreements between registries (``ParityDiff``); nil when neither run has several.
    public var disagreements: ParityDiff?

    /// Two runs of different matrices: their names and the jobs each has that the other lacks.
    public struct DifferentMatrices: Sendable, Hashable, Codable {
        public var baseMatrix: String
        public var headMatrix: String
        public var onlyInBase = 0
        public var onlyInHead = 0
        /// The jobs both runs have: the ones compared.
        public var shared = 0

        /// The warning `flowmatrix diff` prints first.
        public func warning(base: String, head: String) -> String {
            "warning: \(base) is a run of matrix '\(baseMatrix)' and \(head) of '\(headMatrix)': comparing only the "
                + "\(shared) job(s) both have; \(onlyInBase) only in \(base) and \(onlyInHead) only in \(head) are left out "
                + "(not removed, added or new failures)"
        }
    }

    /// New failures, newly flaky jobs or duration regressions.
    public var hasRegressions: Bool {
        !newFailures.isEmpty || !newlyFlaky.isEmpty || !durationRegressions.isEmpty || !flakeRateRose.isEmpty
            || !tests.newFailures.isEmpty || !tests.newlyFlaky.isEmpty || !newAuditFindings.isEmpty
            || (visualChangesFail && !newVisualChanges.isEmpty)
    }

    /// Compares run `base` with run `head` in the journal, streaming: the jobs of `head` joined with those of
    /// `base` by id, one pair at a time, and then `base`'s jobs that `head` lacks. Memory holds the changes, not the
    /// runs (in stability mode, also an entry per job without its repetition, as ``Stability`` does).
    /// - Parameters:
    ///   - durationThreshold: relative growth that counts as a regression (0.2 = 20 %).
    ///   - minimumDelta: absolute growth in seconds a regression needs too (default 0.1 s: noise of fast jobs).
    /// - Throws: ``ReportError`` `.unknownRun` when either run is not in the journal; the journal's errors.
    public static func compute(
        reader: JournalReader, base: String, head: String, durationThreshold: Double = 0.2, minimumDelta: Double = 0.1
    ) throws -> RunDiff {
        guard let baseRun = try reader.run(base, countingOutcomes: false) else { throw ReportError.unknownRun(base) }
        guard let headRun = try reader.run(head, countingOutcomes: false) else { throw ReportError.unknownRun(head) }
        var comparison = Comparison(base: base, head: head, durationThreshold: durationThreshold, minimumDelta: minimumDelta)
        if baseRun.info.matrixName != headRun.info.matrixName {
            comparison.diff.differentMatrices = DifferentMatrices(baseMatrix: baseRun.info.matrixName,
                                                                  headMatrix: headRun.info.matrixName)
        }
        try reader.forEachJob(run: base, missingFrom: head) { comparison.removed($0) }
        let several = try reader.registries(runs: [base, head]).count > 1
        let stability = try [base, head].contains { try reader.hasAxis(Repetitions.axis, run: $0) }
        var headRepetitions = Stability.Accumulator(severalRegistries: several)
        var commandJobs: [(head: JobRow, base: JobRow)] = []
        try reader.forEachJobPair(base: base, head: head) { row, old in
            comparison.compare(row, base: old)
            if stability { headRepetitions.add(Stability.Repetition(row)) }
            if let old, row.job.registry == CommandTemplate.registry { commandJobs.append((row, old)) }
        }
        var diff = comparison.diff
        if stability {
            var baseRepetitions = Stability.Accumulator(severalRegistries: several)
            try reader.forEachJobRow(run: base) { baseRepetitions.add(Stability.Repetition($0)) }
            (diff.flakeRateRose, diff.flakeRateFell) = flakeRateChanges(
                old: baseRepetitions.finish(always: true), new: headRepetitions.finish(always: true))
        }
        diff.tests = try testChanges(reader: reader, base: base, head: head, commandJobs: commandJobs)
        if several { diff.disagreements = ParityDiff(base: try Parity.read(runID: base, reader: reader),
                                                     head: try Parity.read(runID: head, reader: reader)) }
        return diff
    }

    private enum Verdict { case pass, flaky, failing, other }

    private static func verdict(_ outcome: JobOutcome?) -> Verdict {
        switch outcome {
        case .passed: .pass
        case .flaky: .flaky
        case .failed, .timedOut: .failing
        case .quarantined, .cancelled, .notRun, nil: .other
        }
    }

    /// Compares two runs' job rows. Pure.
    public static func compute(
        base: (id: String, jobs: [JobRow]), head: (id: String, jobs: [JobRow]), durationThreshold: Double,
        minimumDelta: Double = 0.1
    ) -> RunDiff {
        var comparison = Comparison(base: base.id, head: head.id, durationThreshold: durationThreshold,
                                    minimumDelta: minimumDelta)
        var baseByID: [String: JobRow] = [:]
        for row in base.jobs { baseByID[row.job.jobID] = row }
        let headIDs = Set(head.jobs.map(\.job.jobID))
        for row in base.jobs where !headIDs.contains(row.job.jobID) { comparison.removed(row) }
        for row in head.jobs { comparison.compare(row, base: baseByID[row.job.jobID]) }
        var diff = comparison.diff
        (diff.flakeRateRose, diff.flakeRateFell) = flakeRateChanges(base: base.jobs, head: head.jobs)
        return diff
    }

    /// The comparison as the jobs stream by: first the removed ones (`base`'s jobs that `head` lacks), then each job
    /// of `head` with `base`'s job of the same id.
    struct Comparison {
        var diff: RunDiff
        /// Removed jobs by scenario, configuration and registry: an added job with the same names replaces one.
        private var removedByKey: [String: String] = [:]

        init(base: String, head: String, durationThreshold: Double, minimumDelta: Double) {
            diff = RunDiff(base: base, head: head, durationThreshold: durationThreshold, minimumDelta: minimumDelta,
                           newFailures: [], fixed: [], stillFailing: [], newlyFlaky: [], noLongerFlaky: [], otherChanges: [],
                           durationRegressions: [], added: [], removed: [], unchanged: 0)
        }

        private static func key(_ job: PlannedJob) -> String {
            job.scenarioID + "\u{0}" + job.configuration + "\u{0}" + job.registry
        }

        mutating func removed(_ row: JobRow) {
            if diff.differentMatrices != nil {
                diff.differentMatrices?.onlyInBase += 1
                return
            }
            diff.removed.append(RunDiff.entry(base: row, head: nil))
            removedByKey[Self.key(row.job)] = row.job.jobID
        }

        mutating func compare(_ row: JobRow, base old: JobRow?) {
            if old != nil || diff.differentMatrices == nil, let change = RunDiff.auditChange(row, base: old) {
                diff.newAuditFindings.append(change)
            }
            guard let old else {
                if diff.differentMatrices != nil {
                    diff.differentMatrices?.onlyInHead += 1
                    return
                }
                var e = RunDiff.entry(base: nil, head: row)
                e.replaces = removedByKey[Self.key(row.job)]
                diff.added.append(e)
                switch verdict(row.result?.outcome) {
                case .failing: diff.newFailures.append(e)
                case .flaky: diff.newlyFlaky.append(e)
                case .pass, .other: break
                }
                return
            }
            diff.differentMatrices?.shared += 1
            let e = RunDiff.entry(base: old, head: row)
            let was = verdict(old.result?.outcome), now = verdict(row.result?.outcome)
            var changed = true
            switch (was, now) {
            case (.failing, .failing): diff.stillFailing.append(e)
            case (_, .failing): diff.newFailures.append(e)
            case (.failing, .pass), (.failing, .flaky): diff.fixed.append(e)
            case (.pass, .flaky), (.other, .flaky): diff.newlyFlaky.append(e)
            case (.flaky, .pass): diff.noLongerFlaky.append(e)
            case (.pass, .pass), (.flaky, .flaky): changed = false
            case (.other, _), (_, .other):
                if old.result?.outcome == row.result?.outcome { changed = false } else { diff.otherChanges.append(e) }
            }
            var regressed = false
            if [.pass, .flaky].contains(was), [.pass, .flaky].contains(now),
               let b = old.result?.duration, let h = row.result?.duration,
               h > b * (1 + diff.durationThreshold), h - b >= diff.minimumDelta {
                diff.durationRegressions.append(e)
                regressed = true
            }
            if !changed && !regressed { diff.unchanged += 1 }
        }
    }

    private static func entry(base: JobRow?, head: JobRow?) -> Entry {
        let job = (head ?? base)?.job ?? PlannedJob(jobID: "", scenarioID: "", scenarioTitle: "", configuration: "",
                                                   configurationJSON: "{}", registry: "")
        // The failure of head when it has one, else base's (why a fixed or removed job used to fail).
        let source = [head, base].compactMap { $0 }.first { $0.result?.failureStep != nil || $0.result?.failureMessage != nil }
        return Entry(
            jobID: job.jobID, scenarioID: job.scenarioID, scenarioTitle: job.scenarioTitle, configuration: job.configuration,
            registry: job.registry, baseOutcome: base?.result?.outcome, headOutcome: head?.result?.outcome,
            baseDuration: base?.result?.duration, headDuration: head?.result?.duration,
            failureStep: source?.result?.failureStep, failureMessage: source?.result?.failureMessage
        )
    }

    /// The categories in display order with their titles.
    public var sections: [(key: String, title: String, entries: [Entry])] {
        [
            ("newFailures", "New failures", newFailures),
            ("newlyFlaky", "Newly flaky", newlyFlaky),
            ("durationRegressions", "Duration regressions", durationRegressions),
            ("stillFailing", "Still failing", stillFailing),
            ("fixed", "Fixed", fixed),
            ("noLongerFlaky", "No longer flaky", noLongerFlaky),
            ("otherChanges", "Other outcome changes", otherChanges),
            ("added", "Added jobs", added),
            ("removed", "Removed jobs", removed),
        ]
    }

    /// One line of counts: `3 new failures, 1 fixed, …`.
    public var summaryLine: String {
        let parts = [
            "\(newFailures.count) new failure\(newFailures.count == 1 ? "" : "s")",
            "\(newlyFlaky.count) newly flaky",
            "\(durationRegressions.count) duration regression\(durationRegressions.count == 1 ? "" : "s")",
            "\(stillFailing.count) still failing",
            "\(fixed.count) fixed",
            "\(noLongerFlaky.count) no longer flaky",
            "\(otherChanges.count) other change\(otherChanges.count == 1 ? "" : "s")",
            "\(added.count) added",
            "\(removed.count) removed",
            "\(unchanged) unchanged",
        ]
        let stability = flakeRateRose.isEmpty && flakeRateFell.isEmpty ? []
            : ["flake rate rose for \(flakeRateRose.count), fell for \(flakeRateFell.count)"]
        let testParts = tests.isEmpty ? []
            : ["tests: \(tests.newFailures.count) new failure\(tests.newFailures.count == 1 ? "" : "s"), "
               + "\(tests.newlyFlaky.count) newly flaky, \(tests.fixed.count) fixed"]
        return (parts + stability + testParts).joined(separator: ", ")
    }

    /// The diff for a terminal: a summary line, then each non-empty category with one line per job.
    public var text: String {
        var out = differentMatrices.map { $0.warning(base: base, head: head) + "\n" } ?? ""
        out += "diff \(base) -> \(head): \(summaryLine)\n"
        for section in sections where !section.entries.isEmpty {
            out += "\n\(section.title.uppercased()) (\(section.entries.count))\n"
            for e in section.entries { out += "  " + Self.line(e, section: section.key) + "\n" }
        }
        for (title, changes) in [("FLAKE RATE ROSE", flakeRateRose), ("FLAKE RATE FELL", flakeRateFell)] where !changes.isEmpty {
            out += "\n\(title) (\(changes.count))\n"
            for c in changes { out += "  " + c.line + "\n" }
        }
        for (title, changes) in tests.sections {
            out += "\n\(title) (\(changes.count))\n"
            for c in changes { out += "  " + c.line + "\n" }
        }
        out += auditText
        out += disagreements.map(\.text) ?? ""
        out += visualText
        out += hasRegressions ? "\nRegressions found.\n" : "\nNo regressions.\n"
        return out
    }

    static func line(_ e: Entry, section: String) -> String {
        var s = "\(e.jobID)  \(e.scenarioID) [\(e.configuration.isEmpty ? "-" : e.configuration)]"
        if e.registry != "" { s += " @\(e.registry)" }
        return s + "  " + detail(e, section: section)
    }

    /// What changed for one entry: `passed -> failed  (step 3: message)`, `1.00 s -> 2.00 s (+100%)`.
    static func detail(_ e: Entry, section: String) -> String {
        var s: String
        switch section {
        case "durationRegressions":
            s = Format.seconds(e.baseDuration) + " -> " + Format.seconds(e.headDuration)
            if let b = e.baseDuration, let h = e.headDuration, b > 0 { s += " (+" + AxisPivot.percent((h - b) / b) + ")" }
        case "added":
            s = e.headOutcome?.rawValue ?? "no outcome"
            if let r = e.replaces { s += "  (replaces \(r))" }
        case "removed":
            s = "was " + (e.baseOutcome?.rawValue ?? "no outcome")
        default:
            s = (e.baseOutcome?.rawValue ?? "new") + " -> " + (e.headOutcome?.rawValue ?? "none")
        }
        if ["newFailures", "stillFailing"].contains(section), e.failureStep != nil || e.failureMessage != nil {
            s += "  (" + [e.failureStep.map { "step \($0 + 1)" }, e.failureMessage].compactMap { $0 }.joined(separator: ": ") + ")"
        }
        return s
    }

    /// The diff as JSON (sorted keys, pretty-printed), with `hasRegressions` added.
    public func json() -> Data {
        struct Document: Encodable {
            var diff: RunDiff
            func encode(to encoder: any Encoder) throws {
                try diff.encode(to: encoder)
                var c = encoder.container(keyedBy: Key.self)
                try c.encode(diff.hasRegressions, forKey: .hasRegressions)
            }
            enum Key: String, CodingKey { case hasRegressions }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Every member is a string, number, bool, array or nil: encoding cannot fail.
        return (try? encoder.encode(Document(diff: self))) ?? Data("{}".utf8)
    }
}
