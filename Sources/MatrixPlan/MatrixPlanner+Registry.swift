import FlowSpec

/// Checking a matrix against the manifest of the registry that runs it (`PlanSettings.registryManifests`): its
/// selected scenarios' steps and assert clauses (FS021, FS022), and the axes the registry ignores (a note).
extension MatrixFile {
    /// The manifest of this matrix' registry among `manifests`, if one is published.
    public func registryManifest(in manifests: [RegistryManifest]) -> RegistryManifest? {
        manifests.first { $0.name == registry }
    }

    /// The axis names and include keys of the matrix, in file order.
    public var axisAndIncludeKeys: [String] {
        var keys = axes.map(\.name)
        for entry in include { for key in entry.keys.sorted() where !keys.contains(key) { keys.append(key) } }
        return keys
    }

    /// One sentence per axis (or include key) whose values `manifest`'s registry does not use, e.g.
    /// `registry web ignores axis 'flavor' (custom): its values do not change what runs`. Empty when the manifest
    /// does not publish its axes.
    public func ignoredAxisNotes(_ manifest: RegistryManifest) -> [String] {
        axisAndIncludeKeys.filter { !manifest.honours(axis: $0) }.map { key in
            let kind = BuiltInAxis(rawValue: key) == nil ? "custom" : "typed, not applied by this registry"
            return "registry \(manifest.name) ignores axis '\(key)' (\(kind)): its values do not change what runs"
        }
    }

    /// FS021 and FS022 findings of the scenarios this matrix selects, against `manifest`.
    public func registryFindings(_ scenarios: [LoadedScenario], manifest: RegistryManifest) -> [ValidationFinding] {
        scenarios.filter { selects($0.scenario) }.flatMap { manifest.findings(for: $0) } + auditFindings(manifest)
    }
}

extension PlanSettings {
    /// The manifest for `matrix`' registry, when `registryManifests` has one.
    func manifest(for matrix: MatrixFile) -> RegistryManifest? { matrix.registryManifest(in: registryManifests) }
}
