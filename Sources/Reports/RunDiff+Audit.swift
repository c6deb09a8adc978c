import FlowSpec
import Journal

/// Accessibility findings that are new in the head run: per job, the audit findings (rule and element) its failure
/// names that the same job's failure in the base run did not (all of them for a job that did not fail there, or is
/// new). `flowmatrix diff` lists them under NEW ACCESSIBILITY FINDINGS, and they count as regressions.
public struct AuditChange: Sendable, Hashable, Codable {
    public var jobID: String
    public var scenarioID: String
    public var configuration: String
    /// `AX002 at cart.total`, in the failure's order.
    public var findings: [String]

    /// The line `flowmatrix diff` prints.
    public var line: String {
        "\(jobID)  \(scenarioID) [\(configuration.isEmpty ? "-" : configuration)]  " + findings.joined(separator: ", ")
    }
}

extension RunDiff {
    /// The new findings of `head` against `base` (the same job in the base run), nil when there are none.
    static func auditChange(_ head: JobRow, base: JobRow?) -> AuditChange? {
        func findings(_ row: JobRow?) -> [String] {
            AuditFinding.parse(row?.result?.failureMessage ?? "").map { "\($0.rule.code) at \($0.element)" }
        }
        let old = Set(findings(base))
        var new: [String] = []
        for finding in findings(head) where !old.contains(finding) && !new.contains(finding) { new.append(finding) }
        guard !new.isEmpty else { return nil }
        return AuditChange(jobID: head.job.jobID, scenarioID: head.job.scenarioID,
                           configuration: head.job.configuration, findings: new)
    }

    /// The NEW ACCESSIBILITY FINDINGS block of the text form (empty when there are none).
    var auditText: String {
        guard !newAuditFindings.isEmpty else { return "" }
        return "\nNEW ACCESSIBILITY FINDINGS (\(newAuditFindings.count))\n"
            + newAuditFindings.map { "  " + $0.line + "\n" }.joined()
    }
}
