/// Placing a screen: the navigation bar, the scrolled body, the bottom bar, a banner and a modal alert, each in its
/// layer, then the findings that compare elements (overlaps within a layer, elements past the window's edges).
extension LayoutEngine {
    enum Layer { case nav, body, bottom, overlay }

    /// The elements placed so far, each with its layer, and the findings noted on the way.
    struct Pass {
        var elements: [SurfaceElement] = []
        var layers: [Layer] = []
        var findings: [LayoutFinding] = []

        mutating func add(_ element: SurfaceElement, _ layer: Layer) {
            elements.append(element)
            layers.append(layer)
        }

        mutating func noteTruncation(_ e: SurfaceElement, natural: Double?) {
            LayoutEngine.noteTruncation(e, natural: natural, into: &findings)
        }
    }

    typealias PlacedRow = (placed: [SurfaceElement], natural: [Double?], height: Double)

    static func place(_ spec: ScreenSpec, width: Double, height: Double, rtl: Bool) -> Pass {
        var pass = Pass()
        // Bottom bar first: its height bounds the body's visible area.
        var bottomRows: [PlacedRow] = []
        var bottomHeight = 0.0
        for row in spec.bottom {
            let r = layoutRow(row, containerX: margin, containerWidth: width - 2 * margin, rtl: rtl)
            bottomRows.append(r)
            bottomHeight += r.height + 10
        }
        if !spec.bottom.isEmpty { bottomHeight += 10 }
        let bodyBottom = height - bottomHeight

        placeNavigationBar(spec, width: width, rtl: rtl, into: &pass)
        placeBody(spec, width: width, top: navBarHeight, bottom: bodyBottom, rtl: rtl, into: &pass)
        placeBottomBar(bottomRows, top: bodyBottom + 10, into: &pass)
        if let banner = spec.banner { placeBanner(banner, width: width, rtl: rtl, into: &pass) }
        if let alert = spec.alert { placeAlert(alert, width: width, height: height, rtl: rtl, into: &pass) }
        noteOverlapsAndEdges(width: width, into: &pass)
        return pass
    }

    private static func placeNavigationBar(_ spec: ScreenSpec, width: Double, rtl: Bool, into pass: inout Pass) {
        if let leading = spec.navLeading {
            var r = layoutRow(LayoutRow([leading]), containerX: 8, containerWidth: width - 16, rtl: rtl)
            // A hugging leaf sits at the leading edge.
            r.placed[0].frame.y = (navBarHeight - r.placed[0].frame.height) / 2
            pass.add(visible(r.placed[0], top: 0, bottom: navBarHeight), .nav)
            pass.noteTruncation(r.placed[0], natural: r.natural[0])
        }
        if !spec.navTrailing.isEmpty {
            // Trailing leaves: a row whose leading part is empty.
            var spacer = SurfaceElement(id: "", role: .container, label: "")
            spacer.isContent = true
            let row = LayoutRow([LayoutLeaf(spacer, sizing: .fill)] + spec.navTrailing, spacing: 8)
            let r = layoutRow(row, containerX: 8, containerWidth: width - 16, rtl: rtl)
            for (i, var e) in r.placed.enumerated().dropFirst() {
                e.frame.y = (navBarHeight - e.frame.height) / 2
                pass.add(visible(e, top: 0, bottom: navBarHeight), .nav)
                pass.noteTruncation(e, natural: r.natural[i])
            }
        }
        if let title = spec.navTitle {
            var e = title.element
            let natural = title.textWidth(e.label)
            let room = width - 16
            e.isTruncated = natural > room
            let w = min(natural, room)
            e.frame = Rect(
                x: (width - w) / 2, y: (navBarHeight - title.lineHeight) / 2, width: w, height: title.lineHeight)
            e.fontSize = title.font.size * title.textScale
            e.isBold = true
            pass.add(visible(e, top: 0, bottom: navBarHeight), .nav)
            pass.noteTruncation(e, natural: natural)
        }
    }

    /// Body rows, scrolled, and the containers that frame runs of them; visible between `top` and `bottom`.
    private static func placeBody(
        _ spec: ScreenSpec, width: Double, top bodyTop: Double, bottom bodyBottom: Double, rtl: Bool,
        into pass: inout Pass
    ) {
        var y = bodyTop + rowGap - spec.scrollOffset
        var rowFrames: [(minY: Double, maxY: Double)] = []
        var bodyElements: [SurfaceElement] = []
        for row in spec.body {
            var r = layoutRow(row, containerX: margin, containerWidth: width - 2 * margin, rtl: rtl)
            for i in r.placed.indices {
                r.placed[i].frame.y += y
                pass.noteTruncation(r.placed[i], natural: r.natural[i])
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
            pass.add(e, .body)
        }
        for e in bodyElements { pass.add(e, .body) }
    }

    private static func placeBottomBar(_ rows: [PlacedRow], top: Double, into pass: inout Pass) {
        var by = top
        for r in rows {
            for (i, var e) in r.placed.enumerated() {
                e.frame.y += by
                e.isVisible = true
                e.isHittable = true
                pass.add(e, .bottom)
                pass.noteTruncation(e, natural: r.natural[i])
            }
            by += r.height + 10
        }
    }

    /// A banner covers what is under it.
    private static func placeBanner(_ banner: LayoutLeaf, width: Double, rtl: Bool, into pass: inout Pass) {
        var r = layoutRow(LayoutRow([banner]), containerX: 8, containerWidth: width - 16, rtl: rtl)
        var e = r.placed[0]
        e.frame = Rect(x: 8, y: 6, width: width - 16, height: e.frame.height + 16)
        e.isVisible = true
        e.isHittable = true
        r.placed[0] = e
        for i in pass.elements.indices where pass.elements[i].frame.overlapArea(with: e.frame) > 0 {
            pass.elements[i].isHittable = false
        }
        pass.add(e, .overlay)
    }

    /// A modal alert covers everything.
    private static func placeAlert(
        _ alert: ScreenSpec.AlertSpec, width: Double, height: Double, rtl: Bool, into pass: inout Pass
    ) {
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
        pass.add(container, .overlay)
        pass.noteTruncation(container, natural: title.natural[0])
        let buttons = LayoutRow(alert.buttons.map { LayoutLeaf($0, sizing: .fill, padding: 8) }, spacing: 0)
        let r = layoutRow(buttons, containerX: x, containerWidth: alertWidth, rtl: rtl)
        for (i, var e) in r.placed.enumerated() {
            e.frame.y += top + boxHeight - 44
            e.isVisible = true
            e.isHittable = true
            pass.add(e, .overlay)
            pass.noteTruncation(e, natural: r.natural[i])
        }
    }

    /// Overlaps within a layer (overlays excepted), and elements past the window's edges.
    private static func noteOverlapsAndEdges(width: Double, into pass: inout Pass) {
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
        let needs =
            natural.map {
                $0 > e.frame.width + 0.01
                    ? " needs \(fmt($0)) pt but has \(fmt(e.frame.width)) pt"
                    : " is taller than its \(fmt(e.frame.height)) pt box"
            } ?? " does not fit"
        findings.append(
            LayoutFinding(
                kind: .truncated, element: e.id, other: nil,
                message: "'\(e.id)' is truncated: “\(e.label)”\(needs)"))
    }
}
