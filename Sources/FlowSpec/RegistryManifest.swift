/// What a registry understands, published so scenarios and matrices can be checked before anything runs: the
/// `verb:target` pairs it wires, the `assert` clauses it reads, and the matrix axes whose values change what it does.
///
/// One value serves every check: `flowmatrix validate` (and `plan`, `run`) report a step the registry does not wire
/// (FS021) and an unknown `assert` clause (FS022), and a run says once which axes its registry ignores. Workers
/// publish their manifests with `<worker> --list-registries --json` (a `RegistryManifest.Document`); the built-in
/// registries carry theirs (docs/SCENARIOS.md, "Registry manifests").
///
/// A member left out (nil) is not published and not checked: a registry with only a `name` is never reported.
///
/// Target patterns: `*` matches any target; otherwise each `#` matches a run of ASCII letters, digits and `-`
/// (`catalog.item.#.add` matches `catalog.item.3.add`), and every other character matches itself.
public struct RegistryManifest: Sendable, Hashable, Codable {
    /// The registry name matrices select (`"registry": "catalog"`).
    public var name: String
    /// The steps it wires, per verb (`verb` `*`: every verb). Nil: not published (steps are not checked).
    public var steps: [StepPatterns]?
    /// The `assert` clauses it reads, per target; the first group whose targets match an assert step's target
    /// applies. Nil: not published (clauses are not checked). A clause ending in `=` is keyed (`text=` covers
    /// `text=Hello`); others are bare words (`absent`). Timeouts (`5`, `timeout=5`) are always understood.
    public var assertClauses: [ClauseGroup]?
    /// The axes whose values change what it runs: typed axes it applies, custom axes it reads; `*` for every axis.
    /// Nil: not published (nothing is said about axes).
    public var axes: [String]?

    /// The target patterns one verb wires.
    public struct StepPatterns: Sendable, Hashable, Codable {
        /// A verb of the FlowSpec vocabulary, or `*` for every verb.
        public var verb: String
        public var targets: [String]

        public init(verb: String, targets: [String]) {
            self.verb = verb
            self.targets = targets
        }
    }

    /// The assert clauses understood on some targets.
    public struct ClauseGroup: Sendable, Hashable, Codable {
        public var targets: [String]
        public var clauses: [String]

        public init(targets: [String], clauses: [String]) {
            self.targets = targets
            self.clauses = clauses
        }
    }

    public init(name: String, steps: [StepPatterns]? = nil, assertClauses: [ClauseGroup]? = nil, axes: [String]? = nil) {
        self.name = name
        self.steps = steps
        self.assertClauses = assertClauses
        self.axes = axes
    }

    /// Every `verb:target` pair, on every target: registries that accept any selector (the `web` registry).
    public static let everyStep = [StepPatterns(verb: "*", targets: ["*"])]

    /// The axis wildcard: the registry reads every axis (the `command` registry exposes each one to the command).
    public static let everyAxis = "*"

    /// What `<worker> --list-registries --json` prints: the format version and one manifest per hosted registry.
    public struct Document: Sendable, Hashable, Codable {
        /// The version of this format this build writes (and the newest it reads).
        public static let currentVersion = 1

        /// The format version; a reader refuses a document newer than it knows.
        public var manifestVersion: Int
        /// One manifest per hosted registry, sorted by name.
        public var registries: [RegistryManifest]

        public init(registries: [RegistryManifest], manifestVersion: Int = Document.currentVersion) {
            self.manifestVersion = manifestVersion
            self.registries = registries.sorted { $0.name < $1.name }
        }
    }
}

extension RegistryManifest {
    /// True when `target` matches `pattern` (see the type's documentation for the pattern syntax).
    public static func matches(_ target: String, pattern: String) -> Bool {
        if pattern == "*" { return !target.isEmpty }
        guard pattern.contains("#") else { return pattern == target }
        return matches(Substring(target), Substring(pattern))
    }

    /// Pattern matching with holes: each `#` takes one or more letters, digits or `-` (backtracking over its length).
    private static func matches(_ target: Substring, _ pattern: Substring) -> Bool {
        guard let hole = pattern.firstIndex(of: "#") else { return target == pattern }
        let prefix = pattern[..<hole], rest = pattern[pattern.index(after: hole)...]
        guard target.hasPrefix(prefix) else { return false }
        let tail = target.dropFirst(prefix.count)
        var end = tail.startIndex
        while end < tail.endIndex, tail[end].isHoleCharacter {
            end = tail.index(after: end)
            if matches(tail[end...], rest) { return true }
        }
        return false
    }

    /// True when some pattern of `patterns` matches `target`.
    public static func matches(_ target: String, anyOf patterns: [String]) -> Bool {
        patterns.contains { matches(target, pattern: $0) }
    }

    /// The target patterns wired for `verb`, or nil when the steps are not published.
    public func targets(of verb: Verb) -> [String]? {
        steps.map { groups in groups.filter { $0.verb == verb.rawValue || $0.verb == "*" }.flatMap(\.targets) }
    }

    /// True when the registry wires `step` (always true when its steps are not published).
    public func wires(_ step: Step) -> Bool {
        guard let patterns = targets(of: step.verb) else { return true }
        return Self.matches(step.target, anyOf: patterns)
    }

    /// The clauses understood on `target`, or nil when they are not published (or no group names the target).
    public func clauses(on target: String) -> [String]? {
        assertClauses?.first { Self.matches(target, anyOf: $0.targets) }?.clauses
    }

    /// True when `clause` (an expectation of an assert step, timeouts removed) is in `vocabulary`.
    public static func understands(_ clause: String, vocabulary: [String]) -> Bool {
        if let eq = clause.firstIndex(of: "=") { return vocabulary.contains(String(clause[...eq])) }
        return vocabulary.contains(clause)
    }

    /// True when the registry's values change with `axis` (always true when its axes are not published).
    public func honours(axis: String) -> Bool {
        guard let axes else { return true }
        return axes.contains(axis) || axes.contains(Self.everyAxis)
    }
}

extension Character {
    /// What a `#` in a target pattern matches: an ASCII letter, digit or `-`.
    fileprivate var isHoleCharacter: Bool { isASCII && (isNumber || isLetter || self == "-") }
}
