import FlowSpec
import FlowVocabulary
import Foundation

/// How the configurations are reduced after include/exclude/constraints.
public enum ReductionStrategy: Sendable, Hashable, CustomStringConvertible {
    /// Every valid combination (cartesian product).
    case full
    /// A covering array of strength `t` (2 = pairwise): every valid t-tuple of axis values appears.
    case tWise(Int)

    /// The strength, or nil for `full`.
    public var strength: Int? {
        if case .tWise(let t) = self { return t }
        return nil
    }

    public var description: String {
        switch self {
        case .full: "full"
        case .tWise(2): "pairwise"
        case .tWise(let t): "\(t)-wise"
        }
    }
}

/// One axis: its name, its type when it is built in, and its canonical values in file order.
public struct Axis: Sendable, Hashable {
    public var name: String
    /// The built-in type, or nil for a custom axis with free string values.
    public var kind: BuiltInAxis?
    public var values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.kind = BuiltInAxis(rawValue: name)
        self.values = values
    }
}

/// A comparison of one key's value, used by constraints.
public struct Condition: Sendable, Hashable, CustomStringConvertible {
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equals, notEquals, `in`, notIn
    }

    public var axis: String
    public var op: Operator
    /// The canonical values compared with (one for equals / notEquals).
    public var values: [String]

    public init(axis: String, op: Operator, values: [String]) {
        self.axis = axis
        self.op = op
        self.values = values
    }

    /// True when the condition holds for `value` (nil: the configuration lacks the key; then only
    /// `notEquals` and `notIn` hold).
    public func holds(for value: String?) -> Bool {
        guard let value else { return op == .notEquals || op == .notIn }
        switch op {
        case .equals, .in: return values.contains(value)
        case .notEquals, .notIn: return !values.contains(value)
        }
    }

    public var description: String {
        switch op {
        case .equals: "\(axis)=\(values.first ?? "")"
        case .notEquals: "\(axis)!=\(values.first ?? "")"
        case .in: "\(axis) in [\(values.joined(separator: ", "))]"
        case .notIn: "\(axis) not in [\(values.joined(separator: ", "))]"
        }
    }
}

/// A PICT-style constraint: when every `if` condition holds, every `then` condition must hold.
public struct Constraint: Sendable, Hashable, CustomStringConvertible {
    /// 1-based number in file order, used in messages ("constraint #1").
    public var number: Int
    public var conditions: [Condition]
    public var consequences: [Condition]

    public init(number: Int, conditions: [Condition], consequences: [Condition]) {
        self.number = number
        self.conditions = conditions
        self.consequences = consequences
    }

    /// True when `configuration` satisfies the constraint.
    public func isSatisfied(by configuration: [String: String]) -> Bool {
        guard conditions.allSatisfy({ $0.holds(for: configuration[$0.axis]) }) else { return true }
        return consequences.allSatisfy { $0.holds(for: configuration[$0.axis]) }
    }

    public var description: String {
        "if \(conditions.map(\.description).joined(separator: " and ")) then \(consequences.map(\.description).joined(separator: " and "))"
    }
}

/// A parsed and validated matrix file.
public struct MatrixFile: Sendable, Hashable {
    /// The file as the user named it (for messages).
    public var file: String
    public var name: String
    public var description: String?
    /// The corpus entries as written (relative to the matrix file).
    public var corpus: [String]
    /// The corpus folders or files, resolved against the matrix file's folder.
    public var corpusURLs: [URL]
    /// A scenario is selected when it has any of these tags (every scenario when empty)…
    public var includeTags: [String]
    /// …and none of these.
    public var excludeTags: [String]
    /// The registries (worker kinds, renderers) that run the jobs, in file order: `"registry": "catalog"` or
    /// `"registry": ["catalog", "web"]`. Every selected scenario runs under every configuration on each registry that
    /// its `registry` excludes and constraints keep (`RegistryRules.swift`).
    public var registries: [String]
    /// The first registry: the only one of a single-registry matrix.
    public var registry: String {
        get { registries.first ?? "" }
        set { registries = [newValue] }
    }
    /// Labels a worker must advertise (equal values) to receive the jobs.
    public var requiredLabels: [String: String]
    /// Attempts after the first failure (0…10; default 0).
    public var retries: Int
    /// Per-job timeout (default 300 s).
    public var jobTimeout: Duration
    /// Stop scheduling new jobs after the first failure (default false).
    public var failFast: Bool
    /// Which artifacts to keep (default `failures`).
    public var keep: KeepPolicy
    /// Seed of the reduction and of per-job conditioners (default 0).
    public var seed: UInt64
    /// Stability mode: every job runs this many times, each with its own seed (`policy.repeat`, `run --repeat`;
    /// 1…1000, default 1). See `Repetitions`.
    public var repetitions: Int = 1
    /// Whether every step is followed by an accessibility audit (`policy.audit`; default `none`). See `AuditPolicy`.
    public var audit: AuditPolicy = .none
    /// How step pictures are compared with their baselines (`policy.visual`); nil: defaults, changes only reported.
    public var visual: VisualPolicy?
    /// Whether web jobs are screencast (`policy.recording`; default `off`). See `RecordingPolicy`.
    public var recording: RecordingPolicy = .off
    /// The site the `web` registry tests (`web`: `root`, `pages`); nil: the workers' environment says.
    public var webSite: WebSite?
    /// The axes in file order.
    public var axes: [Axis]
    /// Include entries in file order (GitHub Actions semantics), values canonical.
    public var include: [[String: String]]
    /// Exclude entries (partial matches), values canonical.
    public var exclude: [[String: String]]
    public var constraints: [Constraint]
    public var reduction: ReductionStrategy
    /// Rows that must appear in the reduced set (e.g. last night's failures); may be partial.
    public var seedRows: [[String: String]]

    public init(
        file: String = "matrix.json", name: String, description: String? = nil, corpus: [String] = [],
        corpusURLs: [URL] = [], includeTags: [String] = [], excludeTags: [String] = [], registry: String,
        requiredLabels: [String: String] = [:], retries: Int = 0, jobTimeout: Duration = .seconds(300),
        failFast: Bool = false, keep: KeepPolicy = .failures, seed: UInt64 = 0, axes: [Axis],
        include: [[String: String]] = [], exclude: [[String: String]] = [], constraints: [Constraint] = [],
        reduction: ReductionStrategy = .full, seedRows: [[String: String]] = []
    ) {
        self.file = file
        self.name = name
        self.description = description
        self.corpus = corpus
        self.corpusURLs = corpusURLs
        self.includeTags = includeTags
        self.excludeTags = excludeTags
        self.registries = [registry]
        self.requiredLabels = requiredLabels
        self.retries = retries
        self.jobTimeout = jobTimeout
        self.failFast = failFast
        self.keep = keep
        self.seed = seed
        self.axes = axes
        self.include = include
        self.exclude = exclude
        self.constraints = constraints
        self.reduction = reduction
        self.seedRows = seedRows
    }

    /// True when the scenario passes the tag filter.
    public func selects(_ scenario: Scenario) -> Bool {
        if !includeTags.isEmpty && !scenario.tags.contains(where: includeTags.contains) { return false }
        return !scenario.tags.contains(where: excludeTags.contains)
    }

    /// Reads, parses and validates a matrix file, including that its corpus exists. The matrix is nil when a
    /// finding prevents planning; findings are every matrix finding, in file order.
    public static func load(from url: URL) -> (MatrixFile?, [ValidationFinding]) {
        let display = url.relativePathForDisplay
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: url))
        } catch {
            return (nil, [ValidationFinding(file: display, code: MatrixRule.unreadable.code, path: "$", position: nil,
                                            message: "cannot read the matrix file: \(FileErrorText.reason(error))")])
        }
        var (matrix, findings) = parse(bytes, file: display, directory: url.deletingLastPathComponent())
        if let m = matrix {
            for (i, corpusURL) in m.corpusURLs.enumerated() where !FileManager.default.fileExists(atPath: corpusURL.path) {
                findings.append(ValidationFinding(
                    file: display, code: MatrixRule.missingCorpus.code, path: "$.corpus[\(i)]",
                    position: m.corpusPositions.indices.contains(i) ? m.corpusPositions[i] : nil,
                    message: "corpus '\(m.corpus[i])' does not exist (resolved to \(corpusURL.path)); paths are relative to the matrix file"))
            }
        }
        if let site = matrix?.webSite { findings += site.missingFolders(file: display) }
        if findings.contains(where: { $0.code == MatrixRule.missingCorpus.code || $0.code == MatrixRule.badWebSite.code }) {
            matrix = nil
        }
        return (matrix, findings.sortedForDisplay())
    }

    /// Parses and validates matrix JSON (no file system access).
    /// - Parameters:
    ///   - directory: the folder corpus paths are relative to.
    public static func parse(_ bytes: [UInt8], file: String, directory: URL? = nil) -> (MatrixFile?, [ValidationFinding]) {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            return (nil, [ValidationFinding(
                file: file, code: MatrixRule.malformedJSON.code, path: "$", position: error.position,
                message: "malformed JSON at line \(error.position.line), column \(error.position.column): \(error.message)")])
        }
        var parser = MatrixParser(file: file, directory: directory)
        let matrix = parser.parse(root)
        return (matrix, parser.findings.sortedForDisplay())
    }

    /// True when `root` looks like a matrix file: a JSON object with an `axes` member, or one without `steps` (so not
    /// a scenario) with a member only a matrix has (`corpus`, `include`, `policy`, …) or a misspelling of `axes`
    /// or `corpus` (`axis`, `corpsu`): its findings are then matrix findings (MX033), not scenario ones.
    public static func looksLikeMatrix(_ root: JSONNode) -> Bool {
        if root["axes"] != nil { return true }
        guard let members = root.members, root["steps"] == nil else { return false }
        let matrixOnly: Set<String> = ["corpus", "include", "exclude", "constraints", "reduction", "command", "customAxes",
                                       "policy", "registry", "labels"]
        return members.contains { member in
            matrixOnly.contains(member.key) || Spelling.suggestion(for: member.key, among: ["axes", "corpus"]) != nil
        }
    }

    /// The command fanned out beside (or instead of) the corpus; nil: scenario jobs only (docs/COMMAND-JOBS.md).
    public var command: CommandTemplate?
    /// Where `command` stands in the file (for findings); nil for matrices built in code.
    public var commandPosition: SourcePosition?

    /// What is worth a warning but stops nothing (MX030).
    public var warnings: [ValidationFinding] {
        command?.rawPlaceholderWarnings(file: file, position: commandPosition) ?? []
    }

    /// Positions of the corpus entries (for findings); empty for matrices built in code.
    public var corpusPositions: [SourcePosition] = []
    /// Where `axes` and `reduction` stand in the file (for plan-limit findings); nil for matrices built in code.
    public var axesPosition: SourcePosition?
    /// Where `registry` stands in the file (for MX043); nil for matrices built in code.
    public var registryPosition: SourcePosition?
    public var reductionPosition: SourcePosition?
}
