import FlowSpec
import RunConditions

/// What the `web` registry publishes (`flowmatrix worker`'s `--list-registries --json`): every `verb:target` (targets
/// are test ids or CSS selectors, resolved in the page), the `assert` clauses — the same lists `assert` dispatches
/// on, so the two cannot drift — and the axes it applies.
extension WebRegistry {
    /// Bare element conditions of `assert`.
    static let conditionClauses = [
        "exists", "visible", "hidden", "absent", "enabled", "disabled", "selected", "not-selected", "hittable",
    ]
    /// Keyed element conditions of `assert` (`text=Hello`; `key=cart.empty` is the page objects' string for a key).
    static let keyedClauses = ["text", "contains", "value", "key"]
    /// The layout rules of `assert`; `clean` asks for all of them.
    static let layoutClauses = ["no-truncation", "no-overlap", "on-screen", "mirrored", "localized"]
    static let everyLayoutClause = "clean"
    /// The custom axes a job's configuration may set: `permissions` (`PermissionPolicy`), `geolocation`
    /// (`GeolocationFix`) and `timezone` (an IANA name).
    public static let customAxes = ["permissions", "geolocation", "timezone"]

    public static let manifest = RegistryManifest(
        name: WebHost.registryName,
        steps: RegistryManifest.everyStep,
        assertClauses: [
            .init(targets: [AuditRule.pageTarget],
                  clauses: conditionClauses + keyedClauses.map { $0 + "=" } + layoutClauses + [everyLayoutClause]
                    + [AuditRule.clause]),
            .init(targets: ["*"],
                  clauses: conditionClauses + keyedClauses.map { $0 + "=" } + layoutClauses + [everyLayoutClause])
        ],
        axes: RunConditions.appliedAxes.map(\.rawValue) + customAxes)
}
