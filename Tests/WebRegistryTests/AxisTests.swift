import DevTools
import FlowSpec
import Foundation
import RunConditions
import Testing
import WebRegistry

extension RealChromium {
    @Suite("web registry: each axis changes what the page observes (real Chromium)", .serialized)
    struct AxisTests {
        @Test("pseudolocalization: the page-side transformation agrees with RunConditions on shared vectors")
        func sharedVectors() async throws {
            try await withSite { site in
                let registry = try await site.registry()
                try await registry.step(.open, "probe.html")
                let vectors = [
                    "Add to Cart", "Hello {name}, you have {count} items", "", "Straße ÄÖÜ", "カートに追加", "x{y}z{",
                    "a\"b\\c",
                    "Zoë & Ω 12:30", "ABCXYZ abcxyz",
                ]
                for mode in [PseudoMode.none, .double, .accented] {
                    let literal = JSONValue.array(vectors.map(JSONValue.string)).serialized
                    let page = try await registry.inPage(
                        "\(literal).map((s) => __flowmatrix.transform(s, '\(mode.rawValue)'))")
                    #expect(
                        page.array?.compactMap(\.string) == vectors.map { Pseudolocalizer.transform($0, mode: mode) },
                        "mode \(mode)")
                }
            }
        }

        @Test(
            "locale: navigator.language(s) and Intl follow the locale axis",
            arguments: [
                ("de", ["de"], "1.234,5"), ("ar-EG", ["ar-EG", "ar"], "١٬٢٣٤٫٥"), ("en", ["en"], "1,234.5"),
            ])
        func locale(_ tag: String, _ languages: [String], _ number: String) async throws {
            try await withSite { site in
                let registry = try await site.registry(["locale": tag])
                try await registry.step(.open, "probe.html")
                let seen = try await registry.inPage(
                    "({ language: navigator.language, languages: navigator.languages, number: (1234.5).toLocaleString(), intl: Intl.NumberFormat().resolvedOptions().locale })"
                )
                #expect(seen["language"]?.string == tag)
                #expect(seen["languages"]?.array?.compactMap(\.string) == languages)
                #expect(seen["number"]?.string == number)
                #expect(seen["intl"]?.string?.hasPrefix(tag) == true)
            }
        }

        @Test("timezone: a custom timezone axis is what Intl and Date see")
        func timezone() async throws {
            try await withSite { site in
                let registry = try await site.registry(["timezone": "Asia/Tokyo"])
                try await registry.step(.open, "probe.html")
                #expect(try await registry.inPage("Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo")
                #expect(try await registry.inPage("new Date(0).getTimezoneOffset()") == -540)
            }
        }

        @Test("direction: pseudo-rtl sets dir=rtl before the page's first script; auto leaves it to the page")
        func direction() async throws {
            try await withSite { site in
                let forced = try await site.registry(["direction": "pseudo-rtl"])
                try await forced.step(.open, "probe.html")
                #expect(try await forced.inPage("window.seenAtStart.dir").string == "rtl")
                #expect(try await forced.inPage("getComputedStyle(document.body).direction").string == "rtl")
                // The page setting its own direction does not undo it.
                _ = try await forced.inPage(
                    "document.documentElement.dir = 'ltr'; new Promise((r) => setTimeout(r, 0))")
                #expect(try await forced.inPage("document.documentElement.dir").string == "rtl")
                let plain = try await site.registry(["direction": "auto"])
                try await plain.step(.open, "probe.html")
                #expect(try await plain.inPage("window.seenAtStart.dir") == .null)
            }
        }

        @Test("pseudo-accented and pseudo-double rewrite the page's text nodes and placeholders")
        func pseudoText() async throws {
            try await withSite { site in
                let accented = try await site.registry(["direction": "pseudo-accented"])
                try await accented.step(.open, "probe.html")
                try await accented.step(.assert, "greeting", "text=Hello {name}")
                #expect(
                    try await accented.inPage("document.querySelector('[data-testid=greeting]').textContent").string
                        == Pseudolocalizer.transform("Hello {name}", mode: .accented))
                #expect(
                    try await accented.inPage("document.querySelector('[data-testid=field]').placeholder").string
                        == Pseudolocalizer.transform("Type here", mode: .accented))
                // Text the page adds later is rewritten too.
                _ = try await accented.inPage(
                    "const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Later'; document.body.append(p); new Promise((r) => setTimeout(r, 0))"
                )
                #expect(try await accented.inPage("document.getElementById('late').textContent").string == "[Ļåţéŕ]")
                let doubled = try await site.registry(["direction": "pseudo-double"])
                try await doubled.step(.open, "probe.html")
                #expect(
                    try await doubled.inPage("document.querySelector('[data-testid=greeting]').textContent").string
                        == "Hello {name} Hello {name}")
            }
        }

        @Test("orientation × window: the viewport and screen orientation follow RunConditions; rotate swaps them")
        func viewport() async throws {
            try await withSite { site in
                let registry = try await site.registry(["window": "narrow-portrait", "orientation": "landscape"])
                try await registry.step(.open, "probe.html")
                let before = try await registry.inPage("[innerWidth, innerHeight, screen.orientation.type]")
                #expect(before == [720, 320, "landscape-primary"])
                try await registry.step(.rotate, "device", "portrait")
                let after = try await registry.inPage("[innerWidth, innerHeight, screen.orientation.type]")
                #expect(after == [320, 720, "portrait-primary"])
            }
        }

        @Test("network: edge takes measurably longer than lte; offline is navigator.onLine false")
        func network() async throws {
            try await withSite { site in
                let fetchTime =
                    "(async () => { const t = performance.now(); await (await fetch('big.txt?' + Math.random())).text(); return performance.now() - t; })()"
                let lte = try await site.registry(["network": "lte"])
                try await lte.step(.open, "probe.html")
                let fast = try #require(try await lte.inPage(fetchTime).double)
                let edge = try await site.registry(["network": "edge"])
                try await edge.step(.open, "probe.html")
                let slow = try #require(try await edge.inPage(fetchTime).double)
                // 96 KB at 30 kB/s plus 400 ms latency is over 3 s; at 6.25 MB/s plus 50 ms it is well under one.
                #expect(slow > 2500, "edge took \(slow) ms")
                #expect(slow > fast * 3, "edge \(slow) ms vs lte \(fast) ms")
                let offline = try await site.registry(["network": "offline"])
                try await offline.step(.open, "probe.html")
                #expect(try await offline.inPage("navigator.onLine") == false)
                #expect(try await offline.inPage("fetch('big.txt').then(() => 'loaded', () => 'failed')") == "failed")
            }
        }

        @Test("network flaky: the same seed fails the same requests, keyed by method, URL and occurrence")
        func flaky() async throws {
            try await withSite { site in
                let fetchAll =
                    "Promise.all([...Array(20).keys()].map((i) => fetch('data/' + (i + 1) + '.json').then(() => null, () => i + 1))).then((r) => r.filter((x) => x !== null))"
                func failed(seed: UInt64) async throws -> [Int] {
                    let registry = try await site.registry(["network": "flaky"], seed: seed)
                    try await registry.step(.open, "probe.html")
                    let page = try await registry.inPage(fetchAll).array?.compactMap(\.int) ?? []
                    // The registry's record of what it failed matches what the page saw (the favicon request aside).
                    #expect(registry.failedRequests.filter { $0.contains("/data/") }.count == page.count)
                    return page
                }
                let first = try await failed(seed: 42)
                let again = try await failed(seed: 42)
                let other = try await failed(seed: 43)
                #expect(first == again)
                #expect(!first.isEmpty && first.count < 20, "30 % of 20 requests should fail, not \(first.count)")
                #expect(first != other)
                let predicted = (1...20).filter { i in
                    FlakyRequests.fails(
                        seed: 42, method: "GET", url: site.server.baseURL.absoluteString + "data/\(i).json",
                        occurrence: 1, rate: 0.3)
                }
                #expect(first == predicted)
            }
        }
    }
}
