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

    private enum Layer { case nav, body, bottom, overlay }

    private struct Pass {
        var elements: [SurfaceElement] = []
        var layers: [Layer] = []
        var findings: [LayoutFinding] = []
    }

    private static func place(_ spec: ScreenSpec, width: Double, height: Double, rtl: Bool) -> Pass {
        var pass = Pass()
        func add(_ element: SurfaceElement, _ layer: Layer) {
            pass.elements.append(element)
            pass.layers.append(layer)
        }
        // Bottom bar first: its height bounds the body's visible area.
        var bottomRows: [(placed: [SurfaceElement], natural: [Double?], height: Double)] = []
        var bottomHeight = 0.0
        for row in spec.bottom {
            let r = layoutRow(row, containerX: margin, containerWidth: width - 2 * margin, rtl: rtl)
            bottomRows.append(r)
            bottomHeight += r.height + 10
        }
        if !spec.bottom.isEmpty { bottomHeight += 10 }
        let bodyTop = navBarHeight
        let bodyBottom = height - bottomHeight

        // Navigation bar.
        if let leading = spec.navLeading {
            var r = layoutRow(LayoutRow([leading]), containerX: 8, containerWidth: width - 16, rtl: rtl)
            // A hugging leaf sits at the leading edge.
            r.placed[0].frame.y = (navBarHeight - r.placed[0].frame.height) / 2
            add(visible(r.placed[0], top: 0, bottom: navBarHeight), .nav)
            noteTruncation(r.placed[0], natural: r.natural[0], into: &pass.findings)
        }
        if !spec.navTrailing.isEmpty {
            // Trailing leaves: a row whose leading part is empty.
            var spacer = SurfaceElement(id: "", role: .container, label: "")
            spacer.isContent = true
            let row = LayoutRow([LayoutLeaf(spacer, sizing: .fill)] + spec.navTrailing, spacing: 8)
            let r = layoutRow(row, containerX: 8, containerWidth: width - 16, rtl: rtl)
            for (i, var e) in r.placed.enumerated().dropFirst() {
                e.frame.y = (navBarHeight - e.frame.height) / 2
                add(visible(e, top: 0, bottom: navBarHeight), .nav)
                noteTruncation(e, natural: r.natural[i], into: &pass.findings)
            }
        }
        if let title = spec.navTitle {
            var e = title.element
            let natural = TextMetrics.width(e.label, font: title.font)
            let room = width - 16
            e.isTruncated = natural > room
            let w = min(natural, room)
            e.frame = Rect(
                x: (width - w) / 2, y: (navBarHeight - title.font.lineHeight) / 2, width: w,
                height: title.font.lineHeight)
            add(visible(e, top: 0, bottom: navBarHeight), .nav)
            noteTruncation(e, natural: natural, into: &pass.findings)
        }

        // Body rows, scrolled.
        var y = bodyTop + rowGap - spec.scrollOffset
        var rowFrames: [(minY: Double, maxY: Double)] = []
        var bodyElements: [SurfaceElement] = []
        for row in spec.body {
            var r = layoutRow(row, containerX: margin, containerWidth: width - 2 * margin, rtl: rtl)
            for i in r.placed.indices {
                r.placed[i].frame.y += y
                noteTruncation(r.placed[i], natural: r.natural[i], into: &pass.findings)
            }
            rowFrames.append((y, y + r.height))
            bodyElements += r.placed.map { visible($0, top: bodyTop, bottom: bodyBottom) }
            y += r.height + rowGap
        }
        for container in spec.containers where !container.rows.isEmpty && container.rows.upperBound <= rowFrames.count {
            var e = container.element
            let top = rowFrames[container.rows.lowerBound].minY, bottom = rowFrames[container.rows.upperBound - 1].maxY
            e.frame = Rect(x: margin, y: top, width: width - 2 * margin, height: bottom - top)
            let visibleTop = max(top, bodyTop), visibleBottom = min(bottom, bodyBottom)
            e.isVisible = visibleBottom > visibleTop
            e.isHittable = e.isVisible
            add(e, .body)
        }
        for e in bodyElements { add(e, .body) }

        // Bottom bar.
        var by = bodyBottom + 10
        for r in bottomRows {
            for (i, var e) in r.placed.enumerated() {
                e.frame.y += by
                e.isVisible = true
                e.isHittable = true
                add(e, .bottom)
                noteTruncation(e, natural: r.natural[i], into: &pass.findings)
            }
            by += r.height + 10
        }

        // Banner (covers what is under it).
        if let banner = spec.banner {
            var r = layoutRow(LayoutRow([banner]), containerX: 8, containerWidth: width - 16, rtl: rtl)
            var e = r.placed[0]
            e.frame = Rect(x: 8, y: 6, width: width - 16, height: e.frame.height + 16)
            e.isVisible = true
            e.isHittable = true
            r.placed[0] = e
            for i in pass.elements.indices where pass.elements[i].frame.overlapArea(with: e.frame) > 0 {
                pass.elements[i].isHittable = false
            }
            add(e, .overlay)
        }

        // Modal alert (covers everything).
        if let alert = spec.alert {
            let alertWidth = min(270, width - 40)
            let x = (width - alertWidth) / 2
            let titleLeaf = LayoutLeaf(alert.container, font: .headline, sizing: .fill, alignment: .center, maxLines: 4)
            let title = layoutRow(LayoutRow([titleLeaf]), containerX: x + 16, containerWidth: alertWidth - 32, rtl: rtl)
            let boxHeight = title.height + 40 + 44
            let top = max(8, (height - boxHeight) / 2)
            for i in pass.elements.indices {
                pass.elements[i].isHittable = false
                pass.elements[i].isCoveredByModal = true
            }
            var container = alert.container
            container.frame = Rect(x: x, y: top, width: alertWidth, height: boxHeight)
            container.isTruncated = title.placed[0].isTruncated
            container.isVisible = true
            container.isHittable = true
            add(container, .overlay)
            noteTruncation(container, natural: title.natural[0], into: &pass.findings)
            let buttons = LayoutRow(alert.buttons.map { LayoutLeaf($0, sizing: .fill, padding: 8) }, spacing: 0)
            let r = layoutRow(buttons, containerX: x, containerWidth: alertWidth, rtl: rtl)
            for (i, var e) in r.placed.enumerated() {
                e.frame.y += top + boxHeight - 44
                e.isVisible = true
                e.isHittable = true
                add(e, .overlay)
                noteTruncation(e, natural: r.natural[i], into: &pass.findings)
            }
        }

        // Overlaps within a layer, and elements past the window's edges.
        for i in pass.elements.indices where pass.elements[i].role != .container && pass.layers[i] != .overlay {
            for j in pass.elements.indices
            where j > i && pass.layers[j] == pass.layers[i] && pass.elements[j].role != .container {
                let a = pass.elements[i], b = pass.elements[j]
                if a.frame.overlapArea(with: b.frame) > 1 {
                    pass.findings.append(
                        LayoutFinding(
                            kind: .overlapping, element: a.id, other: b.id,
                            message:
                                "'\(a.id)' overlaps '\(b.id)' (x \(fmt(a.frame.x))–\(fmt(a.frame.maxX)) and x \(fmt(b.frame.x))–\(fmt(b.frame.maxX)))"
                        ))
                }
            }
        }
        for e in pass.elements where e.role != .container && (e.frame.x < -0.5 || e.frame.maxX > width + 0.5) {
            pass.findings.append(
                LayoutFinding(
                    kind: .offScreen, element: e.id, other: nil,
                    message:
                        "'\(e.id)' is off screen: x \(fmt(e.frame.x))–\(fmt(e.frame.maxX)) runs past the \(fmt(width)) pt window"
                ))
        }
        return pass
    }

    private static func visible(_ element: SurfaceElement, top: Double, bottom: Double) -> SurfaceElement {
        var e = element
        let mid = e.frame.y + e.frame.height / 2
        e.isVisible = mid >= top && mid <= bottom
        e.isHittable = e.isVisible
        return e
    }

    private static func noteTruncation(_ e: SurfaceElement, natural: Double?, into findings: inout [LayoutFinding]) {
        guard e.isTruncated else { return }
        let needs = natural.map { " needs \(fmt($0)) pt but has \(fmt(e.frame.width)) pt" } ?? " does not fit"
        findings.append(
            LayoutFinding(
                kind: .truncated, element: e.id, other: nil,
                message: "'\(e.id)' is truncated: “\(e.label)”\(needs)"))
    }

    /// The natural width of a leaf's content (text plus padding for buttons and fields).
    private static func naturalWidth(_ leaf: LayoutLeaf) -> Double {
        let text = TextMetrics.width(leaf.element.label, font: leaf.font)
        switch leaf.element.role {
        case .button: return text + 2 * leaf.padding
        case .field: return max(120, text + 24)
        case .toggle: return 51
        case .indicator: return 20
        case .image: return 44
        default: return text
        }
    }

    private static func defaultHeight(_ leaf: LayoutLeaf) -> Double {
        if let h = leaf.height { return h }
        switch leaf.element.role {
        case .button, .field: return 44
        case .toggle: return 31
        case .indicator: return 20
        case .image: return 44
        default: return leaf.font.lineHeight
        }
    }

    /// Lays a row out in a container; frames are relative to the row's top (y), absolute in x.
    /// - Returns: the placed elements, each leaf's natural width (for findings), and the row's height.
    static func layoutRow(
        _ row: LayoutRow, containerX: Double, containerWidth: Double,
        rtl: Bool
    ) -> (placed: [SurfaceElement], natural: [Double?], height: Double) {
        let leaves = row.leaves
        let naturals = leaves.map(naturalWidth)
        var slots = Array(repeating: 0.0, count: leaves.count)
        var offsets = Array(repeating: 0.0, count: leaves.count)
        var lineOf = Array(repeating: 0, count: leaves.count)
        let W = containerWidth

        func desired(_ i: Int) -> Double {
            switch leaves[i].sizing {
            case .hug: naturals[i]
            case .fixed(let w): w
            case .fill: 0
            }
        }

        switch row.overflow {
        case .shrink:
            let available = W - row.spacing * Double(max(0, leaves.count - 1))
            var fixedSum = 0.0, hugSum = 0.0, fills = 0
            for (i, leaf) in leaves.enumerated() {
                switch leaf.sizing {
                case .fixed(let w): fixedSum += w
                case .hug: hugSum += naturals[i]
                case .fill: fills += 1
                }
            }
            let hugScale = fixedSum + hugSum <= available ? 1 : max(0, available - fixedSum) / max(hugSum, 1)
            let fillWidth = fills > 0 ? max(0, available - fixedSum - hugSum) / Double(fills) : 0
            for (i, leaf) in leaves.enumerated() {
                switch leaf.sizing {
                case .fixed(let w): slots[i] = w
                case .hug: slots[i] = naturals[i] * hugScale
                case .fill: slots[i] = fillWidth
                }
            }
            var x = 0.0
            for i in leaves.indices {
                offsets[i] = x
                x += slots[i] + row.spacing
            }
        case .wrap, .clip:
            var x = 0.0, line = 0
            for i in leaves.indices {
                var w = leaves[i].sizing == .fill ? max(0, W - x) : desired(i)
                if row.overflow == .wrap {
                    if x > 0 && x + w > W + 0.01 {
                        line += 1
                        x = 0
                        if leaves[i].sizing == .fill { w = W }
                    }
                    w = min(w, W)
                }
                slots[i] = w
                offsets[i] = x
                lineOf[i] = line
                x += w + row.spacing
            }
        }

        var placed: [SurfaceElement] = []
        var heights: [Double] = []
        for (i, leaf) in leaves.enumerated() {
            var e = leaf.element
            let slot = slots[i]
            var frameWidth = slot
            var h = defaultHeight(leaf)
            switch e.role {
            case .text, .alert, .banner:
                let natural = TextMetrics.width(e.label, font: leaf.font)
                if natural <= slot + 0.01 {
                    frameWidth = leaf.sizing == .fill || e.role != .text ? (e.role == .text ? natural : slot) : natural
                } else if leaf.maxLines > 1, slot > 1 {
                    let lines = Int((natural / slot).rounded(.up))
                    e.isTruncated = lines > leaf.maxLines
                    h = leaf.font.lineHeight * Double(min(lines, leaf.maxLines))
                    frameWidth = slot
                } else {
                    e.isTruncated = true
                    frameWidth = slot
                }
            case .button:
                e.isTruncated = naturals[i] > slot + 0.01
            default:
                break
            }
            // Physical x of the slot, then of the frame inside it.
            let slotX = rtl ? containerX + W - offsets[i] - slot : containerX + offsets[i]
            let free = max(0, slot - frameWidth)
            let x: Double =
                switch leaf.alignment {
                case .leading: rtl ? slotX + free : slotX
                case .trailing: rtl ? slotX : slotX + free
                case .center: slotX + free / 2
                case .left: slotX
                case .right: slotX + free
                }
            e.frame = Rect(x: x, y: 0, width: frameWidth, height: h)
            placed.append(e)
            heights.append(h)
        }
        // Vertical placement: lines stack; leaves centre on their line.
        let lineCount = (lineOf.max() ?? 0) + 1
        var lineHeights = Array(repeating: 0.0, count: lineCount)
        for i in placed.indices { lineHeights[lineOf[i]] = max(lineHeights[lineOf[i]], heights[i]) }
        var lineTops = Array(repeating: 0.0, count: lineCount)
        for l in 1..<max(1, lineCount) { lineTops[l] = lineTops[l - 1] + lineHeights[l - 1] + 8 }
        for i in placed.indices {
            placed[i].frame.y = lineTops[lineOf[i]] + (lineHeights[lineOf[i]] - heights[i]) / 2
        }
        let total = (lineTops.last ?? 0) + (lineHeights.last ?? 0)
        return (placed, naturals.map { Optional($0) }, total)
    }
}
