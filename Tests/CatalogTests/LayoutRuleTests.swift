import CatalogApp
import RunConditions
import Testing

/// The layout rules on small synthetic screens: findings follow from widths and alignments, never from a locale.
@Suite("Layout rules")
struct LayoutRuleTests {
    func text(_ id: String, _ label: String) -> SurfaceElement { SurfaceElement(id: id, role: .text, label: label) }
    func button(_ id: String, _ label: String) -> SurfaceElement { SurfaceElement(id: id, role: .button, label: label) }

    func findings(
        _ spec: ScreenSpec, width: Int = 320, rtl: Bool = false, pseudo: PseudoMode = .none
    ) -> [LayoutFinding] {
        LayoutEngine.layout(
            spec, width: width, height: 600, direction: rtl ? .rightToLeft : .leftToRight, pseudo: pseudo
        ).findings
    }

    @Test("text widths follow the script: CJK glyphs are about twice as wide as Latin ones")
    func metrics() {
        #expect(TextMetrics.width("abcd", font: .body) == 37.4)
        #expect(TextMetrics.width("カート", font: .body) == 51)
        #expect(TextMetrics.width("\u{200F}", font: .body) == 0)
    }

    @Test("a button whose label is wider than its room is truncated, and fits when the window is wider")
    func truncation() {
        var spec = ScreenSpec(screen: "t")
        spec.body = [
            LayoutRow([
                LayoutLeaf(text("price", "€189.00")),
                LayoutLeaf(button("buy", "Put this in the basket now"), sizing: .fill),
            ])
        ]
        let narrow = findings(spec, width: 320)
        #expect(narrow.map(\.kind) == [.truncated])
        #expect(narrow.first?.element == "buy")
        #expect(findings(spec, width: 600).isEmpty)
    }

    @Test("a wrapping row moves items to the next line; a clipping row runs them off screen")
    func wrapAndClip() {
        let chips = ["one", "two", "three", "four", "five", "six"].map {
            LayoutLeaf(button("chip.\($0)", "Category \($0)"), padding: 12)
        }
        var wrap = ScreenSpec(screen: "w")
        wrap.body = [LayoutRow(chips, spacing: 8, overflow: .wrap)]
        #expect(findings(wrap).isEmpty)
        var clip = ScreenSpec(screen: "c")
        clip.body = [LayoutRow(chips, spacing: 8, overflow: .clip)]
        let offScreen = findings(clip).filter { $0.kind == .offScreen }.map(\.element)
        #expect(offScreen.contains("chip.six"))
        #expect(!offScreen.contains("chip.one"))
    }

    @Test("a long centred bar title overlaps a bar button")
    func overlap() {
        var spec = ScreenSpec(screen: "o")
        spec.navLeading = LayoutLeaf(button("back", "‹ Back to the list"), padding: 8)
        spec.navTitle = LayoutLeaf(text("title", "A rather long screen title"), font: .headline)
        #expect(findings(spec, width: 320).map(\.kind) == [.overlapping])
        #expect(findings(spec, width: 800).isEmpty)
    }

    @Test(
        "leading/trailing alignments mirror in right-to-left; left/right do not and are reported",
        arguments: [
            (HorizontalAlignment.trailing, false), (.leading, false), (.center, false), (.right, true), (.left, true),
        ])
    func mirroring(alignment: HorizontalAlignment, reported: Bool) {
        var spec = ScreenSpec(screen: "m")
        spec.body = [
            LayoutRow([
                LayoutLeaf(text("label", "Total")),
                LayoutLeaf(text("amount", "€12.00"), sizing: .fill, alignment: alignment),
            ])
        ]
        #expect(findings(spec, rtl: false).isEmpty)
        let rtl = findings(spec, rtl: true)
        #expect(rtl.map(\.element) == (reported ? ["amount"] : []))
        #expect(rtl.allSatisfy { $0.kind == .notMirrored })
    }

    @Test("under pseudo-accented, unbracketed UI copy is reported; content is not")
    func hardCoded() {
        var spec = ScreenSpec(screen: "p")
        var product = text("product", "Silk Scarf")
        product.isContent = true
        spec.body = [
            LayoutRow([LayoutLeaf(text("copy", "[Šéţţîñĝš]"))]),
            LayoutRow([LayoutLeaf(text("literal", "Version 1.0"))]),
            LayoutRow([LayoutLeaf(product)]),
        ]
        #expect(findings(spec, pseudo: .accented).map(\.element) == ["literal"])
        #expect(findings(spec, pseudo: .none).isEmpty)
    }
}
