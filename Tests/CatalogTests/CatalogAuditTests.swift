import CatalogApp
import FlowSpec
import Foundation
import MatrixPlan
import Testing

/// The accessibility audit on Catalog surfaces (`assert page accessible`, `CatalogAudit`): each rule on surfaces built
/// to pass and to fail it, and the Catalog's seeded defects found exactly in their configurations.
@Suite("Catalog accessibility audit")
struct CatalogAuditTests {
    private func element(
        _ id: String, _ role: ElementRole, _ label: String, frame: Rect = Rect(x: 0, y: 100, width: 100, height: 44)
    ) -> SurfaceElement {
        var e = SurfaceElement(id: id, role: role, label: label)
        e.frame = frame
        e.isVisible = true
        e.isHittable = true
        return e
    }

    private func surface(_ elements: [SurfaceElement], findings: [LayoutFinding] = [], language: String = "en")
        -> Surface {
        Surface(
            screen: "catalog", viewportWidth: 320, viewportHeight: 720, orientation: "portrait", direction: "ltr",
            locale: "en", pseudo: "none", elements: elements, findings: findings, modal: nil, language: language)
    }

    private func rules(_ s: Surface, locale: String = "en") -> [String] {
        CatalogAudit.findings(s, locale: locale).map { "\($0.rule.code) \($0.element)" }.sorted()
    }

    @Test("WCAG 2.2 contrast ratios: 21:1 black on white, 1:1 for equal colours, #767676 on white just passes AA")
    func contrastRatios() {
        #expect(abs(RGB.contrast(RGB(0x000000), RGB(0xFFFFFF)) - 21) < 0.001)
        #expect(abs(RGB.contrast(RGB(0x336699), RGB(0x336699)) - 1) < 0.001)
        let grey = RGB.contrast(RGB(0x767676), RGB(0xFFFFFF))
        #expect(grey > 4.5 && grey < 4.6)
        #expect(RGB(hex: "#5E5E63") == RGB(0x5E5E63) && RGB(0x0A5FCC).description == "#0A5FCC")
        #expect(RGB(hex: "5E5E63") == nil && RGB(hex: "#GGGGGG") == nil)
    }

    @Test("AX001: a control named only by a glyph has no name; an accessibility label names it")
    func unnamed() {
        var named = element("a.named", .button, "+")
        named.accessibilityLabel = "Add"
        let s = surface([element("a.glyph", .button, "⚙"), named, element("a.text", .button, "Sign in"),
                         element("a.label", .text, "⚙")])
        #expect(rules(s) == ["AX001 a.glyph"])
    }

    @Test("AX002: small text needs 4.5:1, large (18 pt, or 14 pt bold) 3:1; disabled controls are exempt")
    func contrast() {
        func text(_ id: String, size: Double, bold: Bool = false, fg: UInt32 = 0x808080, enabled: Bool = true)
            -> SurfaceElement {
            var e = element(id, id.hasPrefix("b") ? .button : .text, "Price")
            (e.foreground, e.background, e.fontSize, e.isBold, e.isEnabled) = (RGB(fg), RGB(0xFFFFFF), size, bold, enabled)
            return e
        }
        // #808080 on white is 3.95:1: below 4.5, above 3.
        let s = surface([
            text("t.small", size: 17), text("t.large", size: 18), text("t.bold", size: 14, bold: true),
            text("t.boldSmall", size: 13, bold: true), text("b.disabled", size: 17, enabled: false),
            text("t.dark", size: 17, fg: 0x595959),
        ])
        #expect(rules(s) == ["AX002 t.boldSmall", "AX002 t.small"])
        let detail = CatalogAudit.findings(s, locale: "en").first { $0.element == "t.small" }?.detail ?? ""
        #expect(detail.contains("3.95:1 < 4.50:1") && detail.contains("#808080 on #FFFFFF"), "\(detail)")
    }

    @Test("AX003: a target under 24×24 pt fails when another target is within reach, not when it stands alone")
    func targetSize() {
        let minus = element("s.minus", .button, "Less", frame: Rect(x: 100, y: 100, width: 20, height: 20))
        let plus = element("s.plus", .button, "More", frame: Rect(x: 122, y: 100, width: 20, height: 20))
        var covered = element("s.covered", .button, "x", frame: Rect(x: 124, y: 100, width: 20, height: 20))
        covered.isHittable = false
        let alone = element("s.alone", .toggle, "On", frame: Rect(x: 10, y: 400, width: 20, height: 20))
        let big = element("s.big", .button, "Go", frame: Rect(x: 200, y: 400, width: 44, height: 44))
        #expect(rules(surface([minus, plus, covered, alone, big])) == ["AX003 s.minus", "AX003 s.plus"])
        let spaced = element("s.plus", .button, "More", frame: Rect(x: 150, y: 100, width: 20, height: 20))
        #expect(rules(surface([minus, spaced])).isEmpty)
    }

    @Test("AX004: copy in the development language under another locale; a regional locale of the same language passes")
    func language() {
        #expect(rules(surface([], language: "en"), locale: "sw") == ["AX004 catalog"])
        #expect(rules(surface([], language: "en"), locale: "en-GB").isEmpty)
        #expect(rules(surface([], language: "ja"), locale: "ja-JP").isEmpty)
    }

    @Test("AX005: visible text the layout found truncated; scrolled-away text is not judged")
    func clipped() {
        var hidden = element("c.hidden", .text, "Long")
        hidden.isVisible = false
        let findings = ["c.shown", "c.hidden"].map {
            LayoutFinding(kind: .truncated, element: $0, other: nil, message: "'\($0)' is truncated")
        }
        #expect(rules(surface([element("c.shown", .text, "Long"), hidden], findings: findings)) == ["AX005 c.shown"])
    }

    @Test("text grows with textSize: at AX5 a row stacks its leaves and labels wrap instead of clipping")
    func textScale() {
        var spec = ScreenSpec(screen: "catalog")
        spec.body = [LayoutRow([
            LayoutLeaf(SurfaceElement(id: "r.title", role: .text, label: "Waterproof Hiking Boots"), sizing: .fill),
            LayoutLeaf(SurfaceElement(id: "r.price", role: .text, label: "$120.00")),
        ])]
        func layout(_ scale: Double) -> [SurfaceElement] {
            LayoutEngine.layout(spec.scaled(by: scale), width: 320, height: 720, direction: .leftToRight, pseudo: .none).0
        }
        let large = layout(1), ax5 = layout(TextSize.ax5.scale)
        let title = { (es: [SurfaceElement]) in es.first { $0.id == "r.title" }! }
        let price = { (es: [SurfaceElement]) in es.first { $0.id == "r.price" }! }
        #expect(title(large).fontSize == 17 && abs((title(ax5).fontSize ?? 0) - 53) < 0.1)
        #expect(price(large).frame.y == title(large).frame.y)
        #expect(price(ax5).frame.y > title(ax5).frame.maxY - 0.01, "stacked below the title")
        #expect(!title(ax5).isTruncated && title(ax5).frame.height > title(large).frame.height)
    }

    @Test("assert page accessible fails the step with the findings' codes; `page` takes no other clause")
    func registryStep() async throws {
        let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.configuration(["appearance": "dark"]), seed: 1)
        try await registry.execute(Step(verb: .open, target: "catalog"))
        try await registry.execute(Step(verb: .wait, target: "catalog.list", arg: "5"))
        do {
            try await registry.execute(Step(verb: .assert, target: "page", arg: "accessible"))
            Issue.record("the dark catalog passed its audit")
        } catch StepError.assertionFailed(let message) {
            #expect(message.hasPrefix("accessibility audit: "))
            #expect(AuditFinding.parse(message).contains { $0.rule == .contrast && $0.element == "catalog.item.0.price" })
        }
        await #expect(throws: StepError.self) { try await registry.execute(Step(verb: .assert, target: "page", arg: "visible")) }
        let light = try CatalogWorkerKit.makeRegistry(configuration: Corpus.baseline, seed: 1)
        try await light.execute(Step(verb: .open, target: "catalog"))
        try await light.execute(Step(verb: .assert, target: "page", arg: "accessible"))
    }

    @Test("the manifest publishes `assert page accessible` and the appearance, textSize and contrast axes (not motion)")
    func manifest() {
        let m = CatalogRegistry.manifest
        #expect(m.steps?.contains { $0.verb == "assert" && $0.targets.contains("page") } == true)
        #expect(m.assertClauses?.contains { $0.targets == ["page"] && $0.clauses == ["accessible"] } == true)
        let axes = Set(m.axes ?? [])
        #expect(axes.isSuperset(of: ["appearance", "textSize", "contrast"]) && !axes.contains("motion"))
    }

    /// Every scenario of the corpus, audited after every step (as `policy.audit: every-step` does, but going on after
    /// a finding so that every one is seen): the (rule, element) pairs found under `changes`.
    private func sweep(_ changes: [String: String]) async throws -> Set<String> {
        var seen: Set<String> = []
        for scenario in try Corpus.scenarios() {
            await Task.yield()
            let registry = try CatalogWorkerKit.makeRegistry(configuration: Corpus.configuration(changes), seed: 1)
            for step in scenario.steps {
                do { try await registry.execute(step) } catch { break }
                guard step.verb != .request else { continue }
                let surface = await registry.engine.surface()
                for f in CatalogAudit.findings(surface, locale: registry.conditions.locale) {
                    // Numbered ids (list rows, cart lines) stand for their family.
                    let family = f.element.replacingOccurrences(of: #"\.\d+\."#, with: ".N.", options: .regularExpression)
                    seen.insert("\(f.rule.code) \(family)")
                }
            }
        }
        return seen
    }

    @Test("the corpus audited at every step: each seeded defect only in its configuration, nothing else anywhere",
          arguments: [
            ([:], []),
            (["appearance": "dark"], ["AX002 cart.line.N.price", "AX002 cart.total.amount", "AX002 catalog.item.N.price",
                                      "AX002 item.price"]),
            (["textSize": "AX5"], ["AX005 item.add-to-cart"]),
            (["textSize": "AX3"], []),
            (["window": "narrow-portrait"], ["AX003 cart.line.N.decrement", "AX003 cart.line.N.increment"]),
            (["locale": "ja"], ["AX001 catalog.settings-button"]),
            (["locale": "ar", "direction": "rtl"], []),
            (["contrast": "more"], []),
          ] as [([String: String], [String])])
    func seededDefects(changes: [String: String], expected: [String]) async throws {
        #expect(try await sweep(changes) == Set(expected))
    }
}
