import FlowVocabulary
import Foundation
import MatrixPlan
import Wire

/// The seed an attempt runs with (docs/RUN-CONDITIONS.md, "Seeds"): the job's seed for its first try, and for the
/// k-th retry a value derived from the job's seed and k, where k counts the earlier attempts that failed or timed
/// out (`Scheduler.retryIndex(ofJob:)`; after a resume, an attempt whose failing step reached the journal counts too).
/// Attempts lost with a worker, taken back, or cut short by a coordinator crash without a failed step do not count, so
/// a rerun or a resumed run gives every attempt the seed it had, while a retry sees different randomness (a `flaky`
/// network fails other requests) and can pass.
public enum AttemptSeed {
    public static func derive(job seed: UInt64, retryIndex: Int) -> UInt64 {
        guard retryIndex > 0 else { return seed }
        var generator = SplitMix64(seed: seed ^ (UInt64(retryIndex) &* 0x9E37_79B9_7F4A_7C15))
        return generator.next()
    }
}

/// One job of a run, as the coordinator dispatches it.
public struct RunJob: Sendable, Hashable {
    public var id: String
    public var scenarioID: String
    public var scenarioTitle: String
    /// SHA-256 of the scenario body sent to workers (sent once per connection).
    public var scenarioHash: Bytes32
    /// `verb:target` of each step, for the journal.
    public var stepKeys: [String]
    public var registry: String
    public var requiredLabels: [String: String]
    /// The table the job's configuration is a row of (the plan's, shared by every job of the run).
    public var configurations: ConfigurationTable
    /// The configuration's row in `configurations` (value indices into the matrix's axes).
    public var configurationIndex: Int {
        get { Int(configurationRow) }
        set { configurationRow = Int32(newValue) }
    }
    private var configurationRow: Int32
    public var seed: UInt64
    public var expectedDuration: Duration

    /// The configuration as sent in ASSIGN: its pairs in canonical key order, made when the job is assigned.
    public var configuration: [ConfigurationPair] {
        var pairs: [ConfigurationPair] = []
        pairs.reserveCapacity(configurations.width)
        configurations.forEachPair(configurationIndex) { pairs.append(ConfigurationPair($0, $1)) }
        return pairs
    }

    public init(
        id: String, scenarioID: String, scenarioTitle: String, scenarioHash: Bytes32, stepKeys: [String], registry: String,
        requiredLabels: [String: String], configurations: ConfigurationTable, configurationIndex: Int, seed: UInt64,
        expectedDuration: Duration
    ) {
        self.id = id
        self.scenarioID = scenarioID
        self.scenarioTitle = scenarioTitle
        self.scenarioHash = scenarioHash
        self.stepKeys = stepKeys
        self.registry = registry
        self.requiredLabels = requiredLabels
        self.configurations = configurations
        self.configurationRow = Int32(configurationIndex)
        self.seed = seed
        self.expectedDuration = expectedDuration
    }

    /// A job with a configuration of its own (tests, benches): a one-row table of these pairs (a key given twice
    /// keeps its last value).
    public init(
        id: String, scenarioID: String, scenarioTitle: String, scenarioHash: Bytes32, stepKeys: [String], registry: String,
        requiredLabels: [String: String], configuration: [ConfigurationPair], seed: UInt64, expectedDuration: Duration
    ) {
        let values = Dictionary(configuration.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        self.init(id: id, scenarioID: scenarioID, scenarioTitle: scenarioTitle, scenarioHash: scenarioHash,
                  stepKeys: stepKeys, registry: registry, requiredLabels: requiredLabels,
                  configurations: ConfigurationTable([Configuration(values)]), configurationIndex: 0, seed: seed,
                  expectedDuration: expectedDuration)
    }
}

/// Everything the coordinator engine needs to drive one run.
public struct RunDefinition: Sendable {
    public var runID: String
    public var jobs: [RunJob]
    /// Scenario bodies by hash (canonical JSON of the scenario).
    public var scenarioBodies: [Bytes32: [UInt8]]
    public var scheduler: SchedulerSettings
    /// Outcomes of jobs already final (resume), by job index.
    public var finished: [Int: JobOutcome]
    /// The highest attempt number already journaled per job index (resume): new attempts continue after it.
    public var attemptOffsets: [Int: Int]
    /// Failed or timed-out attempts already journaled per job index of a job not yet final (resume): they count
    /// against the retry budget and make a later pass `flaky`.
    public var priorFailures: [Int: Int] = [:]
    /// Which attempts send their artifacts (the matrix's keep policy).
    public var keep: KeepPolicy
    /// How long an attempt's start is held back from the journal: an attempt that ends sooner is journaled as one
    /// record (see `AttemptJournal`). Zero journals every start as it happens.
    public var journalStartDelay: Duration = .milliseconds(500)

    public init(
        runID: String, jobs: [RunJob], scenarioBodies: [Bytes32: [UInt8]], scheduler: SchedulerSettings,
        finished: [Int: JobOutcome] = [:], attemptOffsets: [Int: Int] = [:], keep: KeepPolicy = .failures
    ) {
        self.keep = keep
        self.runID = runID
        self.jobs = jobs
        self.scenarioBodies = scenarioBodies
        self.scheduler = scheduler
        self.finished = finished
        self.attemptOffsets = attemptOffsets
    }
}

/// Counts for the progress line and the summary.
public struct RunProgress: Sendable, Hashable {
    public var total: Int
    public var done: Int
    public var outcomes: [JobOutcome: Int]
    public var inFlight: Int
    public var workers: Int
    public var attempts: Int
    public var retries: Int
    public var supersededResults: Int
    public var artifactsStored: Int = 0
    public var artifactResends: Int = 0

    public init(total: Int, done: Int, outcomes: [JobOutcome: Int], inFlight: Int, workers: Int, attempts: Int, retries: Int,
                supersededResults: Int) {
        self.total = total
        self.done = done
        self.outcomes = outcomes
        self.inFlight = inFlight
        self.workers = workers
        self.attempts = attempts
        self.retries = retries
        self.supersededResults = supersededResults
    }

    public func count(_ outcome: JobOutcome) -> Int { outcomes[outcome] ?? 0 }
}
