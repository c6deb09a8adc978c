/// Laying out one row of leaves: horizontal slots by the row's overflow rule, each leaf's frame inside its slot
/// (mirrored for right-to-left), then the lines stacked vertically.
extension LayoutEngine {
    /// The natural width of a leaf's content (text plus padding for buttons and fields).
    private static func naturalWidth(_ leaf: LayoutLeaf) -> Double {
        let text = leaf.textWidth(leaf.element.label)
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
        case .button, .field: return max(44, leaf.lineHeight + 16)
        case .toggle: return 31
        case .indicator: return 20
        case .image: return 44
        default: return leaf.lineHeight
        }
    }

    /// Where each leaf's slot starts and how wide it is (in the writing direction), and which line it is on.
    private struct Slots {
        var widths: [Double]
        var offsets: [Double]
        var lineOf: [Int]
    }

    /// Lays a row out in a container; frames are relative to the row's top (y), absolute in x.
    /// - Returns: the placed elements, each leaf's natural width (for findings), and the row's height.
    static func layoutRow(
        _ row: LayoutRow, containerX: Double, containerWidth: Double,
        rtl: Bool
    ) -> (placed: [SurfaceElement], natural: [Double?], height: Double) {
        let naturals = row.leaves.map(naturalWidth)
        // At the accessibility text sizes a row that would shrink its leaves stacks them instead (as apps switch
        // an HStack to a VStack for Dynamic Type's accessibility sizes).
        let stacks = row.overflow == .shrink && row.leaves.contains { $0.textScale >= LayoutLeaf.accessibilityScale }
        let slots =
            row.overflow == .shrink && !stacks
            ? shrinkSlots(row, naturals: naturals, width: containerWidth)
            : flowSlots(row, naturals: naturals, width: containerWidth, wraps: row.overflow == .wrap || stacks)
        var placed: [SurfaceElement] = []
        var heights: [Double] = []
        for (i, leaf) in row.leaves.enumerated() {
            let (e, h) = placeLeaf(
                leaf, natural: naturals[i], slot: slots.widths[i], offset: slots.offsets[i],
                containerX: containerX, containerWidth: containerWidth, rtl: rtl)
            placed.append(e)
            heights.append(h)
        }
        // Vertical placement: lines stack; leaves centre on their line.
        let lineOf = slots.lineOf
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

    /// One line: fixed leaves keep their width, hugging leaves shrink together when they do not fit, and fill
    /// leaves share what is left.
    private static func shrinkSlots(_ row: LayoutRow, naturals: [Double], width W: Double) -> Slots {
        let leaves = row.leaves
        var slots = Slots(
            widths: Array(repeating: 0.0, count: leaves.count), offsets: Array(repeating: 0.0, count: leaves.count),
            lineOf: Array(repeating: 0, count: leaves.count))
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
            case .fixed(let w): slots.widths[i] = w
            case .hug: slots.widths[i] = naturals[i] * hugScale
            case .fill: slots.widths[i] = fillWidth
            }
        }
        var x = 0.0
        for i in leaves.indices {
            slots.offsets[i] = x
            x += slots.widths[i] + row.spacing
        }
        return slots
    }

    /// Leaves at their desired width, one after another: `.wrap` starts a new line where a leaf does not fit,
    /// `.clip` runs past the container's edge.
    private static func flowSlots(_ row: LayoutRow, naturals: [Double], width W: Double, wraps: Bool) -> Slots {
        let leaves = row.leaves
        var slots = Slots(
            widths: Array(repeating: 0.0, count: leaves.count), offsets: Array(repeating: 0.0, count: leaves.count),
            lineOf: Array(repeating: 0, count: leaves.count))
        var x = 0.0, line = 0
        for i in leaves.indices {
            var w: Double
            switch leaves[i].sizing {
            case .hug: w = naturals[i]
            case .fixed(let fixed): w = fixed
            case .fill: w = max(0, W - x)
            }
            if wraps {
                if x > 0 && x + w > W + 0.01 {
                    line += 1
                    x = 0
                    if leaves[i].sizing == .fill { w = W }
                }
                w = min(w, W)
            }
            slots.widths[i] = w
            slots.offsets[i] = x
            slots.lineOf[i] = line
            x += w + row.spacing
        }
        return slots
    }

    /// A leaf's element in its slot: its frame (x absolute, y 0), truncation, and its height.
    private static func placeLeaf(
        _ leaf: LayoutLeaf, natural naturalWidth: Double, slot: Double, offset: Double, containerX: Double,
        containerWidth W: Double, rtl: Bool
    ) -> (SurfaceElement, Double) {
        var e = leaf.element
        var frameWidth = slot
        var h = defaultHeight(leaf)
        switch e.role {
        case .text, .alert, .banner:
            let natural = leaf.textWidth(e.label)
            let maxLines = leaf.effectiveMaxLines
            if natural <= slot + 0.01 {
                frameWidth = leaf.sizing == .fill || e.role != .text ? (e.role == .text ? natural : slot) : natural
            } else if maxLines > 1, slot > 1 {
                let lines = Int((natural / slot).rounded(.up))
                e.isTruncated = lines > maxLines
                h = leaf.lineHeight * Double(min(lines, maxLines))
                frameWidth = slot
            } else {
                e.isTruncated = true
                frameWidth = slot
            }
        case .button:
            var lines = 1
            if naturalWidth > slot + 0.01, leaf.effectiveMaxLines > 1, slot > 2 * leaf.padding {
                // A title that grows with the text size wraps inside its button, which grows to hold it.
                lines = Int((leaf.textWidth(e.label) / (slot - 2 * leaf.padding)).rounded(.up))
                e.isTruncated = lines > leaf.effectiveMaxLines
                h = max(h, leaf.lineHeight * Double(min(lines, leaf.effectiveMaxLines)) + 16)
            } else {
                e.isTruncated = naturalWidth > slot + 0.01
            }
            // A box of a fixed height does not grow: text taller than it is clipped.
            if let fixed = leaf.height, leaf.font.size * leaf.textScale * Double(lines) > fixed + 0.01 {
                e.isTruncated = true
                h = fixed
            }
        default:
            break
        }
        if e.role != .indicator, e.role != .image, e.role != .container {
            e.fontSize = (leaf.font.size * leaf.textScale * 10).rounded() / 10
            e.isBold = leaf.font.weightFactor > 1
        }
        // Physical x of the slot, then of the frame inside it.
        let slotX = rtl ? containerX + W - offset - slot : containerX + offset
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
        return (e, h)
    }
}
