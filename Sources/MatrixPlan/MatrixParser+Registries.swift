import FlowSpec

/// The `registry` member (one name or a list of names) and the places `registry` may not appear (MX040–MX043).
extension MatrixParser {
    /// The registries `root` names: `"registry": "catalog"` or `"registry": ["catalog", "web"]`. Nil when absent or
    /// unusable (a finding says why; MX004 when `required`).
    mutating func parseRegistries(_ root: JSONNode, required: Bool) -> [String]? {
        let path = "$.registry"
        guard let node = root["registry"] else {
            if required { add(.missingMember, path, root.position, "the matrix needs 'registry'") }
            return nil
        }
        if let name = node.string {
            guard !name.trimmingSpaces.isEmpty else {
                add(.badRegistry, path, node.position, "the registry name is empty; name the worker kind (e.g. catalog)")
                return nil
            }
            return [name]
        }
        guard let items = node.array else {
            add(.wrongType, path, node.position, "expected a registry name or an array of names, found \(node.kindName)")
            return nil
        }
        guard !items.isEmpty else {
            add(.badRegistryList, path, node.position, "the registry list is empty; name at least one worker kind (e.g. [\"catalog\", \"web\"])")
            return nil
        }
        var names: [String] = []
        var ok = true
        for (i, item) in items.enumerated() {
            guard let name = item.string else {
                add(.wrongType, "\(path)[\(i)]", item.position, "expected a registry name, found \(item.kindName)")
                ok = false
                continue
            }
            if name.trimmingSpaces.isEmpty {
                add(.badRegistry, "\(path)[\(i)]", item.position, "the registry name is empty; name the worker kind (e.g. catalog)")
                ok = false
            } else if names.contains(name) {
                add(.badRegistryList, "\(path)[\(i)]", item.position, "registry '\(name)' is listed twice; list each registry once")
                ok = false
            } else {
                names.append(name)
            }
        }
        if names.count > RegistryRules.maximumRegistries {
            add(.badRegistryList, path, node.position,
                "the matrix lists \(names.count) registries, more than \(RegistryRules.maximumRegistries); split it into several matrices")
            ok = false
        }
        return ok ? names : nil
    }

    /// MX042: an axis named `registry`, or an include entry naming it (the registry is not a configuration value, so
    /// an include cannot add or extend one with it; exclude or constrain it instead).
    mutating func checkRegistryKeys(_ root: JSONNode, axes: [Axis]) {
        let key = MatrixFile.registryKey
        if let member = root["axes"]?.members?.first(where: { $0.key == key }) {
            add(.registryNotAnAxis, "$.axes.\(key)", member.keyPosition,
                "'\(key)' is not an axis: list the registries in the top-level member (\"registry\": [\"catalog\", \"web\"]); "
                    + "excludes and constraints may then name them")
        }
        for (i, entry) in (root["include"]?.array ?? []).enumerated() {
            guard let member = entry.members?.first(where: { $0.key == key }) else { continue }
            add(.registryNotAnAxis, "$.include[\(i)].\(key)", member.keyPosition,
                "an include cannot name '\(key)': includes add configurations, and every configuration runs on each "
                    + "registry; keep a registry off some configurations with an exclude or a constraint instead")
        }
    }

    /// MX041: `value` names no registry of the matrix (with the nearest name, when one is close).
    mutating func unknownRegistry(_ value: String, known: [String], path: String, position: SourcePosition?) {
        let hint = Spelling.suggestion(for: value, among: known).map { " (did you mean '\($0)'?)" } ?? ""
        add(.unknownRegistry, path, position,
            "'\(value)' is not a registry of this matrix\(hint); its registries: \(known.joined(separator: ", "))")
    }
}
