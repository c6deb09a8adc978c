import FlowSpec
import Foundation

/// Why a configuration is in the plan.
public enum ConfigurationOrigin: Sendable, Hashable, CustomStringConvertible {
    /// Original combination number `index` (0-based mixed-radix position, first axis slowest) of the cartesian
    /// product, extended by these includes.
    case combination(index: Int, includes: [Int])
    /// Row `row` (1-based) of the t-wise covering array, extended by these includes.
    case reductionRow(row: Int, origin: CoveringArray.RowOrigin, strength: Int, includes: [Int])
    /// Added by an include entry that extends no original combination.
    case include(Int)

    public var description: String {
        func extended(_ includes: [Int]) -> String {
            includes.isEmpty ? "" : ", extended by " + includes.map { "include #\($0)" }.joined(separator: ", ")
        }
        switch self {
        case .combination(let index, let includes):
            return "original combination #\(index + 1) of the cartesian product, kept by every exclude and constraint\(extended(includes))"
        case .reductionRow(let row, let origin, let t, let includes):
            let name = t == 2 ? "pairwise" : "\(t)-wise"
            return "row \(row) of the \(name) reduction (\(origin))\(extended(includes))"
        case .include(let n):
            return "added by include #\(n), which extends no original combination (it carries only the keys it names)"
        }
    }
}

/// Counts at each stage of planning.
public struct PlanCounts: Sendable, Hashable {
    /// Stage counts of the expansion; nil when the space is too large to count.
    public var stages: StageCounts?
    /// Configurations in the plan (after reduction; equals `afterConstraints` for `full`).
    public var afterReduction: Int
    public var scenariosInCorpus: Int
    public var scenariosSelected: Int
    public var jobs: Int
}

/// Tunables of planning, with their defaults.
public struct PlanSettings: Sendable {
    /// The default job limit (`--max-jobs`).
    public static let defaultMaximumJobs = 1_000_000
    /// The most jobs a plan may have; a larger plan is an MX025 finding before any configuration is listed
    /// (`flowmatrix … --max-jobs N`). Never a silent cut.
    public var maximumJobs = PlanSettings.defaultMaximumJobs
    /// Covering-array tunables.
    public var coveringArray = CoveringArray.Settings()
    /// The manifests of the registries matrices may name (`RegistryManifest`): when one names the matrix' registry,
    /// its selected scenarios are checked against it (FS021, FS022) and the plan notes the axes it ignores. Empty
    /// (the default): nothing is checked.
    public var registryManifests: [RegistryManifest] = []
    /// Runs a matrix's `items.command` when it is loaded (`ItemsCommandRunner`; the CLI's starts a process). Nil (the
    /// default): MatrixPlan runs nothing, and a matrix whose items come from a command is an MX029 finding.
    public var itemsCommandRunner: (any ItemsCommandRunner)?
    /// The `web` registry's manifest for the site a matrix names (`web`: its page objects), replacing the one in
    /// `registryManifests` for that matrix; nil (the default), or nil from it: `registryManifests`' stands. The CLI's
    /// reads the page objects with the web registry.
    public var webSiteManifest: (@Sendable (WebSite) -> RegistryManifest?)?

    public init() {}
}

/// A planned matrix: configurations, jobs, counts, and why each configuration exists.
public struct Plan: Sendable {
    public var matrix: MatrixFile
    /// The configurations, as value indices into the matrix's axes (a `Configuration` is made when one is read).
    public var configurations: ConfigurationTable
    /// Parallel to `configurations`.
    public var origins: [ConfigurationOrigin]
    public var jobs: [Job]
    public var counts: PlanCounts
    /// Anything the user should know (a space too large to count every stage).
    public var notes: [String]
    /// Limits the plan met while it was built (MX025 too many jobs, MX026 a reduction too large); when any,
    /// `jobs` is empty and the plan must not run (`MatrixPlanner.load` returns these as findings).
    public var limitFindings: [ValidationFinding] = []
    /// Per configuration, the bit set of `matrix.registries` it runs on; empty when each runs on every registry.
    public var registryMasks: [UInt64] = []
    let space: MatrixSpace
    let scenarioFiles: [String: String]
}

/// Plans a matrix against a corpus (see `MatrixFile.plan(scenarios:)`).
public func plan(_ matrix: MatrixFile, scenarios: [LoadedScenario], settings: PlanSettings = PlanSettings()) -> Plan {
    matrix.plan(scenarios: scenarios.map { ($0.scenario, $0.file) }, settings: settings)
}

extension MatrixFile {
    /// Expands the matrix (cartesian → exclude → include → constraints → reduction) and crosses the
    /// configurations with the scenarios the tag filter selects, scenario by scenario.
    /// - Parameter scenarios: the corpus, with each scenario's file.
    public func plan(scenarios: [(scenario: Scenario, file: String)], settings: PlanSettings = PlanSettings()) -> Plan {
        let space = MatrixSpace(self)
        var notes: [String] = []
        let stages = space.countStages()
        if stages == nil { notes.append("the space is too large to count every stage exactly") }
        // Command jobs (one scenario per item) are not tag-filtered; they run under the `command` registry. A scenario
        // runs on each of the matrix' registries (RegistryRules.swift).
        let corpusSelected = scenarios.filter { selects($0.scenario) }
        let selected = corpusSelected.flatMap { s in registries.map { (s.scenario, s.file, $0) } }
            + (command?.scenarios() ?? []).map { ($0, file, CommandTemplate.registry) }
        var limitFindings: [ValidationFinding] = []
        var configurations = space.tableBuilder()
        var origins: [ConfigurationOrigin] = []
        func append(_ row: [Int32], _ origin: ConfigurationOrigin) {
            if configurations.append(row) { origins.append(origin) }
        }
        switch reduction {
        case .full:
            // `jobLimitFinding` refuses an over-limit space before listing; this guard keeps a direct caller
            // that skipped it from listing without bound, and says so (never a silent cut).
            let perConfiguration = max(selected.count, 1)
            for (row, includes, index) in space.validOriginals() {
                if (configurations.count + 1) * perConfiguration > settings.maximumJobs {
                    limitFindings.append(tooManyJobs(
                        "the full expansion has more than \(configurations.count) configurations × \(selected.count) "
                            + "scenario(s)", settings: settings))
                    break
                }
                append(row, .combination(index: index, includes: includes))
            }
        case .tWise(let t):
            let completable: (([Int32]) -> Bool)? = space.isUnconstrained ? nil : { space.canComplete($0) }
            do {
                let rows = try CoveringArray.generate(
                    levels: space.levels, strength: t, seed: seed, seedRows: seedRows.map { space.partial($0) },
                    relevant: Set(space.relevantAxes), settings: settings.coveringArray, isCompletable: completable)
                for (i, r) in rows.enumerated() {
                    let (full, includes) = space.extend(r.values)
                    guard space.matchingExclude(full) == nil, space.violatedConstraint(full) == nil else { continue }
                    append(full, .reductionRow(row: i + 1, origin: r.origin, strength: t, includes: includes))
                }
            } catch {
                limitFindings.append(ValidationFinding(
                    file: file, code: MatrixRule.reductionTooLarge.code, path: "$.reduction", position: reductionPosition,
                    message: "the \(reduction) reduction could not be built (\(error)); lower t or remove values"))
            }
        }
        for (row, include) in space.addedCombinations() where space.violatedConstraint(row) == nil {
            append(row, .include(include))
        }
        let (jobCount, overflow) = configurations.count.multipliedReportingOverflow(by: selected.count)
        if limitFindings.isEmpty, overflow || jobCount > settings.maximumJobs {
            limitFindings.append(tooManyJobs(
                "\(configurations.count) configurations × \(selected.count) scenario(s) = \(jobCount) jobs", settings: settings))
        }
        let table = configurations.build()
        let rules = registryRules
        let masks = rules.isEmpty ? [] : table.indices.map { rules.mask(of: table[$0]) }
        if limitFindings.isEmpty, !masks.isEmpty { limitFindings += rules.unusedRegistries(masks) }
        var jobs: [Job] = []
        if limitFindings.isEmpty { jobs.reserveCapacity(jobCount) }
        for (scenario, file, registry) in selected where limitFindings.isEmpty {
            let scenario = recording.applied(to: audit.applied(to: scenario))
            let source = Job.Source(scenario: scenario, scenarioFile: file, registry: registry,
                                    canonicalScenario: JobIdentity.canonicalJSON(scenario))
            let bit = registries.firstIndex(of: registry).map { UInt64(1) << UInt64($0) } ?? 0
            for c in table.indices where masks.isEmpty || bit == 0 || masks[c] & bit != 0 {
                jobs.append(Job(source: source, configurations: table, index: c))
            }
        }
        let counts = PlanCounts(stages: stages, afterReduction: configurations.count,
                                scenariosInCorpus: scenarios.count + commandJobsPerConfiguration,
                                scenariosSelected: corpusSelected.count + commandJobsPerConfiguration, jobs: jobs.count)
        var files: [String: String] = [:]
        for (s, f) in scenarios { files[s.id] = f }
        var plan = Plan(matrix: self, configurations: table, origins: origins, jobs: jobs, counts: counts,
                        notes: notes, space: space, scenarioFiles: files)
        (plan.limitFindings, plan.registryMasks) = (limitFindings, masks)
        return plan
    }

    /// An MX025 finding: `what` exceeds the job limit.
    func tooManyJobs(_ what: String, settings: PlanSettings) -> ValidationFinding {
        ValidationFinding(
            file: file, code: MatrixRule.tooManyJobs.code, path: "$.axes", position: axesPosition,
            message: "\(what): more than the limit of \(settings.maximumJobs) jobs; nothing runs. Add excludes or "
                + "constraints, use a pairwise or t-wise reduction, or raise the limit with --max-jobs")
    }

    /// The plan's size checked against `settings` without listing anything: MX025 when the jobs (configurations ×
    /// selected scenarios) exceed `maximumJobs`, MX026 when a t-wise reduction's `estimatedWork` exceeds
    /// `maximumWork`. A `full` space is counted exactly (streaming, `countStages`) or bounded by its cartesian
    /// product when too large to count; a t-wise plan is bounded below by the product of its t largest axes.
    /// All arithmetic is overflow-safe (`BigCount`, floating point), so 10^30 combinations are refused at once.
    public func limitFindings(scenariosSelected: Int, settings: PlanSettings) -> [ValidationFinding] {
        let space = MatrixSpace(self)
        let limit = BigCount(UInt64(max(settings.maximumJobs, 0)))
        // Configurations are listed even when no scenario is selected: they count at least once, as in `plan`.
        let scenarios = UInt64(max(scenariosSelected, 1))
        switch reduction {
        case .full:
            let (configurations, exact): (BigCount, Bool)
            if let stages = space.countStages() {
                (configurations, exact) = (stages.afterConstraints, true)
            } else {
                let added = UInt64(space.addedCombinations().count)
                (configurations, exact) = (space.levels.reduce(BigCount(1)) { $0 * UInt64($1) } + BigCount(added), false)
            }
            let jobs = configurations * scenarios
            guard limit < jobs else { return [] }
            let what = exact
                ? "the full expansion has \(configurations) configurations × \(scenariosSelected) scenario(s) = \(jobs) jobs"
                : "the full expansion has up to \(configurations) configurations (too many to count exactly) × "
                    + "\(scenariosSelected) scenario(s)"
            return [tooManyJobs(what, settings: settings)]
        case .tWise(let t):
            let levels = space.levels
            let work = CoveringArray.estimatedWork(levels: levels, strength: t, candidates: settings.coveringArray.candidates)
            if work > settings.coveringArray.maximumWork {
                let sci = String(format: "%.2g", work)
                let limitText = String(format: "%.2g", settings.coveringArray.maximumWork)
                return [ValidationFinding(
                    file: file, code: MatrixRule.reductionTooLarge.code, path: "$.reduction", position: reductionPosition,
                    message: "the \(reduction) reduction over \(levels.count) axes (\(levels.reduce(0, +)) values) implies about "
                        + "\(sci) value checks, more than the limit of \(limitText) (docs/MATRIX.md); lower t, "
                        + "split the matrix or remove values")]
            }
            // Without excludes or constraints every t-tuple must be covered: at least ∏ t largest levels rows.
            guard space.isUnconstrained else { return [] }
            let rows = levels.sorted(by: >).prefix(t).reduce(BigCount(1)) { $0 * UInt64($1) }
            let jobs = rows * scenarios
            guard limit < jobs else { return [] }
            return [tooManyJobs("the \(reduction) reduction needs at least \(rows) configurations × "
                                + "\(scenariosSelected) scenario(s) = \(jobs) jobs", settings: settings)]
        }
    }
}

extension Plan {
    // MARK: - Explain

    /// Why a configuration or job exists, or why an assignment was dropped.
    /// - Parameter query: a job id (or a prefix of at least 6 characters), `#n` (the n-th configuration), or an
    ///   assignment `axis=value,…` (full or partial).
    public func explain(_ query: String) -> String { explanation(query).text }

    /// `explain`'s text, and whether it answers the query: false when the query names no job, configuration,
    /// axis or value of this plan (`plan --explain` then exits non-zero).
    public func explanation(_ query: String) -> (text: String, answered: Bool) {
        let q = query.trimmingSpaces
        if q.count >= 6, !q.contains("="), let job = jobs.first(where: { $0.id.hasPrefix(q.lowercased()) }) {
            let index = job.configurations == configurations
                ? job.configurationIndex : configurations.firstIndex(of: job.configuration) ?? 0
            var out = "job \(job.id): scenario '\(job.scenario.id)' (\(job.scenarioFile)) under configuration #\(index + 1) \(job.configuration.canonicalString) on registry '\(job.registry)'\n"
            out += "  scenario: \(scenarioReason(job.scenario))\n"
            out += "  configuration: \(origins[index])\n"
            if matrix.registries.count > 1 {
                out += "  registry: one of the matrix' registries (\(matrix.registries.joined(separator: ", "))); "
                    + "configuration #\(index + 1) runs on \(registries(ofConfiguration: index).joined(separator: ", "))\n"
            }
            out += "  id: SHA-256 of the canonical scenario, configuration and registry, first \(JobIdentity.length) hex characters"
            for line in job.configuration.accessibilityMeaning { out += "\n  " + line }
            return (out, true)
        }
        if q.hasPrefix("#"), let n = Int(q.dropFirst()) {
            guard configurations.indices.contains(n - 1) else { return ("there is no configuration #\(n); the plan has \(configurations.count)", false) }
            let meaning = configurations[n - 1].accessibilityMeaning.map { "\n  " + $0 }.joined()
            return ("configuration #\(n) \(configurations[n - 1].canonicalString): \(origins[n - 1])" + meaning, true)
        }
        guard q.contains("="), let parsed = Configuration(parsing: q) else {
            return ("'\(query)' is neither a job id of this plan, '#n', nor an assignment such as 'orientation=landscape,window=tall-narrow'", false)
        }
        if let registry = parsed[MatrixFile.registryKey] {
            return explainRegistry(registry, assignment: Configuration(parsed.values.filter { $0.key != MatrixFile.registryKey }))
        }
        var values: [String: String] = [:]
        for (key, raw) in parsed.pairs {
            guard let kind = BuiltInAxis(rawValue: key) else { values[key] = raw; continue }
            switch kind.normalize(raw) {
            case .success(let v): values[key] = v
            case .failure(let problem): return ("\(key)=\(raw) is not a valid value: \(problem.message)", false)
            }
        }
        let assignment = Configuration(values)
        if let i = configurations.firstIndex(of: assignment) {
            let meaning = assignment.accessibilityMeaning.map { "\n  " + $0 }.joined()
            return ("configuration #\(i + 1) \(assignment.canonicalString): \(origins[i])" + meaning, true)
        }
        let axisNames = Set(matrix.axes.map(\.name))
        let containing = configurations.indices.filter { i in assignment.pairs.allSatisfy { configurations[i][$0.key] == $0.value } }
        if !containing.isEmpty {
            let list = containing.prefix(10).map { "#\($0 + 1)" }.joined(separator: ", ") + (containing.count > 10 ? ", …" : "")
            return ("\(assignment.canonicalString) is planned: \(containing.count) configuration\(containing.count == 1 ? " contains" : "s contain") it: \(list)", true)
        }
        for (key, value) in assignment.pairs {
            guard let axis = matrix.axes.first(where: { $0.name == key }) else {
                return ("'\(key)' is not an axis of this matrix (axes: \(matrix.axes.map(\.name).joined(separator: ", ")))", false)
            }
            if !axis.values.contains(value) {
                let added = configurations.enumerated().filter { $0.element[key] == value }.map { "#\($0.offset + 1)" }
                if !added.isEmpty { return ("\(key)=\(value) is not a value of axis '\(key)'; includes add it in configuration \(added.joined(separator: ", "))", true) }
                return ("\(key)=\(value) is not a value of axis '\(key)' (\(axis.values.joined(separator: ", "))), so no configuration has it", false)
            }
        }
        let partial = space.partial(assignment.values.filter { axisNames.contains($0.key) })
        if let reason = space.whyImpossible(partial) {
            return ("\(assignment.canonicalString) was dropped: \(reason)", true)
        }
        switch matrix.reduction {
        case .full:
            return ("\(assignment.canonicalString) is valid but no planned configuration contains it", false)
        case .tWise(let t):
            var out = "\(assignment.canonicalString) is valid but was dropped by the \(matrix.reduction) reduction: it needs only every \(t)-tuple covered"
            let keys = assignment.keys
            if keys.count >= t {
                var covered: [String] = []
                forEachSubset(keys, size: t) { subset in
                    let i = configurations.firstIndex { c in subset.allSatisfy { c[$0] == assignment[$0] } }
                    let text = subset.map { "\($0)=\(assignment[$0] ?? "")" }.joined(separator: ",")
                    covered.append(i.map { "\(text) by #\($0 + 1)" } ?? "\(text) by no row")
                }
                out += "; its tuples are covered: " + covered.prefix(12).joined(separator: "; ")
            }
            return (out, true)
        }
    }

    private func scenarioReason(_ s: Scenario) -> String {
        var parts: [String] = []
        if matrix.includeTags.isEmpty { parts.append("no include tags (every scenario)") } else {
            parts.append("has tag \(s.tags.filter(matrix.includeTags.contains).joined(separator: ", ")) of include tags [\(matrix.includeTags.joined(separator: ", "))]")
        }
        if !matrix.excludeTags.isEmpty { parts.append("none of the exclude tags [\(matrix.excludeTags.joined(separator: ", "))]") }
        return "selected: " + parts.joined(separator: " and ")
    }

    // MARK: - Rendering

    /// The stage counts as `name: value` lines.
    public var countLines: [(String, String)] {
        func text(_ c: BigCount?) -> String { c?.description ?? "not counted" }
        return [
            ("cartesian", text(counts.stages?.cartesian)),
            ("after exclude", text(counts.stages?.afterExclude)),
            ("after include", text(counts.stages?.afterInclude)),
            ("after constraints", text(counts.stages?.afterConstraints)),
            ("after reduction (\(matrix.reduction))", String(counts.afterReduction)),
            ("scenarios selected", "\(counts.scenariosSelected) of \(counts.scenariosInCorpus)"),
            ("jobs", String(counts.jobs)),
        ]
    }

    /// A readable table of the configurations: `#`, one column per key, and the origin.
    public func table(limit: Int = 500) -> String {
        var keys = matrix.axes.map(\.name)
        for c in configurations { for k in c.keys where !keys.contains(k) { keys.append(k) } }
        let several = matrix.registries.count > 1
        var rows: [[String]] = [["#"] + keys + (several ? [MatrixFile.registryKey] : []) + ["origin"]]
        for (i, c) in configurations.prefix(limit).enumerated() {
            let origin: String
            switch origins[i] {
            case .combination(let index, let inc): origin = "combination \(index + 1)" + (inc.isEmpty ? "" : " +include " + inc.map(String.init).joined(separator: ","))
            case .reductionRow(let row, let o, _, let inc):
                let what: String
                switch o {
                case .seedRow(let n): what = "seed row \(n)"
                case .greedy(let n): what = "+\(n) tuples"
                case .construction: what = "construction"
                }
                origin = "row \(row) (\(what))" + (inc.isEmpty ? "" : " +include " + inc.map(String.init).joined(separator: ","))
            case .include(let n): origin = "include #\(n)"
            }
            let onRegistries = several ? [registries(ofConfiguration: i).joined(separator: "+")] : []
            rows.append([String(i + 1)] + keys.map { c[$0] ?? "-" } + onRegistries.map { $0.isEmpty ? "-" : $0 } + [origin])
        }
        let widths = (0..<rows[0].count).map { col in rows.map { $0[col].count }.max() ?? 0 }
        var out = ""
        for (r, row) in rows.enumerated() {
            out += row.enumerated().map { col, cell in
                col == row.count - 1 ? cell : cell.padding(toLength: widths[col], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
            if r == 0 { out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n" }
        }
        if configurations.count > limit { out += "… \(configurations.count - limit) more (use --json for all)\n" }
        return out
    }

    /// `{"configurations": [{axis: value}], "jobs": [{"id", "scenario", "scenarioFile", "registry",
    /// "configuration"}], "counts": {…}}`; every configuration value is a string; counts are numbers (null
    /// when not counted).
    public func json() -> String {
        func config(_ c: Configuration) -> String { "{" + c.pairs.map { jsonString($0.key) + ": " + jsonString($0.value) }.joined(separator: ", ") + "}" }
        var out = "{\n  \"configurations\": ["
        out += configurations.map { "\n    " + config($0) }.joined(separator: ",")
        out += configurations.isEmpty ? "],\n" : "\n  ],\n"
        out += "  \"jobs\": ["
        out += jobs.map { job in
            "\n    {\"id\": \(jsonString(job.id)), \"scenario\": \(jsonString(job.scenario.id)), \"scenarioFile\": \(jsonString(job.scenarioFile)), \"registry\": \(jsonString(job.registry)), \"configuration\": \(config(job.configuration))}"
        }.joined(separator: ",")
        out += jobs.isEmpty ? "],\n" : "\n  ],\n"
        func n(_ c: BigCount?) -> String { c?.description ?? "null" }
        out += "  \"counts\": {\"cartesian\": \(n(counts.stages?.cartesian)), \"afterExclude\": \(n(counts.stages?.afterExclude)), "
        out += "\"afterInclude\": \(n(counts.stages?.afterInclude)), \"afterConstraints\": \(n(counts.stages?.afterConstraints)), "
        out += "\"afterReduction\": \(counts.afterReduction), \"scenarios\": \(counts.scenariosInCorpus), "
        out += "\"scenariosSelected\": \(counts.scenariosSelected), \"jobs\": \(counts.jobs)}\n}"
        return out
    }
}

/// Calls `body` with every `size`-subset of `items` (in order).
func forEachSubset(_ items: [String], size: Int, _ body: ([String]) -> Void) {
    guard size <= items.count, size > 0 else { return }
    var combo = Array(0..<size)
    while true {
        body(combo.map { items[$0] })
        var i = size - 1
        while i >= 0 && combo[i] == items.count - size + i { i -= 1 }
        if i < 0 { return }
        combo[i] += 1
        for j in (i + 1)..<size { combo[j] = combo[j - 1] + 1 }
    }
}
