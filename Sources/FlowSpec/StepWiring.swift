/// Where a registry's `verb:target` table comes from, so `validate` can find an unwired step before anything runs:
/// the Catalog registry's dispatch table, the web registry's page objects (each locator a target of the screen it
/// belongs to), or a table declared by hand (`StepTable`).
///
/// Implementation requirements: `wiredSteps` lists exactly what the registry's `execute` dispatches on (build both
/// from one list so they cannot drift); a target pattern follows `RegistryManifest`'s syntax (`*`, `#` holes).
public protocol StepWiring: Sendable {
    /// The target patterns wired, per verb (`verb` `*`: every verb).
    var wiredSteps: [RegistryManifest.StepPatterns] { get }
}

extension RegistryManifest {
    /// This manifest with its steps taken from `wiring` (its assert clauses and axes unchanged).
    public func wired(by wiring: some StepWiring) -> RegistryManifest {
        var copy = self
        copy.steps = wiring.wiredSteps
        return copy
    }
}

/// A wiring table declared as `verb:target` keys (`tap:catalog.retry`, `assert:catalog.item.#.title`).
public struct StepTable: StepWiring, Hashable {
    public let wiredSteps: [RegistryManifest.StepPatterns]
    /// The keys that are not `verb:target` with a verb of the vocabulary (FS024 when a table is checked).
    public let badKeys: [String]

    /// Groups `keys` by verb, in first-appearance order; a key without `:` or with an unknown verb goes to `badKeys`.
    public init(_ keys: [String]) {
        var verbs: [String] = []
        var targets: [String: [String]] = [:]
        var bad: [String] = []
        for key in keys {
            guard let colon = key.firstIndex(of: ":"), key[key.index(after: colon)...].isEmpty == false else {
                bad.append(key)
                continue
            }
            let verb = String(key[..<colon]), target = String(key[key.index(after: colon)...])
            guard verb == "*" || Verb(rawValue: verb) != nil else {
                bad.append(key)
                continue
            }
            if targets[verb] == nil { verbs.append(verb) }
            targets[verb, default: []].append(target)
        }
        wiredSteps = verbs.map { RegistryManifest.StepPatterns(verb: $0, targets: targets[$0] ?? []) }
        badKeys = bad
    }

    /// FS024 for each bad key of the table `file` declares.
    public func findings(file: String) -> [ValidationFinding] {
        badKeys.map { key in
            let hint = key.contains(":") ? "its verb is not one of \(Verb.allCases.map(\.rawValue).joined(separator: ", "))"
                : "write it as verb:target"
            return ValidationFinding(file: file, code: ScenarioRule.badWiringEntry.code, path: "$", position: nil,
                                     message: "wiring entry '\(key)' is not a step key: \(hint)")
        }
    }
}
