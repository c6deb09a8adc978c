import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

extension RealChromium {
    /// Each audit rule against a page built to pass it and a page built to fail it, and the accessibility axes applied
    /// through the browser's emulation (issue 29).
    @Suite("web registry: the accessibility audit and the accessibility axes (real Chromium)", .serialized)
    struct AuditTests {
        static let pages: [String: String] = [
            // Nothing to find: named controls (one by aria-labelledby, which markup alone does not show), AA text on
            // a solid and a gradient background, 32 px targets, a lone small one (the spacing exception) and a
            // crowded small pair under a cover (not reachable, so not judged), lang.
            "pass.html": """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><style>
            body { margin: 0; font: 16px sans-serif; color: #222; background: #fff; } button { min-width: 32px; min-height: 32px; }
            </style></head><body>
            <button data-testid="named">Save</button>
            <button data-testid="labelled" aria-labelledby="lbl"><svg aria-hidden="true" width="16" height="16"></svg></button><span id="lbl">Delete</span>
            <button data-testid="icon.labelled" aria-label="Close"><svg aria-hidden="true" width="16" height="16"></svg></button>
            <input data-testid="field" aria-label="Search" style="height: 32px">
            <p data-testid="dark-on-light" style="color: #595959">readable grey</p>
            <div style="background: linear-gradient(#ffffff, #dddddd)"><p data-testid="on-gradient" style="color: #333">on a gradient</p></div>
            <div style="margin-top: 60px"><button data-testid="lone" style="min-width: 0; min-height: 0; width: 16px; height: 16px; padding: 0; font-size: 10px">x</button></div>
            <p data-testid="fits" style="width: 200px; white-space: nowrap; overflow: hidden">fits</p>
            <div style="position: relative"><button data-testid="under.a" style="min-width: 0; min-height: 0; width: 16px; height: 16px; padding: 0; font-size: 10px">a</button><button data-testid="under.b" style="min-width: 0; min-height: 0; width: 16px; height: 16px; padding: 0; font-size: 10px">b</button><div style="position: absolute; inset: 0; background: #fff"></div></div>
            <p>A sentence with an <a href="#" data-testid="inline">inline link</a> in it.</p>
            </body></html>
            """,
            // One finding per rule (two for the crowded pair), each at its identified element.
            "fail.html": """
            <!doctype html><html><head><meta charset="utf-8"><style>
            body { margin: 0; font: 16px sans-serif; color: #222; background: #fff; }
            </style></head><body>
            <button data-testid="icon" style="width: 40px; height: 40px"><svg aria-hidden="true" width="16" height="16"></svg></button>
            <p data-testid="faint" style="color: #999">too faint</p>
            <div style="background: linear-gradient(#ffffff, #444444)"><p data-testid="gradient" style="color: #777">half dark</p></div>
            <div><button data-testid="tiny.a" style="width: 16px; height: 16px; padding: 0; font-size: 10px">a</button><button data-testid="tiny.b" style="width: 16px; height: 16px; padding: 0; font-size: 10px">b</button></div>
            <div data-testid="clipped" style="width: 60px; white-space: nowrap; overflow: hidden">a label far too long</div>
            </body></html>
            """,
            // Only in some configurations: text grey in dark mode only, a label sized in rem in a px box.
            "axes.html": """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><style>
            body { margin: 0; font-family: sans-serif; color: #222; background: #fff; }
            @media (prefers-color-scheme: dark) { body { background: #121212; color: #eee; } .hint { color: #555; } }
            .label { font-size: 1rem; width: 160px; white-space: nowrap; overflow: hidden; }
            </style></head><body>
            <p class="hint" data-testid="hint">a hint</p><p class="label" data-testid="label">Add to basket</p>
            </body></html>
            """,
        ]

        static func site() throws -> TestSite {
            let site = try TestSite()
            for (name, text) in pages { try Data(text.utf8).write(to: site.root.appendingPathComponent(name)) }
            return site
        }

        static func findings(_ r: WebRegistry) async throws -> [String] {
            try await r.audit().map { "\($0.rule.code) \($0.element)" }.sorted()
        }

        @Test("a page built to pass has no finding; one built to fail has exactly its findings, named by identifier")
        func passAndFail() async throws {
            let site = try Self.site()
            do {
                let r = try await site.registry(["locale": "en"])
                try await r.step(.open, "pass.html")
                #expect(try await Self.findings(r) == [])
                try await r.step(.open, "fail.html")
                #expect(try await Self.findings(r) == [
                    "AX001 icon", "AX002 faint", "AX002 gradient", "AX003 tiny.a", "AX003 tiny.b", "AX004 html",
                    "AX005 clipped",
                ])
                let details = try await r.audit().map(\.description)
                #expect(details.contains { $0.hasPrefix("AX002 contrast at faint: 2.84:1 < 4.5:1 (text #999999 on #ffffff") },
                        "\(details)")
                #expect(details.contains { $0.hasPrefix("AX004 lang-dir at html: has no lang") })
            } catch {
                await site.close()
                throw error
            }
            await site.close()
        }

        @Test("lang and dir must match the configuration's locale and direction")
        func languageAndDirection() async throws {
            let site = try Self.site()
            do {
                let german = try await site.registry(["locale": "de"])
                try await german.step(.open, "pass.html")
                #expect(try await german.audit().map(\.description) == [
                    "AX004 lang-dir at html: lang=\"en\" does not match the configuration's language de",
                ])
                let rtl = try await site.registry(["locale": "en", "direction": "rtl"])
                try await rtl.step(.open, "pass.html")
                #expect(try await rtl.audit().map(\.description) == [
                    "AX004 lang-dir at html: lays out ltr but the configuration is rtl",
                ])
            } catch {
                await site.close()
                throw error
            }
            await site.close()
        }

        @Test("appearance, textSize, motion and contrast reach the page; the dark-only and AX5-only findings appear only there")
        func axesApplied() async throws {
            let site = try Self.site()
            do {
                let plain = try await site.registry(["locale": "en"])
                try await plain.step(.open, "axes.html")
                let probe = """
                    [matchMedia('(prefers-color-scheme: dark)').matches, matchMedia('(prefers-reduced-motion: reduce)').matches,
                     matchMedia('(prefers-contrast: more)').matches, getComputedStyle(document.documentElement).fontSize].join(' ')
                    """
                #expect(try await plain.inPage(probe).string == "false false false 16px")
                #expect(try await Self.findings(plain) == [])
                let all = try await site.registry(
                    ["locale": "en", "appearance": "dark", "textSize": "AX5", "motion": "reduced", "contrast": "more"])
                try await all.step(.open, "axes.html")
                #expect(try await all.inPage(probe).string == "true true true 50px")
                let dark = try await site.registry(["locale": "en", "appearance": "dark"])
                try await dark.step(.open, "axes.html")
                #expect(try await Self.findings(dark) == ["AX002 hint"])
                let large = try await site.registry(["locale": "en", "textSize": "AX5"])
                try await large.step(.open, "axes.html")
                #expect(try await Self.findings(large) == ["AX005 label"])
            } catch {
                await site.close()
                throw error
            }
            await site.close()
        }

        @Test("assert page accessible fails with the rule codes in its message; on an element it is an argument error")
        func assertStep() async throws {
            let site = try Self.site()
            do {
                let r = try await site.registry(["locale": "en"])
                try await r.step(.open, "pass.html")
                try await r.step(.assert, "page", "accessible")
                try await r.step(.assert, "page", "accessible;visible")
                try await r.step(.open, "fail.html")
                do {
                    try await r.step(.assert, "page", "accessible")
                    Issue.record("the audit passed a failing page")
                } catch let error as StepError {
                    #expect(error.description.contains("accessibility audit: 7 findings: AX001 no-name at icon: is a button"),
                            "\(error)")
                    #expect(AuditFinding.parse(error.description).count == 7)
                }
                await #expect(throws: StepError.self) { try await r.step(.assert, "icon", "accessible") }
            } catch {
                await site.close()
                throw error
            }
            await site.close()
        }
    }
}
