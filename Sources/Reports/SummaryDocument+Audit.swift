import FlowSpec

/// The `audit` member of a job in summary.json: the accessibility audit's findings its failure names
/// (docs/ACCESSIBILITY.md), as `[{"code": "AX002", "element": "cart.total"}, …]`; absent when the failure is not an
/// audit's.
public struct AuditEntry: Sendable, Hashable, Codable {
    public var code: String
    public var element: String

    /// The entries of a failure message, nil when it names no audit finding.
    static func entries(_ message: String?) -> [AuditEntry]? {
        guard let message else { return nil }
        let found = AuditFinding.parse(message).map { AuditEntry(code: $0.rule.code, element: $0.element) }
        return found.isEmpty ? nil : found
    }
}

extension SummaryDocument.JobEntry {
    /// `,"audit":[…]` as the encoder writes it (members in key order).
    func writeAudit(_ entries: [AuditEntry], _ o: ReportOutput) throws {
        o += ",\"audit\":["
        for (i, entry) in entries.enumerated() {
            o += i == 0 ? "{\"code\":" : ",{\"code\":"
            try string(entry.code, o)
            o += ",\"element\":"
            try string(entry.element, o)
            o += "}"
        }
        o += "]"
    }
}
