import RunConditions

/// Where text sits inside the room it is given. `leading`/`trailing` follow the writing direction;
/// `left`/`right` are physical and do not mirror (the usual cause of an RTL layout bug).
public enum HorizontalAlignment: String, Sendable, Hashable {
    case leading, trailing, center, left, right
}

/// How much width a leaf asks of its row.
public enum Sizing: Sendable, Hashable {
    /// Its natural width (text width plus padding).
    case hug
    /// A fixed width, never shrunk.
    case fixed(Double)
    /// What is left after the other leaves.
    case fill
}

/// One element in a row with its layout rule.
public struct LayoutLeaf: Sendable, Hashable {
    public var element: SurfaceElement
    public var font: TextMetrics.Font
    public var sizing: Sizing
    public var alignment: HorizontalAlignment
    /// Lines text may wrap to before it is truncated (1: single line).
    public var maxLines: Int
    /// A fixed height (images, indicators); nil for the role's default.
    public var height: Double?
    /// Horizontal padding inside a button on each side.
    public var padding: Double
    /// How much larger than at the default text size the text is drawn (the `textSize` axis; 1 at `large`).
    public var textScale: Double = 1
    /// Whether the text may take more lines as it grows (Dynamic Type's rule for labels); a leaf that keeps its
    /// line count clips at large text sizes.
    public var adaptsToTextSize = true

    /// From this scale on (Dynamic Type's accessibility sizes, AX1 and up), rows stack their leaves.
    public static let accessibilityScale = 1.6

    /// The width of `text` on one line in this leaf's font at its text scale.
    func textWidth(_ text: String) -> Double { TextMetrics.width(text, font: font) * textScale }
    /// The height of one line of this leaf's text.
    var lineHeight: Double { (font.lineHeight * textScale).rounded() }
    /// The lines the text may take: more as it grows, when the leaf adapts.
    var effectiveMaxLines: Int {
        adaptsToTextSize && textScale > 1 ? maxLines * Int(textScale.rounded(.up)) : maxLines
    }

    public init(
        _ element: SurfaceElement, font: TextMetrics.Font = .body, sizing: Sizing = .hug,
        alignment: HorizontalAlignment = .leading, maxLines: Int = 1, height: Double? = nil, padding: Double = 16
    ) {
        self.element = element
        self.font = font
        self.sizing = sizing
        self.alignment = alignment
        self.maxLines = maxLines
        self.height = height
        self.padding = padding
    }
}

/// What a row does when its leaves do not fit.
public enum Overflow: String, Sendable, Hashable {
    /// Hugging leaves shrink (their text truncates or wraps); fixed leaves keep their width.
    case shrink
    /// Leaves move to the next line.
    case wrap
    /// Leaves keep their widths and run past the edge.
    case clip
}

/// A horizontal stack of leaves, laid out from the leading edge (mirrored in right-to-left).
public struct LayoutRow: Sendable, Hashable {
    public var leaves: [LayoutLeaf]
    public var spacing: Double
    public var overflow: Overflow

    public init(_ leaves: [LayoutLeaf], spacing: Double = 12, overflow: Overflow = .shrink) {
        self.leaves = leaves
        self.spacing = spacing
        self.overflow = overflow
    }
}

/// A container element spanning body rows (e.g. the product list).
public struct ContainerSpec: Sendable, Hashable {
    public var element: SurfaceElement
    public var rows: Range<Int>

    public init(element: SurfaceElement, rows: Range<Int>) {
        self.element = element
        self.rows = rows
    }
}

/// A screen's layout description: what a view hierarchy would declare.
public struct ScreenSpec: Sendable, Hashable {
    public var screen: String
    public var navLeading: LayoutLeaf?
    public var navTitle: LayoutLeaf?
    public var navTrailing: [LayoutLeaf] = []
    public var body: [LayoutRow] = []
    public var containers: [ContainerSpec] = []
    public var bottom: [LayoutRow] = []
    public var banner: LayoutLeaf?
    /// A modal alert over the screen.
    public var alert: AlertSpec?
    /// How far the body is scrolled, in points.
    public var scrollOffset: Double = 0

    /// A modal alert: its element (whose label is the title) and its buttons, in leading-to-trailing order.
    public struct AlertSpec: Sendable, Hashable {
        public var container: SurfaceElement
        public var buttons: [SurfaceElement]

        public init(container: SurfaceElement, buttons: [SurfaceElement]) {
            self.container = container
            self.buttons = buttons
        }
    }

    public init(screen: String) { self.screen = screen }
}

/// Lays screens out by simple, honest rules and reports what the rules find.
///
/// - Text is one line wide by `TextMetrics`; a leaf with `maxLines > 1` wraps, else it truncates when its room is
///   narrower than its text. Buttons add padding; fixed-width leaves never shrink.
/// - Rows run from the leading edge; in right-to-left every row is mirrored, and text alignment inside a leaf
///   follows `HorizontalAlignment` (`left`/`right` do not mirror).
/// - The navigation bar centres its title over the whole bar, between a leading and trailing buttons.
/// - Findings: truncated text, overlapping elements of one layer, elements past the window's edges, elements
///   not at the mirror image of their left-to-right place (in right-to-left), and, under `pseudo-accented`,
///   visible copy without the pseudo brackets (hard-coded strings).
public enum LayoutEngine {
    public static let navBarHeight = 50.0
    public static let margin = 16.0
    static let rowGap = 12.0

    /// The layout of `spec` for a viewport and direction, with its findings.
    public static func layout(
        _ spec: ScreenSpec, width: Int, height: Int, direction: TextDirection,
        pseudo: PseudoMode
    ) -> (elements: [SurfaceElement], findings: [LayoutFinding]) {
        var pass = place(spec, width: Double(width), height: Double(height), rtl: direction.isRightToLeft)
        var findings = pass.findings
        if direction.isRightToLeft {
            let reference = place(spec, width: Double(width), height: Double(height), rtl: false)
            var expected: [String: Rect] = [:]
            for element in reference.elements where element.role != .container { expected[element.id] = element.frame }
            for element in pass.elements where ![.container, .alert, .banner].contains(element.role) {
                guard let ltr = expected[element.id] else { continue }
                let mirror = ltr.mirrored(inWidth: Double(width))
                if abs(mirror.x - element.frame.x) > 0.5 {
                    findings.append(
                        LayoutFinding(
                            kind: .notMirrored, element: element.id, other: nil,
                            message:
                                "'\(element.id)' is not mirrored for right-to-left: it is at x \(fmt(element.frame.x))–\(fmt(element.frame.maxX)) but the mirror of its left-to-right place is x \(fmt(mirror.x))–\(fmt(mirror.maxX)) (a left/right alignment where leading/trailing belongs?)"
                        ))
                }
            }
        }
        if pseudo == .accented {
            for element in pass.elements
            where !element.isContent && !element.label.isEmpty
                && ![.container, .image].contains(element.role)
                && !Pseudolocalizer.looksLocalized(element.label, mode: .accented)
            {
                findings.append(
                    LayoutFinding(
                        kind: .notLocalized, element: element.id, other: nil,
                        message:
                            "'\(element.id)' shows “\(element.label)” without pseudolocalization: the string is hard-coded, not read from a string table"
                    ))
            }
        }
        pass.elements = pass.elements.map { e in
            var e = e
            e.frame = Rect(
                x: round1(e.frame.x), y: round1(e.frame.y), width: round1(e.frame.width), height: round1(e.frame.height)
            )
            return e
        }
        return (pass.elements, findings)
    }

    static func fmt(_ v: Double) -> String {
        let r = round1(v)
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}

extension ScreenSpec {
    /// The spec with its body, bottom bar and banner drawn at text `scale` (the `textSize` axis). The navigation bar
    /// and alerts keep their size (bars show large text in a large content viewer instead), and so do buttons of a
    /// fixed size (icon buttons: a glyph in a fixed frame).
    public func scaled(by scale: Double) -> ScreenSpec {
        guard scale != 1 else { return self }
        func scaled(_ leaf: LayoutLeaf) -> LayoutLeaf {
            if case .fixed = leaf.sizing, leaf.element.role == .button { return leaf }
            var leaf = leaf
            leaf.textScale = scale
            return leaf
        }
        func scaledRow(_ row: LayoutRow) -> LayoutRow {
            var row = row
            row.leaves = row.leaves.map(scaled)
            return row
        }
        var spec = self
        spec.body = body.map(scaledRow)
        spec.bottom = bottom.map(scaledRow)
        spec.banner = banner.map(scaled)
        return spec
    }
}
