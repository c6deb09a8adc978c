import FlowSpec

/// What a registry factory knows about the job it builds a registry for.
public struct JobContext: Sendable, Hashable {
    /// The job's stable id (same every night for the same scenario, configuration and registry).
    public var jobID: String
    /// 1 for the first attempt, 2 for the first retry, …
    public var attempt: Int
    /// The configuration, axis → value (e.g. `locale` → `ar`, `direction` → `rtl`).
    public var configuration: [String: String]
    /// The configuration in canonical order, as `key=value` pairs.
    public var orderedConfiguration: [(key: String, value: String)] {
        configuration.keys.sorted().map { ($0, configuration[$0] ?? "") }
    }
    /// The job's seed: a rerun with the same seed reproduces the same simulated network and timing.
    public var seed: UInt64
    /// The job's time limit.
    public var timeout: Duration
    /// The scenario being run.
    public var scenario: Scenario

    public init(jobID: String, attempt: Int, configuration: [String: String], seed: UInt64, timeout: Duration, scenario: Scenario) {
        self.jobID = jobID
        self.attempt = attempt
        self.configuration = configuration
        self.seed = seed
        self.timeout = timeout
        self.scenario = scenario
    }

    public static func == (a: JobContext, b: JobContext) -> Bool {
        a.jobID == b.jobID && a.attempt == b.attempt && a.configuration == b.configuration && a.seed == b.seed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(jobID)
        hasher.combine(attempt)
    }
}

/// Builds a fresh registry for each job: a worker advertises the names of its factories, and the coordinator only
/// assigns it jobs whose matrix names one of them.
public struct RegistryFactory: Sendable {
    /// The registry name matrices refer to (`"registry": "catalog"`).
    public var name: String
    /// Builds the registry for one job; throwing fails the attempt with the error's description.
    public var make: @Sendable (JobContext) async throws -> any AsyncStepRegistry
    /// What the registry understands (its `verb:target` pairs, assert clauses and axes), published by
    /// `--list-registries --json` so `flowmatrix validate` checks scenarios against it. Without one (the default)
    /// only the name is published, and nothing is checked. Its `name` is always this factory's name.
    public var manifest: RegistryManifest {
        get {
            var manifest = published ?? RegistryManifest(name: name)
            manifest.name = name
            return manifest
        }
        set { published = newValue }
    }
    private var published: RegistryManifest?

    public init(name: String, manifest: RegistryManifest? = nil,
                make: @escaping @Sendable (JobContext) async throws -> any AsyncStepRegistry) {
        self.name = name
        self.make = make
        self.published = manifest
    }
}
