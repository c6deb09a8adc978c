import Foundation

/// The stable rule codes of the accessibility audit (`assert page accessible`, `policy.audit`). Codes never change
/// meaning; every code is documented, with the Xcode audit types and axe-core rules it corresponds to, in
/// docs/ACCESSIBILITY.md.
public enum AuditRule: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An interactive element has no accessible name (in the browser's accessibility tree; the Catalog's surface).
    case unnamed = "AX001"
    /// Text contrast below WCAG 2.2 AA (4.5:1, or 3:1 for large text) against the colours behind it.
    case contrast = "AX002"
    /// A target smaller than 24×24 CSS px (points) in the configured window, without the spacing exception.
    case targetSize = "AX003"
    /// The document's `lang` or direction does not match the configuration's locale and direction.
    case language = "AX004"
    /// Text clipped at the configured text size (the layout rule `no-truncation`, under the audit's code).
    case clipped = "AX005"

    public var code: String { rawValue }
    /// The short name after the code in a finding (`AX002 contrast: …`).
    public var name: String {
        switch self {
        case .unnamed: "no-name"
        case .contrast: "contrast"
        case .targetSize: "target-size"
        case .language: "lang-dir"
        case .clipped: "clipped"
        }
    }

    public var description: String { "\(code) \(name)" }

    /// The assert clause that runs the audit (`assert page accessible`), and the target naming the whole page.
    public static let clause = "accessible"
    public static let pageTarget = "page"
}

/// One finding of the audit: its rule, the element by its identifier, and what was measured.
public struct AuditFinding: Sendable, Hashable, CustomStringConvertible {
    public var rule: AuditRule
    /// The element's identifier (or, without one, its tag inside the nearest identified element).
    public var element: String
    public var detail: String

    public init(rule: AuditRule, element: String, detail: String) {
        self.rule = rule
        self.element = element
        self.detail = detail
    }

    /// `AX002 contrast at cart.total: 2.9:1 < 4.5:1 (…)`.
    public var description: String { "\(rule) at \(element): \(detail)" }

    /// The findings a step failure message names (`failureMessage`'s form), as rule and element; empty when the
    /// message is not an audit's.
    public static func parse(_ message: String) -> [(rule: AuditRule, element: String)] {
        guard let start = message.range(of: auditPrefix) else { return [] }
        var body = message[start.upperBound...]
        if let end = body.range(of: " — ") { body = body[..<end.lowerBound] }
        guard let colon = body.range(of: ": ") else { return [] }
        return body[colon.upperBound...].components(separatedBy: "; ").compactMap { part in
            guard part.count > 6, let rule = AuditRule(rawValue: String(part.prefix(5))),
                  let at = part.range(of: " at "), let end = part.range(of: ": ", range: at.upperBound..<part.endIndex)
            else { return nil }
            return (rule, String(part[at.upperBound..<end.lowerBound]))
        }
    }

    static let auditPrefix = "accessibility audit: "

    /// The step failure a list of findings makes: `accessibility audit: 2 findings: AX001 …; AX002 …`.
    public static func failureMessage(_ findings: [AuditFinding]) -> String {
        let sorted = findings.sorted { ($0.rule.rawValue, $0.element) < ($1.rule.rawValue, $1.element) }
        let count = findings.count == 1 ? "1 finding" : "\(findings.count) findings"
        return auditPrefix + "\(count): " + sorted.map(\.description).joined(separator: "; ")
    }
}
