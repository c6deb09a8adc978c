import Foundation
import Journal

/// Where the registries (renderers) of a run disagree: per scenario × configuration, each registry's verdict side by
/// side. A reader of the run's job records, like every report part: a configuration never holds the registry
/// (MatrixPlan plans it as a dimension), so the jobs of one scenario × configuration on different registries share
/// their scenario id and configuration text.
///
/// A pair is compared when at least two registries reached a verdict on it. It *disagrees* when some registry failed
/// (failed or timed out) and another passed (passed or flaky): "fails only in web" reads as a renderer defect. It
/// *fails in all* when every compared registry failed: a model defect, shared by every renderer.
public struct Parity: Sendable, Hashable, Codable {
    /// One registry's verdict on a scenario × configuration.
    public struct Verdict: Sendable, Hashable, Codable {
        public var registry: String
        public var jobID: String
        /// A ``CellStatus`` raw value (`passed`, `failed`, …).
        public var status: String
        /// The failing step (0-based), when the job failed at a step.
        public var failureStep: Int?
        public var failureMessage: String?
    }

    /// How the registries' verdicts on one scenario × configuration relate.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Some registries failed and others passed.
        case failsOnlyIn = "fails-only-in"
        /// Every registry with a verdict failed.
        case failsInAll = "fails-in-all"
    }

    /// A scenario × configuration whose registries do not all pass.
    public struct Row: Sendable, Hashable, Codable {
        public var scenarioID: String
        /// The canonical `k=v,k=v` text (the registry is not part of it).
        public var configuration: String
        public var kind: Kind
        /// The registries that failed, sorted.
        public var failing: [String]
        /// Where the renderers part: the first failing step among the failing registries (0-based), when known.
        public var partStep: Int?
        /// One verdict per registry that ran it, sorted by registry.
        public var verdicts: [Verdict]

        /// The key that identifies the disagreement across runs (`diff`): scenario, configuration, failing registries.
        public var key: String { scenarioID + "\u{0}" + configuration + "\u{0}" + failing.joined(separator: ",") }
    }

    /// The run's registries, sorted.
    public var registries: [String]
    /// Scenario × configuration pairs with verdicts from at least two registries.
    public var compared: Int
    /// Compared pairs on which every registry passed.
    public var agreeing: Int
    /// Compared pairs that failed on every registry.
    public var failsInAll: Int
    /// Registry → compared pairs that failed only there (and passed on another registry).
    public var failsOnlyIn: [String: Int]
    /// The disagreements first (by scenario, then configuration), then the pairs that fail in all; at most
    /// ``maximumRows`` (``truncated`` says when more were left out).
    public var rows: [Row]
    public var truncated: Bool
    /// One sentence: how many pairs disagree and where, and how many fail everywhere.
    public var headline: String

    /// The most rows kept (the counts cover every pair).
    public static let maximumRows = 5_000

    /// The disagreements among ``rows``.
    public var disagreements: [Row] { rows.filter { $0.kind == .failsOnlyIn } }

    /// Reads the parity of run `runID`: nil when its jobs ran on fewer than two registries.
    public static func read(runID: String, reader: JournalReader) throws -> Parity? {
        var builder = Builder()
        try reader.forEachJobRow(run: runID) { builder.add($0) }
        return builder.finish()
    }

    /// The parity of rows already read (tests, and the in-memory report).
    public init?(rows jobRows: [JobRow]) {
        var builder = Builder()
        for row in jobRows { builder.add(row) }
        guard let parity = builder.finish() else { return nil }
        self = parity
    }

    init(registries: [String], compared: Int, agreeing: Int, failsInAll: Int, failsOnlyIn: [String: Int], rows: [Row],
         truncated: Bool) {
        self.registries = registries
        self.compared = compared
        self.agreeing = agreeing
        self.failsInAll = failsInAll
        self.failsOnlyIn = failsOnlyIn
        self.rows = rows
        self.truncated = truncated
        headline = Self.headline(compared: compared, failsInAll: failsInAll, failsOnlyIn: failsOnlyIn)
    }

    static func headline(compared: Int, failsInAll: Int, failsOnlyIn: [String: Int]) -> String {
        let disagreeing = failsOnlyIn.values.reduce(0, +)
        var parts: [String] = []
        for (registry, count) in failsOnlyIn.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) where count > 0 {
            parts.append("\(count) fail\(count == 1 ? "s" : "") only in \(registry)")
        }
        var text = disagreeing == 0
            ? "The registries agree on all \(compared) scenario × configuration pair\(compared == 1 ? "" : "s") compared"
            : "The registries disagree on \(disagreeing) of \(compared) scenario × configuration pairs: "
                + parts.joined(separator: ", ") + " (a renderer defect)"
        if failsInAll > 0 {
            text += "; \(failsInAll) fail\(failsInAll == 1 ? "s" : "") in every registry (a model defect)"
        }
        return text + "."
    }

    /// Collects verdicts by scenario × configuration, in plan order of first appearance.
    struct Builder {
        var order: [String] = []
        var pairs: [String: (scenario: String, configuration: String, verdicts: [Verdict])] = [:]
        var registries = Set<String>()

        mutating func add(_ row: JobRow) {
            let job = row.job
            registries.insert(job.registry)
            let status = CellStatus(row)
            guard status.isVerdict else { return }
            let key = job.scenarioID + "\u{0}" + job.configuration
            let verdict = Verdict(registry: job.registry, jobID: job.jobID, status: status.rawValue,
                                  failureStep: status.isFailure ? row.result?.failureStep : nil,
                                  failureMessage: status.isFailure ? row.result?.failureMessage : nil)
            if pairs[key] == nil {
                order.append(key)
                pairs[key] = (job.scenarioID, job.configuration, [])
            }
            pairs[key]?.verdicts.append(verdict)
        }

        func finish() -> Parity? {
            guard registries.count > 1 else { return nil }
            var compared = 0, agreeing = 0, failsInAll = 0
            var only: [String: Int] = Dictionary(uniqueKeysWithValues: registries.map { ($0, 0) })
            var disagreeing: [Row] = [], everywhere: [Row] = []
            for key in order {
                guard let pair = pairs[key], Set(pair.verdicts.map(\.registry)).count > 1 else { continue }
                compared += 1
                let verdicts = pair.verdicts.sorted { $0.registry < $1.registry }
                let failing = verdicts.filter { CellStatus(rawValue: $0.status)?.isFailure == true }
                guard !failing.isEmpty else { agreeing += 1; continue }
                let names = Array(Set(failing.map(\.registry))).sorted()
                let kind: Kind = failing.count == verdicts.count ? .failsInAll : .failsOnlyIn
                let row = Row(scenarioID: pair.scenario, configuration: pair.configuration, kind: kind, failing: names,
                              partStep: failing.compactMap(\.failureStep).min(), verdicts: verdicts)
                if kind == .failsInAll {
                    failsInAll += 1
                    everywhere.append(row)
                } else {
                    for name in names { only[name, default: 0] += 1 }
                    disagreeing.append(row)
                }
            }
            let rows = disagreeing + everywhere
            return Parity(registries: registries.sorted(), compared: compared, agreeing: agreeing, failsInAll: failsInAll,
                          failsOnlyIn: only, rows: Array(rows.prefix(Parity.maximumRows)),
                          truncated: rows.count > Parity.maximumRows)
        }
    }
}

/// What changed in the registries' disagreements between two runs (`flowmatrix diff`).
public struct ParityDiff: Sendable, Hashable, Codable {
    /// Disagreements of the head run that the base run did not have (same scenario, configuration and failing
    /// registries).
    public var newDisagreements: [Parity.Row]
    /// Disagreements of the base run that the head run no longer has.
    public var fixedDisagreements: [Parity.Row]

    /// Compares `head` with `base` (either may be nil: a run on one registry has no disagreements).
    public init(base: Parity?, head: Parity?) {
        let baseRows = base?.disagreements ?? [], headRows = head?.disagreements ?? []
        let baseKeys = Set(baseRows.map(\.key)), headKeys = Set(headRows.map(\.key))
        newDisagreements = headRows.filter { !baseKeys.contains($0.key) }
        fixedDisagreements = baseRows.filter { !headKeys.contains($0.key) }
    }

    public var isEmpty: Bool { newDisagreements.isEmpty && fixedDisagreements.isEmpty }

    /// `flowmatrix diff`'s sections: `NEW DISAGREEMENTS (n)` and `FIXED DISAGREEMENTS (n)`, a line per pair.
    public var text: String {
        var out = ""
        for (title, rows) in [("NEW DISAGREEMENTS", newDisagreements), ("FIXED DISAGREEMENTS", fixedDisagreements)]
        where !rows.isEmpty {
            out += "\n\(title) (\(rows.count))\n"
            for row in rows {
                let step = row.partStep.map { " at step \($0 + 1)" } ?? ""
                out += "  \(row.scenarioID) [\(row.configuration)]: fails only in \(row.failing.joined(separator: ", "))\(step)\n"
            }
        }
        return out
    }
}
