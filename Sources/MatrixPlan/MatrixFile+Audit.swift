import FlowSpec

/// `policy.audit`: whether the plan follows every step of its scenarios with an accessibility audit.
public enum AuditPolicy: String, Sendable, Hashable, CaseIterable {
    /// Scenarios run as written (they may still `assert page accessible` themselves).
    case none
    /// After the scenario's first `open`, every step that can change what is shown (all but `request` and audits) is
    /// followed by `assert page accessible`: the failure names the step after which the finding appeared. The steps
    /// are part of the job's scenario, so the jobs of an audited matrix have ids of their own.
    case everyStep = "every-step"

    /// The audit step the plan inserts.
    public static let auditStep = Step(verb: .assert, target: AuditRule.pageTarget, arg: AuditRule.clause)

    /// `scenario` with the audit steps this policy inserts.
    public func applied(to scenario: Scenario) -> Scenario {
        guard self == .everyStep else { return scenario }
        var out = scenario
        out.steps = []
        var opened = false
        for step in scenario.steps {
            out.steps.append(step)
            if step.verb == .open { opened = true }
            guard opened, step.verb != .request, !Self.isAudit(step) else { continue }
            out.steps.append(Self.auditStep)
        }
        return out
    }

    /// True for an `assert page …` step whose clauses include `accessible`.
    public static func isAudit(_ step: Step) -> Bool {
        guard step.verb == .assert, step.target == AuditRule.pageTarget, let arg = step.arg else { return false }
        return arg.split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces) == AuditRule.clause }
    }
}

extension MatrixFile {
    /// MX035 when `policy.audit` asks for audits that `manifest`'s registry does not publish.
    func auditFindings(_ manifest: RegistryManifest) -> [ValidationFinding] {
        guard audit != .none else { return [] }
        let step = AuditPolicy.auditStep
        let clauses = manifest.clauses(on: step.target)
        let published = manifest.assertClauses == nil || clauses?.contains(AuditRule.clause) == true
        guard !manifest.wires(step) || !published else { return [] }
        return [ValidationFinding(
            file: file, code: MatrixRule.auditUnsupported.code, path: "$.policy.audit", position: nil,
            message: "policy.audit is '\(audit.rawValue)' but registry '\(manifest.name)' does not publish"
                + " `assert page accessible`; use a registry that audits (web, catalog) or remove policy.audit")]
    }
}

extension MatrixParser {
    mutating func parseAudit(_ node: JSONNode) {
        guard let policy = parseNamedValue(node, as: AuditPolicy.self, member: "audit", rule: .badAuditPolicy) else { return }
        audit = policy
    }

    /// A policy member whose value is one of `T`'s names: MX003 for a value that is not a string, `rule` with
    /// "did you mean" for an unknown name ("audit is none or every-step, not 'every_step'").
    mutating func parseNamedValue<T: RawRepresentable & CaseIterable>(
        _ node: JSONNode, as _: T.Type, member: String, rule: MatrixRule
    ) -> T? where T.RawValue == String {
        let path = "$.policy.\(member)"
        guard let text = node.string else {
            add(.wrongType, path, node.position, "expected a string, found \(node.kindName)")
            return nil
        }
        guard let value = T(rawValue: text) else {
            let values = T.allCases.map(\.rawValue)
            let hint = Spelling.suggestion(for: text, among: values).map { " (did you mean '\($0)'?)" } ?? ""
            let listed = values.count == 2 ? values.joined(separator: " or ")
                : values.dropLast().joined(separator: ", ") + " or " + (values.last ?? "")
            add(rule, path, node.position, "\(member) is \(listed), not '\(text)'\(hint)")
            return nil
        }
        return value
    }

    /// MX035 for `policy.audit` on a command matrix: its jobs run their own test commands, whose steps FlowMatrix
    /// cannot audit.
    mutating func checkAuditOfCommand(_ node: JSONNode?) {
        guard let node, audit != .none else { return }
        add(.auditUnsupported, "$.policy.audit", node.position,
            "policy.audit is '\(audit.rawValue)' but a command matrix runs test commands, whose steps FlowMatrix cannot"
                + " audit; run the command's own accessibility checks, or remove policy.audit")
    }
}
