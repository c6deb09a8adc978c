import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

extension RealChromium {
    @Suite("web registry: a finished job's page serves the next job of its configuration (real Chromium)", .serialized)
    struct PageReuseTests {
        /// Shows what a document sees of the jobs before it (storage, cookies, history, window.name); `mark` leaves
        /// all of it behind.
        static let statePage = """
            <!doctype html><html><head><meta charset="utf-8"></head><body>
            <p data-testid="seen"></p><button data-testid="mark">mark</button><p data-testid="db"></p>
            <script>
            const $ = (id) => document.querySelector('[data-testid=' + id + ']');
            $('seen').textContent = [localStorage.getItem('l'), sessionStorage.getItem('s'), document.cookie,
              history.length, window.name].join('|');
            const open = indexedDB.open('reuse', 1);
            open.onupgradeneeded = () => { open.result.createObjectStore('o'); $('db').textContent = 'new'; };
            open.onsuccess = () => { if (!$('db').textContent) $('db').textContent = 'old'; };
            $('mark').addEventListener('click', () => {
              localStorage.setItem('l', '1'); sessionStorage.setItem('s', '1'); document.cookie = 'c=1';
              window.name = 'job'; history.pushState({}, '', '#marked'); $('mark').textContent = 'marked';
            });
            </script></body></html>
            """

        /// Runs `body` with the site (holding `state.html`) and a host on its browser.
        func withHost(_ body: (TestSite, WebHost) async throws -> Void) async throws {
            try await withSite { site in
                try Data(Self.statePage.utf8).write(to: site.root.appendingPathComponent("state.html"))
                let host = WebHost(browser: site.browser, baseURL: site.server.baseURL) { settings in
                    settings.defaultAssertTimeout = .seconds(2)
                }
                try await body(site, host)
            }
        }

        /// Opens `state.html` and returns what it saw, then marks the page when asked.
        func visit(_ registry: WebRegistry, mark: Bool) async throws -> String {
            try await registry.execute(Step(verb: .open, target: "state.html"))
            try await registry.execute(Step(verb: .assert, target: "db", arg: "text=new"))
            let seen = try await registry.inPage("document.querySelector('[data-testid=seen]').textContent")
            if mark {
                try await registry.execute(Step(verb: .tap, target: "mark"))
                try await registry.execute(Step(verb: .assert, target: "mark", arg: "text=marked"))
            }
            return seen.string ?? ""
        }

        @Test("the next job of the configuration gets the page back with no storage, cookie, history or name left")
        func reusedPageIsClean() async throws {
            try await withHost { site, host in
                // A custom axis (here a repetition) is not part of the page's setup: the page serves either value.
                let configuration = ["locale": "de", "window": "regular-square"]
                var first: WebRegistry? = try await host.makeRegistry(
                    configuration: configuration.merging(["rep": "1"]) { $1 }, seed: 1)
                let firstTarget = first?.page.targetID
                let fresh = try await visit(try #require(first), mark: true)
                first = nil
                #expect(site.browser.pool.count == 1)
                let second = try await host.makeRegistry(
                    configuration: configuration.merging(["rep": "2"]) { $1 }, seed: 2)
                #expect(second.page.targetID == firstTarget)
                #expect(site.browser.pool.count == 0)
                // Same as a fresh context saw: no storage, cookie, IndexedDB, history entry or name of the job before.
                #expect(try await visit(second, mark: false) == fresh)
                // The configuration is still applied: the page speaks German.
                #expect(try await second.inPage("navigator.language").string == "de")
            }
        }

        @Test("a page given back is reset as its job ends, before a next job asks for it")
        func resetStartsWhenTheJobEnds() async throws {
            try await withHost { site, host in
                var first: WebRegistry? = try await host.makeRegistry(
                    configuration: ["locale": "de", "window": "regular-square"], seed: 1)
                _ = try await visit(try #require(first), mark: true)
                let page = try #require(first?.page)
                first = nil
                #expect(site.browser.pool.count == 1)
                // No job takes it, yet it leaves the job's document for the empty one (a round trip per look, ≤ 10 s).
                let deadline = ContinuousClock.now + .seconds(10)
                var href = ""
                while ContinuousClock.now < deadline {
                    let r = try? await page.send(
                        "Runtime.evaluate", ["expression": "location.href", "returnByValue": true])
                    href = r?["result"]?["value"]?.string ?? ""
                    if href == "about:blank" { break }
                }
                #expect(href == "about:blank", "the kept page still shows \(href)")
                #expect(site.browser.pool.count == 1)
            }
        }

        @Test("a failed step, a turned viewport or another configuration keeps the page from the next job")
        func onlyCleanPagesAreReused() async throws {
            try await withHost { site, host in
                let configuration = ["locale": "en"]
                var failing: WebRegistry? = try await host.makeRegistry(configuration: configuration, seed: 1)
                _ = try await visit(try #require(failing), mark: false)
                await #expect(throws: StepError.self) {
                    try await failing?.execute(Step(verb: .assert, target: "db", arg: "text=never;timeout=0.2"))
                }
                failing = nil
                #expect(site.browser.pool.count == 0)
                var turned: WebRegistry? = try await host.makeRegistry(configuration: configuration, seed: 1)
                _ = try await visit(try #require(turned), mark: false)
                try await turned?.execute(Step(verb: .rotate, target: "device", arg: "landscape"))
                turned = nil
                #expect(site.browser.pool.count == 0)
                var clean: WebRegistry? = try await host.makeRegistry(configuration: configuration, seed: 1)
                _ = try await visit(try #require(clean), mark: false)
                clean = nil
                #expect(site.browser.pool.count == 1)
                let other = try await host.makeRegistry(configuration: ["locale": "fr"], seed: 1)
                #expect(site.browser.pool.count == 1)
                #expect(try await visit(other, mark: false).hasPrefix("||"))
            }
        }
    }
}
