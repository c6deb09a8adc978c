import DevTools
import FlowSpec
import Foundation
import MatrixPlan
import Synchronization

/// The pages of jobs that ended cleanly, kept with their browser context for the next job of the same configuration:
/// that job skips the new context, the renderer's start and the emulation's commands (its configuration is applied
/// already), and gets the page after a reset (``reset(_:)``) that leaves it as a fresh context would be — no
/// document, no history, no cookies, storage, cache or permissions of the job before. `SharedBrowser` holds one
/// (at most ``capacity`` pages, the oldest disposed first); `FLOWMATRIX_WEB_REUSE=0` turns it off (a fresh context
/// per job). A job gives its page back only when nothing it did outlives the reset (`WebRegistry.reusable`).
///
/// The reset starts as the page is given back (``put(_:)``), not when the next job takes it: a worker whose jobs
/// alternate between configurations (locales, windows) finds the page reset already, and otherwise waits only for
/// the part still running (`job: reset kept page` times that wait; `pool: reset, as the job ends` the reset itself).
public final class PagePool: Sendable {
    /// A kept page: the configuration it is set up for (``key(configuration:settings:)``), its browser, the
    /// one origin its documents came from, and its reset once it was given back.
    struct Entry: Sendable {
        let key: String
        let browser: Browser
        let page: PageTarget
        let origin: String
        var resetting: Task<Void, any Error>? = nil

        /// Waits for the reset started when the page was given back (or resets it now, when none was started).
        /// - Throws: `DevToolsError` when the page did not answer the reset.
        func ready() async throws {
            if let resetting { try await resetting.value } else { try await PagePool.reset(self) }
        }
    }

    /// Whether jobs reuse pages (`FLOWMATRIX_WEB_REUSE` is not `0`).
    public static let enabled = ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_REUSE"] != "0"
    /// How many idle pages are kept (each keeps its renderer process).
    public static let capacity = 4

    private let idle = Mutex<[Entry]>([])

    public init() {}

    /// How many pages wait for a job.
    public var count: Int { idle.withLock { $0.count } }

    /// The axes the page is set up with (`WebRegistry.open`); a custom axis (a repetition, an account) is not.
    static let pageAxes = Set(BuiltInAxis.allCases.map(\.rawValue) + ["timezone", "permissions", "geolocation"])

    /// What makes two jobs' pages interchangeable: their values of the axes the page is set up with, and every
    /// setting applied when it was (the prelude's attribute, the scale, the permission policy, the position,
    /// dialogs, recording).
    static func key(configuration: [String: String], settings: WebSettings) -> String {
        let pairs = configuration.keys.filter(pageAxes.contains).sorted().map { "\($0)=\(configuration[$0] ?? "")" }
        return (pairs + [
            settings.identifierAttribute, "\(settings.deviceScaleFactor)", "\(settings.permissions)",
            "\(settings.geolocation)", "\(settings.acceptDialogs)", "\(settings.recording)",
        ]).joined(separator: "\n")
    }

    /// Keeps `entry` for a later job (its events go nowhere meanwhile) and starts its reset, disposing the oldest page
    /// beyond ``capacity``.
    func put(_ entry: Entry) {
        entry.page.connection.unsubscribe(session: entry.page.sessionID)
        var kept = entry
        kept.resetting = Task {
            try await WebTimings.measure("pool: reset, as the job ends") { try await Self.reset(entry) }
        }
        let evicted = idle.withLock { pages -> Entry? in
            pages.append(kept)
            return pages.count > Self.capacity ? pages.removeFirst() : nil
        }
        evicted?.resetting?.cancel()
        evicted?.page.disposeIgnoringReply()
    }

    /// Takes a kept page of `browser` set up for `key`, if there is one.
    func take(key: String, browser: Browser) -> Entry? {
        idle.withLock { pages in
            guard let i = pages.firstIndex(where: { $0.key == key && $0.browser === browser }) else { return nil }
            return pages.remove(at: i)
        }
    }

    /// Disposes every kept page (the browser is replaced or ends).
    func drain() {
        for entry in idle.withLock({ pages in defer { pages.removeAll() }; return pages }) {
            entry.resetting?.cancel()
            entry.page.disposeIgnoringReply()
        }
    }

    /// Leaves a kept page as a fresh context's would be: the tab's session storage and `window.name` cleared in the
    /// job's last document, then an empty document, no history, and the context's cookies, the origin's storage
    /// (local storage, IndexedDB, cache storage, service workers), the HTTP cache and the permissions granted cleared.
    /// The emulation, the prelude scripts and the enabled domains stay: they are the configuration's.
    /// - Throws: `DevToolsError` when the page does not answer (the page is then disposed, not reused).
    static func reset(_ entry: Entry, timeout: Duration = .seconds(5)) async throws {
        let page = entry.page
        let context: JSONValue = ["browserContextId": .string(page.contextID)]
        _ = try await WebTimings.measure("reset: session storage") {
            try await page.send(
                "Runtime.evaluate",
                ["expression": "try { sessionStorage.clear(); window.name = '' } catch (e) {} true", "returnByValue": true],
                timeout: timeout)
        }
        _ = try await WebTimings.measure("reset: navigate") {
            try await page.send("Page.navigate", ["url": "about:blank"], timeout: timeout)
        }
        try await WebTimings.measure("reset: empty document") { try await emptyDocument(page, timeout: timeout) }
        let cleared = ContinuousClock.now
        defer { WebTimings.record("reset: clear", ContinuousClock.now - cleared) }
        async let history = page.send("Page.resetNavigationHistory", timeout: timeout)
        async let storage = page.send(
            "Storage.clearDataForOrigin", ["origin": .string(entry.origin), "storageTypes": "all"], timeout: timeout)
        async let cache = page.send("Network.clearBrowserCache", timeout: timeout)
        async let cookies = page.connection.send("Storage.clearCookies", context, timeout: timeout)
        async let permissions = page.connection.send("Browser.resetPermissions", context, timeout: timeout)
        _ = try await (history, storage, cache, cookies, permissions)
    }
}

extension PagePool {
    /// Waits until the page shows the empty document `Page.navigate` asked for: its answer may come before the new
    /// document is the page's (the history cannot be reset until it is). Each check is one round trip; at most 50.
    static func emptyDocument(_ page: PageTarget, timeout: Duration) async throws {
        for _ in 1...50 {
            let r = try? await page.send(
                "Runtime.evaluate", ["expression": "location.href", "returnByValue": true], timeout: timeout)
            if r?["result"]?["value"]?.string == "about:blank" { return }
        }
        throw DevToolsError(.timedOut, "the page did not leave its document")
    }
}

/// What a job did to its page that a reset would not undo (`PagePool`): a failed step, a turned viewport, an
/// interruption handled (a permission granted, a position set), a document from another origin than the site's.
final class PageReuse: Sendable {
    private let spoiled = Mutex(false)
    /// The site's origin (`http://127.0.0.1:8080`): the only one whose storage a reset clears.
    let origin: String

    init(origin: String) { self.origin = origin }

    /// `http://127.0.0.1:8080` for `http://127.0.0.1:8080/shop/`.
    static func origin(of url: URL) -> String {
        let origin = url.scheme.map { "\($0)://\(url.host ?? "")" } ?? ""
        return origin + (url.port.map { ":\($0)" } ?? "")
    }

    var isSpoiled: Bool { spoiled.withLock { $0 } }
    func spoil() { spoiled.withLock { $0 = true } }

    /// Watches the page's events (on the reader thread) for a document of another origin.
    func observe(_ method: String, _ params: JSONValue) {
        guard method == "Network.requestWillBeSent", params["type"]?.string == "Document",
            let url = params["request"]?["url"]?.string, !url.hasPrefix(origin + "/"), url != origin
        else { return }
        spoil()
    }
}
