import FlowSpec

/// Checking a matrix against the manifests of the registries that run it (`PlanSettings.registryManifests`): its
/// selected scenarios' steps and assert clauses (FS021, FS022, FS023 per registry), and the axes each registry
/// ignores (a note).
extension MatrixFile {
    /// The manifest of this matrix' first registry among `manifests`, if one is published.
    public func registryManifest(in manifests: [RegistryManifest]) -> RegistryManifest? {
        manifests.first { $0.name == registry }
    }

    /// The published manifests of this matrix' registries, in the matrix' order (unpublished ones left out).
    public func registryManifests(in manifests: [RegistryManifest]) -> [RegistryManifest] {
        registries.compactMap { name in manifests.first { $0.name == name } }
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
        registryFindings(scenarios, manifests: [manifest])
    }

    /// FS021, FS022 and FS023 findings of the scenarios this matrix selects against each of `manifests` (one per
    /// registry of the matrix), and MX035 per registry that cannot audit. A step one registry wires and another does
    /// not is FS023 on the one that does not.
    public func registryFindings(_ scenarios: [LoadedScenario], manifests: [RegistryManifest]) -> [ValidationFinding] {
        let selected = scenarios.filter { selects($0.scenario) }
        return manifests.flatMap { manifest in
            selected.flatMap { manifest.findings(for: $0, others: manifests) } + auditFindings(manifest)
        }
    }
}

extension PlanSettings {
    /// The manifests of `matrix`' registries that `registryManifests` has.
    /// With the `web` manifest of the matrix's own site (``webSiteManifest``) when it names one.
    public func manifests(for matrix: MatrixFile) -> [RegistryManifest] {
        var all = registryManifests
        if let site = matrix.webSite, let manifest = webSiteManifest?(site) {
            all.removeAll { $0.name == manifest.name }
            all.append(manifest)
        }
        return matrix.registryManifests(in: all)
    }
}
