import DevTools
import FlowSpec
import Foundation
import Testing
import WebRegistry

/// Page objects on the sample shop's own pages (Workers/Web/site), unedited: each locator kind finds its element, a
/// target no page object declares is an unknown step, and a locator that finds nothing fails naming it.
extension RealChromium {
    @Suite("page objects: each locator kind on the sample shop's unedited pages (real Chromium)", .serialized)
    struct LocatorTests {
        static let site = PageObjectsTests.repository.appendingPathComponent("Workers/Web/site")

        /// The shop's page objects as a team adopting FlowMatrix would write them, without one test id of their own.
        static let pages = [
            "lamps.json": #"""
            {"screen": "lamps", "url": "index.html", "elements": {
              "lamps.search": {"label": "Search lamps"},
              "lamps.first.add": {"css": "[data-testid='catalog.list'] li:first-child .add-button"},
              "lamps.count": {"css": ".cart-count"},
              "lamps.cart-button": {"css": "header .cart-button"},
              "lamps.panel": {"testId": "cart.panel"},
              "lamps.close": {"role": "button", "name": "Close"},
              "lamps.missing": {"role": "button", "name": "Nothing like this"}}}
            """#
        ]

        func registry(_ objects: PageObjects, _ server: StaticFileServer, _ browser: SharedBrowser,
                      _ configuration: [String: String] = [:]) async throws -> WebRegistry {
            var settings = WebSettings(
                baseURL: server.baseURL, defaultAssertTimeout: .seconds(2), actionTimeout: .seconds(2))
            settings.pageObjects = objects
            return try await WebRegistry.open(
                in: browser.browser(), configuration: configuration, seed: 1, settings: settings)
        }

        @Test("label, css, test id and role + name locators drive the shop; in pseudolocalized text too")
        func everyKind() async throws {
            let folder = try PageObjectsTests.folder(Self.pages)
            let server = try StaticFileServer(root: Self.site)
            let browser = SharedBrowser()
            defer {
                server.stop()
                try? FileManager.default.removeItem(at: folder)
            }
            do {
                let objects = try PageObjects.load(folder: folder)
                for configuration in [[:], ["direction": "pseudo-accented"]] {
                    let r = try await registry(objects, server, browser, configuration)
                    try await r.step(.open, "lamps")
                    try await r.step(.wait, "lamps.first.add", "10")
                    try await r.step(.tap, "lamps.first.add")
                    try await r.step(.assert, "lamps.count", "text=1")
                    try await r.step(.tap, "lamps.cart-button")
                    try await r.step(.assert, "lamps.panel", "visible")
                    try await r.step(.tap, "lamps.close")
                    try await r.step(.assert, "lamps.panel", "hidden")
                    try await r.step(.type, "lamps.search", "zzz")
                    try await r.step(.assert, "lamps.first.add", "absent")
                }
            } catch {
                await browser.shutdown()
                throw error
            }
            await browser.shutdown()
        }

        @Test("an undeclared target is an unknown step; a locator that finds nothing fails naming the locator")
        func unwiredAndMissing() async throws {
            let folder = try PageObjectsTests.folder(Self.pages)
            let server = try StaticFileServer(root: Self.site)
            let browser = SharedBrowser()
            defer {
                server.stop()
                try? FileManager.default.removeItem(at: folder)
            }
            do {
                let r = try await registry(try PageObjects.load(folder: folder), server, browser)
                try await r.step(.open, "lamps")
                // catalog.search is the shop's own test id, but these page objects do not declare it.
                await #expect(throws: StepError.unknownStep(Step(verb: .tap, target: "catalog.search"))) {
                    try await r.step(.tap, "catalog.search")
                }
                let error = await #expect(throws: StepError.self) { try await r.step(.tap, "lamps.missing") }
                #expect(
                    error?.description.contains(#"lamps.missing (role button "Nothing like this")"#) == true,
                    "\(String(describing: error))")
            } catch {
                await browser.shutdown()
                throw error
            }
            await browser.shutdown()
        }
    }
}
