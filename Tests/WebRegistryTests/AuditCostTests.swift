import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

extension RealChromium {
    /// The cases the audit's savings (issue 29's cost per step) must not lose: each colour and backdrop is judged on
    /// its own though parsed colours and background stacks are shared, backdrops that are not ancestors still count,
    /// a hidden parent neither hides its shown text nor paints behind it, text off screen is still judged, and a
    /// control under `display: none` is no AX001 candidate (no confirmation round) while a shown one still is.
    @Suite("web registry: the audit's savings lose no finding (real Chromium)", .serialized)
    struct AuditCostTests {
        static let pages: [String: String] = [
            "backdrops.html": """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><style>
            body { margin: 0; font: 16px sans-serif; color: #222; background: #fff; }
            .card { background: #fff; padding: 4px; margin: 4px; width: 300px; }
            .card.dark { background: #1e1e1e; }
            .price { color: #595959; } .faint { color: #999; }
            .box { position: relative; width: 320px; height: 30px; margin: 4px; }
            .back { position: absolute; inset: 0; background: #111; } .front { position: relative; margin: 0; }
            .ghost { visibility: hidden; background: #111; } .ghost p { visibility: visible; color: #fff; margin: 0; }
            </style></head><body>
            <div class="card"><span class="price" data-testid="light.1">€1</span> <span class="price" data-testid="light.2">€2</span>
              <span class="faint" data-testid="light.faint">€3</span> <span class="price" data-testid="light.3">€4</span></div>
            <div class="card dark"><span class="price" data-testid="dark.1">€1</span> <span class="price" data-testid="dark.2">€2</span></div>
            <div class="box"><div class="back"></div><p class="front" data-testid="backdrop.dark" style="color: #333">on a positioned backdrop</p></div>
            <div class="box"><div class="back"></div><p class="front" data-testid="backdrop.light" style="color: #fff">on a positioned backdrop</p></div>
            <div class="ghost"><p data-testid="shown.in.hidden">white text shown inside a hidden dark parent</p></div>
            <div style="height: 1500px"></div>
            <div class="card dark"><span class="price" data-testid="below.fold">€5</span></div>
            </body></html>
            """,
            "hidden-controls.html": """
            <!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>
            <button data-testid="named">Save</button>
            <section style="display: none"><button data-testid="in.hidden.section"></button></section>
            <button data-testid="hidden.itself" hidden></button>
            </body></html>
            """,
        ]

        static func site() throws -> TestSite {
            let site = try TestSite()
            for (name, text) in pages { try Data(text.utf8).write(to: site.root.appendingPathComponent(name)) }
            return site
        }

        static func unnamed(_ r: WebRegistry, _ names: AuditNameSource) async throws -> [String] {
            try await r.audit(names: names).filter { $0.rule == .unnamed }.map(\.element).sorted()
        }

        @Test("shared colours and backdrops are judged per text; positioned, hidden-parent and off-screen cases are kept")
        func contrastCases() async throws {
            let site = try Self.site()
            do {
                let r = try await site.registry(["locale": "en"])
                try await r.step(.open, "backdrops.html")
                let findings = try await r.audit()
                #expect(findings.filter { $0.rule != .contrast }.isEmpty, "\(findings)")
                // The grey prices pass on the white card and fail on the dark one (one colour, two stacks); the faint
                // one fails on the white card (one stack, two colours); text is judged on the positioned backdrop
                // behind it, not on the page; a hidden parent paints nothing behind its shown text (white on white);
                // the dark card below the fold is still judged.
                #expect(findings.map(\.element).sorted() == [
                    "backdrop.dark", "below.fold", "dark.1", "dark.2", "light.faint", "shown.in.hidden",
                ])
                let details = Dictionary(findings.map { ($0.element, $0.detail) }, uniquingKeysWith: { a, _ in a })
                #expect(details["dark.1"]?.contains("text #595959 on #1e1e1e") == true, "\(details)")
                #expect(details["light.faint"]?.contains("text #999999 on #ffffff") == true, "\(details)")
                #expect(details["backdrop.dark"]?.contains("on #111111") == true, "\(details)")
                #expect(details["shown.in.hidden"]?.contains("text #ffffff on #ffffff") == true, "\(details)")
                // The same page again, after the dark backdrop goes: its text passes, the other one now fails.
                _ = try await r.inPage("document.querySelectorAll('.back').forEach((n) => n.remove()); true")
                let after = try await r.audit().map(\.element)
                #expect(after.contains("backdrop.light") && !after.contains("backdrop.dark"), "\(after)")
            } catch {
                await site.close()
                throw error
            }
            await site.close()
        }

        @Test("controls under display: none are no AX001 candidates (no confirmation round); shown again, they are found")
        func hiddenControls() async throws {
            let site = try Self.site()
            do {
                let r = try await site.registry(["locale": "en"])
                try await r.step(.open, "hidden-controls.html")
                #expect(try await Self.unnamed(r, .page).isEmpty)
                let kept = "globalThis[Symbol.for('flowmatrix.audit.unnamed')].length"
                #expect(try await r.inPage(kept).int == 0, "the hidden controls were candidates to confirm")
                _ = try await r.inPage(
                    """
                    document.querySelector('section').style.display = 'block';
                    document.querySelector('[data-testid="hidden.itself"]').hidden = false; true
                    """)
                let found = try await Self.unnamed(r, .page)
                #expect(found == ["hidden.itself", "in.hidden.section"])
                #expect(found == (try await Self.unnamed(r, .fullTree)))
            } catch {
                await site.close()
                throw error
            }
            await site.close()
        }
    }
}
