import DevTools
import FlowMatrixTestKit
import FlowSpec
import Foundation
import Testing
import WebRegistry

extension RealChromium {
    /// The evidence the report's review views draw from: the elements on screen with their boxes after each step, and
    /// the page's recording.
    @Suite("web registry: elements on screen and the recording (real Chromium)", .serialized)
    struct ReviewEvidenceTests {
        @Test("text cut inside an emoji (a lone surrogate) still gives a step its DOM and elements, after a tap and a wait")
        func loneSurrogate() async throws {
            try await withSite { site in
                try Data("""
                    <!doctype html><html><body><button data-testid="cut">go</button><p data-testid="out"></p>
                    <script>
                    document.querySelector('[data-testid=cut]').addEventListener('click', () => {
                      document.querySelector('[data-testid=out]').textContent = 'cut \\uD83D here';
                    });
                    </script></body></html>
                    """.utf8).write(to: site.root.appendingPathComponent("cut.html"))
                let r = try await site.registry()
                try await r.step(.open, "cut.html")
                _ = await r.evidence(afterStep: 0, step: Step(verb: .open, target: "cut.html"))
                for (index, step) in [(1, Step(verb: .tap, target: "cut")), (2, Step(verb: .wait, target: "out", arg: "5"))] {
                    try await r.step(step.verb, step.target, step.arg)
                    let evidence = await r.evidence(afterStep: index, step: step)
                    let dom = String(decoding: try #require(evidence.first { $0.name == "dom.html" }, "\(step.verb)").bytes,
                                     as: UTF8.self)
                    #expect(dom.contains("cut \u{FFFD} here"), "\(step.verb): the lone surrogate becomes U+FFFD")
                    #expect(evidence.contains { $0.name == "elements.json" })
                    #expect(!evidence.contains { $0.name == "evidence-problems.txt" })
                }
            }
        }

        @Test("elements.json lists the identified elements on screen with the boxes the page lays out")
        func elementsOnScreen() async throws {
            try await withSite { site in
                let r = try await site.registry()
                try await r.step(.open, "verbs.html")
                let evidence = await r.evidence(afterStep: 0, step: Step(verb: .open, target: "verbs.html"))
                let bytes = try #require(evidence.first { $0.name == "elements.json" }).bytes
                let screen = try JSONValue.parse(bytes)
                let elements = try #require(screen["elements"]?.array)
                let tap = try #require(elements.first { $0["id"]?.string == "tap-me" })
                #expect(tap["text"]?.string == "0", "a button's text, not its empty value")
                let box = (tap["box"]?.array ?? []).compactMap(\.double)
                let real = try await r.inPage("""
                    (function () { var b = document.querySelector('[data-testid="tap-me"]').getBoundingClientRect();
                      return [b.left, b.top, b.width, b.height]; })()
                    """).array?.compactMap(\.double) ?? []
                #expect(box.count == 4 && real.count == 4)
                for (a, b) in zip(box, real) { #expect(abs(a - b) < 0.11, "\(box) vs \(real)") }
                let viewport = (screen["viewport"]?.array ?? []).compactMap(\.int)
                #expect(viewport.count == 2 && viewport[0] > 0 && viewport[1] > 0)
                // Only elements on screen: the ones scrolled below the viewport are left out.
                let inside = try await r.inPage("""
                    Array.prototype.filter.call(document.querySelectorAll('[data-testid]'), function (e) {
                      var b = e.getBoundingClientRect();
                      return b.width > 0 && b.height > 0 && b.bottom >= 0 && b.right >= 0 && b.top <= innerHeight && b.left <= innerWidth;
                    }).length
                    """).int
                #expect(elements.count == inside)
            }
        }

        @Test("the recording: JPEG frames handed out with the evidence of the step they came in, numbered through the job")
        func recording() async throws {
            try await withSite { site in
                var settings = site.settings()
                settings.recording = true
                let r = try await WebRegistry.open(
                    in: site.browser.browser(), configuration: [:], seed: 1, settings: settings)
                try await r.step(.open, "verbs.html")
                var first = await r.evidence(afterStep: 0, step: Step(verb: .open, target: "verbs.html"))
                    .filter { $0.name.hasPrefix("screencast-") }
                // Frames come as the compositor paints, which may be after the step's evidence: wait for the first.
                try await waitUntil("a frame of the page as it loaded", timeout: .seconds(10)) {
                    first += await r.evidence(afterStep: 0, step: Step(verb: .open, target: "verbs.html"))
                        .filter { $0.name.hasPrefix("screencast-") }
                    return !first.isEmpty
                }
                #expect(!first.isEmpty, "the page painted while it loaded")
                try await r.step(.tap, "tap-me")
                try await r.step(.tap, "later")
                try await r.step(.wait, "appeared", "3")
                let second = await r.evidence(afterStep: 1, step: Step(verb: .wait, target: "appeared"))
                    .filter { $0.name.hasPrefix("screencast-") }
                #expect(!second.isEmpty, "the taps changed the page")
                let names = (first + second).map(\.name)
                #expect(names == (0..<names.count).map { String(format: "screencast-%04d.jpg", $0) })
                for frame in first + second {
                    #expect(frame.mediaType == "image/jpeg")
                    #expect(frame.bytes.starts(with: [0xFF, 0xD8, 0xFF]), "a JPEG")
                }
            }
        }

        @Test("policy.recording's tag on a job's scenario turns the recording on in WebHost; without it there is none")
        func recordingTag() async throws {
            try await withSite { site in
                let host = WebHost(browser: site.browser, baseURL: site.server.baseURL)
                for (tags, recorded) in [([Scenario.recordingTag], true), (["smoke"], false)] {
                    let r = try await host.makeRegistry(configuration: [:], seed: 1, scenarioTags: tags)
                    try await r.step(.open, "verbs.html")
                    try await r.step(.tap, "tap-me")
                    var frames = await r.evidence(afterStep: 1, step: Step(verb: .tap, target: "tap-me"))
                        .filter { $0.name.hasPrefix("screencast-") }
                    if recorded {
                        // Frames come as the compositor paints, which may be after the tap's evidence: wait for one.
                        try await waitUntil("a frame of the recorded job", timeout: .seconds(10)) {
                            frames += await r.evidence(afterStep: 1, step: Step(verb: .tap, target: "tap-me"))
                                .filter { $0.name.hasPrefix("screencast-") }
                            return !frames.isEmpty
                        }
                    }
                    #expect(frames.isEmpty != recorded, "tags \(tags): \(frames.count) frame(s)")
                    try await r.page.dispose()
                }
            }
        }
    }
}
