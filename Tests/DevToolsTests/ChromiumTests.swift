import DevTools
import Foundation
import Synchronization
import Testing

@Suite("DevTools client with real Chromium", .serialized)
struct ChromiumTests {
    @Test("two pages in their own contexts: commands per session, events routed to their own session")
    func sessions() async throws {
        let browser = try await Browser.launch()
        defer { browser.close() }
        let a = try await browser.newPage()
        let b = try await browser.newPage()
        #expect(a.sessionID != b.sessionID && a.contextID != b.contextID)
        let loadsA = Mutex(0)
        let loadsB = Mutex(0)
        a.subscribe { method, _ in if method == "Page.loadEventFired" { loadsA.withLock { $0 += 1 } } }
        b.subscribe { method, _ in if method == "Page.loadEventFired" { loadsB.withLock { $0 += 1 } } }
        _ = try await a.send("Page.enable")
        _ = try await b.send("Page.enable")
        _ = try await a.send("Page.navigate", ["url": "data:text/html,<title>A</title>"])
        #expect(await eventually { loadsA.withLock { $0 } == 1 })
        #expect(loadsB.withLock { $0 } == 0)
        let title = try await a.send("Runtime.evaluate", ["expression": "document.title", "returnByValue": true])
        #expect(title["result"]?["value"]?.string == "A")
        let bad = try? await a.send("No.suchMethod")
        #expect(bad == nil)
        try await a.dispose()
        try await b.dispose()
        #expect(browser.isAlive)
    }

    @Test("a killed browser fails pending commands with browser-closed and reports it once")
    func killed() async throws {
        let browser = try await Browser.launch()
        defer { browser.close() }
        let page = try await browser.newPage()
        let closed = Mutex(0)
        browser.connection.onClose { _ in closed.withLock { $0 += 1 } }
        // A command that will not be answered before the kill: awaiting a promise that never settles.
        async let pending = page.send(
            "Runtime.evaluate", ["expression": "new Promise(() => {})", "awaitPromise": true])
        browser.process.signal(SIGKILL)
        do {
            _ = try await pending
            Issue.record("the pending command must fail")
        } catch let error as DevToolsError {
            #expect(error.code == .browserClosed)
        }
        #expect(await eventually { closed.withLock { $0 } == 1 })
        #expect(!browser.isAlive)
    }
}
