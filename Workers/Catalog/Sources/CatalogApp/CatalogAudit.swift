import FlowSpec
import Foundation

/// `assert page accessible` on a Catalog surface: the audit's rules (docs/ACCESSIBILITY.md) judged on the surface
/// model, as the web registry judges them on the rendered page. Every finding names its element by identifier.
///
/// - AX001: a visible button, field or toggle whose accessible name (`SurfaceElement.accessibleName`) is empty.
/// - AX002: visible text whose colours contrast below WCAG 2.2 AA: 4.5:1, or 3:1 for large text (18 pt, or 14 pt
///   bold). Disabled controls are exempt, as WCAG exempts inactive components.
/// - AX003: a hittable button, field or toggle smaller than 24×24 pt, unless the 24 pt circle centred on it meets no
///   other target (WCAG 2.5.8's spacing exception).
/// - AX004: the screen's copy is in another language than the configured locale (a locale without a table of its
///   own falls back to the development language). Its direction always follows the configuration here (the layout
///   mirrors by rule; `assert layout mirrored` checks the result).
/// - AX005: text clipped at the configured text size (the layout's truncation findings).
public enum CatalogAudit {
    /// The smallest target, in points, each way.
    public static let minimumTarget = 24.0

    /// The findings on `surface` for a job configured with `locale`.
    public static func findings(_ surface: Surface, locale: String) -> [AuditFinding] {
        let visible = surface.elements.filter { $0.isVisible && !$0.id.isEmpty }
        return unnamed(visible) + contrast(visible) + targetSize(visible)
            + language(surface, locale: locale) + clipped(surface)
    }

    static func isControl(_ e: SurfaceElement) -> Bool { [.button, .field, .toggle].contains(e.role) }

    static func unnamed(_ elements: [SurfaceElement]) -> [AuditFinding] {
        elements.filter { isControl($0) && $0.accessibleName.allSatisfy(\.isWhitespace) }.map {
            AuditFinding(
                rule: .unnamed, element: $0.id,
                detail: "is a \($0.role.rawValue) with no accessible name (it shows “\($0.label)”)")
        }
    }

    static func contrast(_ elements: [SurfaceElement]) -> [AuditFinding] {
        elements.compactMap { e in
            guard let fg = e.foreground, let bg = e.background, e.isEnabled || !isControl(e),
                  e.label.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
            else { return nil }
            let size = e.fontSize ?? 17
            let large = size >= 18 || (size >= 14 && e.isBold == true)
            let needed = large ? 3.0 : 4.5
            let ratio = RGB.contrast(fg, bg)
            guard ratio < needed else { return nil }
            return AuditFinding(
                rule: .contrast, element: e.id,
                detail: "\(ratioText(ratio)) < \(ratioText(needed)) (\(fg) on \(bg), \(points(size)) pt"
                    + "\(e.isBold == true ? " bold" : ""))")
        }
    }

    static func targetSize(_ elements: [SurfaceElement]) -> [AuditFinding] {
        let targets = elements.filter { isControl($0) && $0.isHittable }
        let small = { (e: SurfaceElement) in e.frame.width < minimumTarget - 0.01 || e.frame.height < minimumTarget - 0.01 }
        return targets.compactMap { e in
            guard small(e) else { return nil }
            let centre = (x: e.frame.x + e.frame.width / 2, y: e.frame.y + e.frame.height / 2)
            let crowded = targets.contains { other in
                guard other.id != e.id else { return false }
                if small(other) {
                    let c = (x: other.frame.x + other.frame.width / 2, y: other.frame.y + other.frame.height / 2)
                    return hypot(c.x - centre.x, c.y - centre.y) < minimumTarget
                }
                return distance(from: centre, to: other.frame) < minimumTarget / 2
            }
            guard crowded else { return nil }
            return AuditFinding(
                rule: .targetSize, element: e.id,
                detail: "is \(points(e.frame.width))×\(points(e.frame.height)) pt, under \(points(minimumTarget))×"
                    + "\(points(minimumTarget)) pt, with another target within \(points(minimumTarget / 2)) pt")
        }
    }

    static func language(_ surface: Surface, locale: String) -> [AuditFinding] {
        var out: [AuditFinding] = []
        if let shown = surface.language, primary(shown) != primary(locale) {
            out.append(AuditFinding(
                rule: .language, element: surface.screen,
                detail: "the screen's copy is in '\(shown)', the configured locale is '\(locale)'"))
        }
        return out
    }

    static func clipped(_ surface: Surface) -> [AuditFinding] {
        let visible = Set(surface.elements.filter(\.isVisible).map(\.id))
        return surface.findings.filter { $0.kind == .truncated && visible.contains($0.element) }.map {
            AuditFinding(
                rule: .clipped, element: $0.element,
                detail: "is clipped at text size \(surface.textSize ?? "large"): \($0.message)")
        }
    }

    private static func primary(_ tag: String) -> String {
        String(tag.split(separator: "-").first ?? Substring(tag)).lowercased()
    }

    private static func distance(from p: (x: Double, y: Double), to r: Rect) -> Double {
        let dx = max(r.x - p.x, 0, p.x - r.maxX)
        let dy = max(r.y - p.y, 0, p.y - r.maxY)
        return hypot(dx, dy)
    }

    private static func ratioText(_ ratio: Double) -> String { String(format: "%.2f:1", ratio) }
    private static func points(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
