import FlowSpec

/// The registry as a dimension of the plan: a matrix may name several registries (renderers), and every selected
/// scenario runs under every configuration on each of them. The configurations themselves never hold the registry
/// (a job's configuration is what its registry applies), so a job has the same id in a single-registry matrix and in a
/// multi-registry one. Excludes and constraints may name `registry` like an axis: they then decide which registries a
/// configuration runs on, after the configurations are planned (a t-wise reduction covers the axes, and each row it
/// keeps runs on every registry the rules allow — so the renderers can be compared configuration by configuration).
extension MatrixFile {
    /// The key that names the registry in excludes, constraints, `plan --explain` and reports.
    public static let registryKey = "registry"
    /// The rules that choose registries per configuration.
    public var registryRules: RegistryRules { RegistryRules(matrix: self) }
}

/// A matrix' excludes and constraints that name `registry`: which registries each configuration runs on.
public struct RegistryRules: Sendable {
    public let matrix: MatrixFile

    /// The most registries one matrix may list (a plan keeps one bit per registry and configuration).
    public static let maximumRegistries = 64

    /// True when an exclude entry names the registry.
    static func names(_ entry: [String: String]) -> Bool { entry[MatrixFile.registryKey] != nil }

    /// True when a constraint names the registry in a condition or a consequence.
    static func names(_ constraint: Constraint) -> Bool {
        (constraint.conditions + constraint.consequences).contains { $0.axis == MatrixFile.registryKey }
    }

    /// True when some exclude or constraint names the registry (then not every configuration runs on every registry).
    public var isEmpty: Bool { !matrix.exclude.contains(where: Self.names) && !matrix.constraints.contains(where: Self.names) }

    /// Nil when `configuration` runs on `registry`, else why not: the first exclude (`exclude #n {…}`) or constraint
    /// (`constraint #n (…)`) naming the registry that removes the pair.
    public func exclusion(_ registry: String, in configuration: Configuration) -> String? {
        var values = configuration.values
        values[MatrixFile.registryKey] = registry
        for (i, entry) in matrix.exclude.enumerated() where Self.names(entry) {
            if entry.allSatisfy({ values[$0.key] == $0.value }) {
                let text = entry.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                return "exclude #\(i + 1) {\(text)}"
            }
        }
        for c in matrix.constraints where Self.names(c) && !c.isSatisfied(by: values) {
            return "constraint #\(c.number) (\(c))"
        }
        return nil
    }

    /// The bit set of the matrix' registries that `configuration` runs on (bit k: `registries[k]`).
    func mask(of configuration: Configuration) -> UInt64 {
        var mask: UInt64 = 0
        for (k, registry) in matrix.registries.enumerated() where exclusion(registry, in: configuration) == nil {
            mask |= 1 << UInt64(k)
        }
        return mask
    }

    /// MX043 for each registry the rules leave no configuration (`validate`: the configurations are listed, within
    /// the plan limits, without scenarios). Empty without rules.
    public func unusedRegistries(settings: PlanSettings) -> [ValidationFinding] {
        guard !isEmpty else { return [] }
        return matrix.plan(scenarios: [], settings: settings).limitFindings
            .filter { $0.code == MatrixRule.registryRunsNothing.code }
    }

    /// MX043 for each registry that no configuration runs on (`masks`: one per configuration).
    func unusedRegistries(_ masks: [UInt64]) -> [ValidationFinding] {
        let union = masks.reduce(0, |)
        return matrix.registries.enumerated().filter { union & (1 << UInt64($0.offset)) == 0 }.map { _, registry in
            ValidationFinding(
                file: matrix.file, code: MatrixRule.registryRunsNothing.code, path: "$.registry",
                position: matrix.registryPosition,
                message: "registry '\(registry)' runs no configuration: the excludes and constraints that name it remove "
                    + "every one; remove it from 'registry' or loosen those rules")
        }
    }
}

extension Plan {
    /// The registries configuration `index` runs on, in the matrix' order.
    public func registries(ofConfiguration index: Int) -> [String] {
        guard registryMasks.indices.contains(index) else { return matrix.registries }
        let mask = registryMasks[index]
        return matrix.registries.enumerated().filter { mask & (1 << UInt64($0.offset)) != 0 }.map(\.element)
    }

    /// What `plan --explain` says about the registries of an assignment naming `registry=…` (`assignment` without it).
    func explainRegistry(_ registry: String, assignment: Configuration) -> (text: String, answered: Bool) {
        let listed = matrix.registries
        guard listed.contains(registry) else {
            return ("'\(registry)' is not a registry of this matrix (registries: \(listed.joined(separator: ", ")))", false)
        }
        let containing = configurations.indices.filter { i in
            assignment.pairs.allSatisfy { configurations[i][$0.key] == $0.value }
        }
        guard !containing.isEmpty else {
            let text = assignment.pairs.isEmpty ? "" : " with \(assignment.canonicalString)"
            return ("no planned configuration\(text) exists, so registry '\(registry)' runs none", true)
        }
        let running = containing.filter { registries(ofConfiguration: $0).contains(registry) }
        let list = { (ids: [Int]) in ids.prefix(10).map { "#\($0 + 1)" }.joined(separator: ", ") + (ids.count > 10 ? ", …" : "") }
        var out = "registry '\(registry)' runs \(running.count) of the \(containing.count) configuration(s)"
            + (assignment.pairs.isEmpty ? "" : " with \(assignment.canonicalString)")
        if !running.isEmpty { out += ": \(list(running))" }
        for i in containing.filter({ !running.contains($0) }).prefix(5) {
            out += "\n  #\(i + 1) \(configurations[i].canonicalString) not on '\(registry)': removed by "
                + (matrix.registryRules.exclusion(registry, in: configurations[i]) ?? "a rule")
        }
        return (out, true)
    }
}
