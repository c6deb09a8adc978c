import FlowSpec

/// `assert page accessible`: the accessibility audit of the screen as it is when the step runs (`CatalogAudit`).
extension CatalogRegistry {
    func assertAccessible(_ assertion: StepArguments.Assertion) async throws {
        guard assertion.expectations == [AuditRule.clause] else {
            throw StepError.invalidArgument(
                "`assert page` takes only `accessible` (the audit); check elements with `assert <identifier>`")
        }
        let findings = CatalogAudit.findings(await engine.surface(), locale: conditions.locale)
        guard findings.isEmpty else { throw StepError.assertionFailed(AuditFinding.failureMessage(findings)) }
    }
}
