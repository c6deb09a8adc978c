import FlowCrypto
import FlowSpec

/// One unit of work: a scenario run under a configuration by a registry.
///
/// Small on purpose (a plan holds a million): the scenario, its file and the registry are shared by the jobs of one
/// scenario, and the configuration is a row of the plan's `ConfigurationTable` (value indices into the matrix's axes),
/// made into a `Configuration` only when asked for.
public struct Job: Sendable, Hashable {
    /// What the jobs of one scenario share.
    final class Source: Sendable {
        let scenario: Scenario
        let scenarioFile: String
        let registry: String
        /// The scenario's canonical JSON (computed once per scenario, not once per job).
        let canonicalScenario: String

        init(scenario: Scenario, scenarioFile: String, registry: String, canonicalScenario: String) {
            self.scenario = scenario
            self.scenarioFile = scenarioFile
            self.registry = registry
            self.canonicalScenario = canonicalScenario
        }
    }

    /// Stable identity: see `JobIdentity`.
    public let id: String
    let source: Source
    /// The table this job's configuration is a row of (shared by the plan's jobs).
    public let configurations: ConfigurationTable
    private let row: Int32

    public var scenario: Scenario { source.scenario }
    /// The scenario's file as loaded (for messages and reports).
    public var scenarioFile: String { source.scenarioFile }
    public var registry: String { source.registry }
    /// The configuration's row in `configurations`.
    public var configurationIndex: Int { Int(row) }
    /// The configuration, made from its row (its keys and values as strings).
    public var configuration: Configuration { configurations[configurationIndex] }

    public init(scenario: Scenario, scenarioFile: String, configuration: Configuration, registry: String) {
        let source = Source(scenario: scenario, scenarioFile: scenarioFile, registry: registry,
                            canonicalScenario: JobIdentity.canonicalJSON(scenario))
        self.init(source: source, configurations: ConfigurationTable([configuration]), index: 0)
    }

    /// Row `index` of `configurations` under `source` (the planner makes many jobs of one source and one table).
    init(source: Source, configurations: ConfigurationTable, index: Int) {
        self.id = JobIdentity.id(canonicalScenario: source.canonicalScenario,
                                 configurationJSON: configurations.canonicalJSON(index), registry: source.registry)
        self.source = source
        self.configurations = configurations
        self.row = Int32(index)
    }

    public static func == (a: Job, b: Job) -> Bool {
        a.id == b.id && a.scenarioFile == b.scenarioFile && a.registry == b.registry && a.scenario == b.scenario
            && a.configuration == b.configuration
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// Job identity: the same scenario content, configuration and registry give the same id on every run and machine.
///
/// `id = hex(SHA-256(bytes))` truncated to the first 16 hex characters (64 bits), where `bytes` is the UTF-8 of
/// `"flowmatrix-job-v1\n" + canonical scenario JSON + "\n" + canonical configuration JSON + "\n" + registry`.
/// Canonical JSON has no whitespace, object keys sorted by their UTF-8 bytes, absent optionals left out, and
/// strings escaped as `\"`, `\\` and `\u00XX` for control characters (everything else raw UTF-8). The scenario
/// is encoded from its parsed model (`actor`, `id`, `preconditions`, `steps` [`arg`, `target`, `verb`], `tags`,
/// `title`), so the file's whitespace and member order do not matter; list order does.
public enum JobIdentity {
    /// Hex characters kept from the digest.
    public static let length = 16

    public static func id(scenario: Scenario, configuration: Configuration, registry: String) -> String {
        id(canonicalScenario: canonicalJSON(scenario), configuration: configuration, registry: registry)
    }

    static func id(canonicalScenario: String, configuration: Configuration, registry: String) -> String {
        id(canonicalScenario: canonicalScenario, configurationJSON: canonicalJSON(configuration), registry: registry)
    }

    /// The id from a scenario's ``canonicalJSON(_:)-swift.type.method`` and a configuration's canonical JSON (as the journal
    /// keeps it): whether a journaled job is still the job a scenario gives.
    public static func id(canonicalScenario: String, configurationJSON: String, registry: String) -> String {
        let text = "flowmatrix-job-v1\n" + canonicalScenario + "\n" + configurationJSON + "\n" + registry
        return String(SHA256.hexHash(Array(text.utf8)).prefix(length))
    }

    /// The canonical JSON of a scenario (see the type's documentation).
    public static func canonicalJSON(_ s: Scenario) -> String {
        var members: [(String, String)] = []
        if let actor = s.actor { members.append(("actor", jsonString(actor))) }
        members.append(("id", jsonString(s.id)))
        members.append(("preconditions", "[" + s.preconditions.map(jsonString).joined(separator: ",") + "]"))
        let steps = s.steps.map { step -> String in
            var m: [(String, String)] = []
            if let arg = step.arg { m.append(("arg", jsonString(arg))) }
            m.append(("target", jsonString(step.target)))
            m.append(("verb", jsonString(step.verb.rawValue)))
            return jsonObject(m)
        }
        members.append(("steps", "[" + steps.joined(separator: ",") + "]"))
        members.append(("tags", "[" + s.tags.map(jsonString).joined(separator: ",") + "]"))
        members.append(("title", jsonString(s.title)))
        return jsonObject(members)
    }

    /// The canonical JSON of a configuration: `{"axis":"value",…}` in sorted key order.
    public static func canonicalJSON(_ c: Configuration) -> String {
        jsonObject(c.pairs.map { ($0.key, jsonString($0.value)) })
    }
}

/// `{"k":v,…}` with members sorted by key bytes; `v` already encoded.
func jsonObject(_ members: [(String, String)]) -> String {
    "{" + members.sorted { Configuration.keyOrder($0.0, $1.0) }.map { jsonString($0.0) + ":" + $0.1 }
        .joined(separator: ",") + "}"
}

/// A JSON string literal: `"` and `\` escaped, control characters as `\u00XX`, the rest raw.
func jsonString(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
