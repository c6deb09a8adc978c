import FlowSpec
import Foundation
import Testing
import Visual
import WebRegistry

extension RealChromium {
    /// Issue 30: a step's picture is the page's settled state, the same in every run (docs/VISUAL.md, "Stable
    /// screenshots").
    @Suite("web registry: screenshots settle and freeze (real Chromium)", .serialized, .timeLimit(.minutes(3)))
    struct ScreenshotFreezeTests {
        /// An endless CSS spinner, an endless `element.animate()` slide, a field with a caret, and a button whose
        /// click asks for data in the next frame (as frameworks batch their work) and shows the answer in a web font
        /// that is first used then.
        static let page = """
            <!doctype html><html><head><meta charset="utf-8"><style>
            @font-face { font-family: 'Late'; src: url(late.ttf); }
            body { margin: 0; font: 16px sans-serif; }
            .spin { width: 40px; height: 40px; border: 6px solid #ccc; border-top-color: #06c; border-radius: 50%;
                    animation: spin 0.7s linear infinite; }
            @keyframes spin { to { transform: rotate(360deg); } }
            #slide { width: 40px; height: 40px; background: #c60; }
            .late { font-family: 'Late', monospace; font-size: 28px; }
            </style></head><body>
            <div class="spin"></div><div id="slide"></div>
            <input data-testid="field"><button data-testid="load">load</button><div data-testid="out"></div>
            <script>
            document.getElementById('slide').animate(
              [{ transform: 'translateX(0)' }, { transform: 'translateX(300px)' }],
              { duration: 900, iterations: Infinity });
            document.querySelector('[data-testid=load]').addEventListener('click', () => requestAnimationFrame(() =>
              fetch('data/1.json').then((r) => r.json()).then((j) => {
                const p = document.createElement('p');
                p.className = 'late';
                p.textContent = 'Loaded ' + j.n;
                document.querySelector('[data-testid=out]').append(p);
              })));
            </script></body></html>
            """

        /// A TrueType font of the machine, served as the page's late web font (none: the page falls back to
        /// monospace, and the rest of the test still holds).
        static let fontCandidates = [
            "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/System/Library/Fonts/Supplemental/Georgia.ttf", "/Library/Fonts/Arial Unicode.ttf",
        ]

        private func picture(_ evidence: [StepAttachment]) throws -> VisualImage {
            try PNGDecoder.decode(try #require(evidence.first { $0.name == "screenshot.png" }).bytes)
        }

        /// Opens the page on a 3G network, types into the field, taps `load`: the tap's evidence. Then, once the
        /// page has certainly finished (the answer shown, fonts loaded, half a second more), a fresh picture.
        private func run(_ site: TestSite) async throws -> (afterTap: VisualImage, dom: String, later: VisualImage) {
            let r = try await site.registry(["network": "3g"])
            try await r.step(.open, "settle.html")
            try await r.step(.type, "field", "caret here")
            try await r.step(.tap, "load")
            let evidence = await r.evidence(afterStep: 2, step: Step(verb: .tap, target: "load"))
            let dom = String(decoding: try #require(evidence.first { $0.name == "dom.html" }).bytes, as: UTF8.self)
            try await r.step(.wait, "out", "5")
            _ = try await r.inPage("""
                new Promise((r) => {
                  const go = () => document.querySelector('.late') ? r(true) : setTimeout(go, 20);
                  go();
                })
                  .then(() => document.fonts.ready).then(() => new Promise((r) => setTimeout(() => r(true), 500)))
                """)
            let later = await r.evidence(afterStep: 2, step: Step(verb: .tap, target: "load"))
            return (try picture(evidence), dom, try picture(later))
        }

        @Test("a tap's evidence costs two round trips: the settle (which brings the DOM) and the screenshot")
        func settleBringsTheDOM() async throws {
            try await withSite { site in
                try Data(Self.page.utf8).write(to: site.root.appendingPathComponent("settle.html"))
                let r = try await site.registry([:])
                try await r.step(.open, "settle.html")
                _ = await r.evidence(afterStep: 0, step: Step(verb: .open, target: "settle.html"))
                try await r.step(.type, "field", "typed")
                let before = r.page.connection.commandsSent
                let evidence = await r.evidence(afterStep: 1, step: Step(verb: .type, target: "field", arg: "typed"))
                let sent = r.page.connection.commandsSent - before
                let dom = String(decoding: try #require(evidence.first { $0.name == "dom.html" }).bytes, as: UTF8.self)
                // The DOM is the settled page's, with its boxes, and the picture is there.
                #expect(dom.contains("data-testid=\"field\""))
                #expect(evidence.contains { $0.name == "elements.json" })
                _ = try picture(evidence)
                #expect(sent == 2, "the evidence sent \(sent) commands (a DOM evaluation of its own makes 3)")
            }
        }

        @Test("animations, the caret, a request started in the next frame and a late web font: the tap's picture is the settled page, equal in two runs")
        func settledAndEqual() async throws {
            try await withSite { site in
                try Data(Self.page.utf8).write(to: site.root.appendingPathComponent("settle.html"))
                if let font = Self.fontCandidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
                    try FileManager.default.copyItem(
                        at: URL(fileURLWithPath: font), to: site.root.appendingPathComponent("late.ttf"))
                }
                let first = try await run(site)
                let second = try await run(site)
                // The picture after the tap shows the answer: the settle saw the request the next frame started.
                #expect(first.dom.contains("Loaded 1") && second.dom.contains("Loaded 1"))
                for (name, a, b) in [
                    ("the tap's picture and the page once finished", first.afterTap, first.later),
                    ("the tap's pictures of two runs", first.afterTap, second.afterTap),
                    ("the finished pages of two runs", first.later, second.later),
                ] {
                    let comparison = try PixelCompare.compare(a, b)
                    #expect(comparison.differentPixels == 0, "\(name): \(comparison.differentPixels) pixels differ")
                }
            }
        }
    }
}
