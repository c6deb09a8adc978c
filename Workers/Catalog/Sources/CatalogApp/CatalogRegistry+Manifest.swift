import FlowSpec
import RunConditions

/// What the Catalog registry publishes (`catalog-worker --list-registries --json`), derived from the tables its
/// `execute` dispatches on (`CatalogID`'s families, the assert clause sets), so the two cannot drift.
extension CatalogRegistry {
    public static let manifest = RegistryManifest(
        name: CatalogWorkerKit.registryName,
        steps: [
            .init(verb: Verb.open.rawValue, targets: CatalogID.Screen.allCases.map(\.rawValue)),
            .init(verb: Verb.tap.rawValue, targets: CatalogID.tappableFamilies),
            .init(verb: Verb.type.rawValue, targets: CatalogID.fieldFamilies),
            .init(verb: Verb.swipe.rawValue, targets: CatalogID.swipeFamilies),
            .init(verb: Verb.wait.rawValue, targets: CatalogID.elementFamilies),
            .init(verb: Verb.assert.rawValue, targets: [CatalogID.layout, AuditRule.pageTarget] + CatalogID.elementFamilies),
            .init(verb: Verb.request.rawValue, targets: CatalogID.fixtureTargets),
            .init(verb: Verb.ambient.rawValue, targets: CatalogID.ambientTargets),
            .init(verb: Verb.rotate.rawValue, targets: [CatalogID.device]),
        ],
        assertClauses: [
            .init(targets: [CatalogID.layout], clauses: layoutClauses.keys.sorted()),
            .init(targets: [AuditRule.pageTarget], clauses: [AuditRule.clause]),
            .init(targets: CatalogID.elementFamilies,
                  clauses: elementClauses.sorted() + elementKeyedClauses.sorted().map { $0 + "=" }),
        ],
        // Appearance and contrast choose the theme's palette, text size the text scale; the app has no animation, so
        // the motion axis is not applied (a run says so).
        axes: RunConditions.appliedAxes.filter { $0 != .motion }.map(\.rawValue))
}

