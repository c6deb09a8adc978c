import DevTools
import FlowSpec
import Foundation
import Synchronization

/// One browser per worker process, shared by its jobs: launched on first use, relaunched when it died.
///
/// With `prewarm`, it keeps one blank page in a fresh context ready: `page()` hands it out and starts the next, so
/// the renderer start of the next job overlaps the steps of this one (one extra renderer process per worker). Off by
/// default: on a machine whose cores are busy (2 workers on 2 cores) it measured slower, not faster.
public actor SharedBrowser {
    public let settings: BrowserSettings
    public let prewarm: Bool
    private var current: Browser?
    private var launching: Task<Browser, any Error>?
    private var spare: (browser: Browser, page: Task<PageTarget, any Error>)?
    /// How many browsers this process started (1 + restarts).
    public private(set) var launches = 0
    /// The pages of finished jobs kept for the next job of their configuration (`page(reusing:)`).
    public nonisolated let pool = PagePool()

    public init(settings: BrowserSettings = BrowserSettings(), prewarm: Bool = false) {
        self.settings = settings
        self.prewarm = prewarm
    }

    /// A fresh page in its own context of the live browser (the prewarmed one when there is one).
    public func page() async throws -> (Browser, PageTarget) {
        let (browser, page, _) = try await page(reusing: nil)
        return (browser, page)
    }

    /// A kept page of the live browser set up for `key` (`PagePool.key`), once its reset (started as its job ended)
    /// is done, when there is one (`reused` is then true); else a fresh page in its own context.
    public func page(reusing key: String?) async throws -> (Browser, PageTarget, reused: Bool) {
        let browser = try await browser()
        if let key, let kept = pool.take(key: key, browser: browser) {
            do {
                try await WebTimings.measure("job: reset kept page") { try await kept.ready() }
                return (browser, kept.page, true)
            } catch {
                // Not reusable after all (the page stopped answering): the job gets a fresh context.
                kept.page.disposeIgnoringReply()
            }
        }
        var page: PageTarget?
        if let spare {
            self.spare = nil
            if spare.browser === browser { page = try? await spare.page.value }
        }
        if page == nil {
            page = try await WebTimings.measure("job: new context + page") { try await browser.newPage() }
        }
        if prewarm { spare = (browser, Task { try await browser.newPage() }) }
        guard let page else { throw DevToolsError(.launchFailed, "no page") }
        return (browser, page, false)
    }

    /// The live browser, launching one when there is none or the last one died.
    public func browser() async throws -> Browser {
        if let current, current.isAlive { return current }
        if let launching { return try await launching.value }
        current?.close()
        current = nil
        pool.drain()
        let settings = settings
        let task = Task { try await WebTimings.measure("worker: browser launch") { try await Browser.launch(settings) } }
        launching = task
        defer { launching = nil }
        let browser = try await task.value
        launches += 1
        current = browser
        return browser
    }

    /// Ends `browser` if it is still the current one, so the next call launches a fresh browser.
    public func replace(_ browser: Browser) {
        pool.drain()
        browser.close()
        if current === browser { current = nil }
    }

    /// Ends the browser.
    public func shutdown() {
        pool.drain()
        spare?.page.cancel()
        spare = nil
        current?.close()
        current = nil
    }
}

/// What `flowmatrix worker` hosts as the `web` registry: the shared browser, and the site under test — the URL in
/// `FLOWMATRIX_WEB_BASE_URL`, or a folder (`FLOWMATRIX_WEB_ROOT`, default `Workers/Web/site` under the current
/// directory) served on 127.0.0.1 by a `StaticFileServer` started on first use — and the page objects its targets
/// resolve through: the folder in `FLOWMATRIX_WEB_PAGES`, else a `Pages` folder beside a `FLOWMATRIX_WEB_ROOT` folder
/// when there is one, else none (every target is a test id).
public final class WebHost: Sendable {
    public static let registryName = "web"
    /// The scenario tag that lets its `open` steps load documents answering 4xx or 5xx.
    public static let errorPagesTag = "error-pages=allow"
    public let browser: SharedBrowser
    private let site = Mutex<(url: URL?, server: StaticFileServer?)>((nil, nil))
    private let configure: @Sendable (inout WebSettings) -> Void
    /// The page-object folder (nil: read the environment) and, once read, its page objects (nil inside: none).
    private let pages = Mutex<(folder: URL?, loaded: Result<PageObjects?, PageObjectError>?)>((nil, nil))

    /// - Parameters:
    ///   - baseURL: the site under test; nil reads the environment on first use (above).
    ///   - configure: adjusts each job's settings (timeouts, identifier attribute).
    public init(
        browser: SharedBrowser = SharedBrowser(), baseURL: URL? = nil, pageObjects: URL? = nil,
        configure: @escaping @Sendable (inout WebSettings) -> Void = { _ in }
    ) {
        self.browser = browser
        self.configure = configure
        site.withLock { $0.url = baseURL }
        pages.withLock { $0.folder = pageObjects }
    }

    /// The page objects jobs resolve targets through (read once), or nil when there are none.
    /// - Throws: `PageObjectError` when the folder's files are unusable.
    public func pageObjects() throws -> PageObjects? {
        try pages.withLock { p in
            if let loaded = p.loaded { return try loaded.get() }
            let env = ProcessInfo.processInfo.environment
            var folder = p.folder ?? env["FLOWMATRIX_WEB_PAGES"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            if folder == nil, let root = env["FLOWMATRIX_WEB_ROOT"], !root.isEmpty {
                let beside = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("Pages")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: beside.path, isDirectory: &isDirectory),
                    isDirectory.boolValue
                {
                    folder = beside
                }
            }
            let loaded: Result<PageObjects?, PageObjectError>
            do { loaded = .success(try folder.map(PageObjects.load)) } catch let error as PageObjectError {
                loaded = .failure(error)
            } catch {
                loaded = .failure(PageObjectError(findings: []))
            }
            p.loaded = loaded
            return try loaded.get()
        }
    }

    /// What the registry wires: the page objects' steps when there are page objects (`PageObjects.manifest`), else
    /// every step (`WebRegistry.manifest`). Unusable page objects publish every step; their jobs fail saying why.
    public var manifest: RegistryManifest {
        ((try? pageObjects()) ?? nil)?.manifest ?? WebRegistry.manifest
    }

    /// The base URL `open` resolves against.
    public func baseURL() throws -> URL {
        try site.withLock { s in
            if let url = s.url { return url }
            let env = ProcessInfo.processInfo.environment
            if let raw = env["FLOWMATRIX_WEB_BASE_URL"], !raw.isEmpty {
                guard let url = URL(string: raw.hasSuffix("/") ? raw : raw + "/") else {
                    throw WebHostError(message: "FLOWMATRIX_WEB_BASE_URL is not a URL: \(raw)")
                }
                s.url = url
                return url
            }
            let root = env["FLOWMATRIX_WEB_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "Workers/Web/site"
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw WebHostError(
                    message: "no site to test: set FLOWMATRIX_WEB_BASE_URL to its URL, or FLOWMATRIX_WEB_ROOT to"
                        + " a folder to serve (looked for \(root))")
            }
            let server = try StaticFileServer(root: URL(fileURLWithPath: root))
            s.server = server
            s.url = server.baseURL
            return server.baseURL
        }
    }

    /// Ends the browser (removing its profile) and stops serving the site.
    public func shutdown() async {
        WebTimings.write(title: "web timings of this worker:")
        await browser.shutdown()
        site.withLock { $0.server?.stop() }
    }

    /// A registry for one job: a fresh context in the shared browser (relaunched once if it died meanwhile).
    /// - Parameter scenarioTags: the scenario's tags; a `permissions=…` tag sets its default `PermissionPolicy`, and
    ///   `error-pages=allow` lets its `open` steps load documents answering 4xx or 5xx, and `recording=on`
    ///   (`policy.recording`) screencasts the job.
    public func makeRegistry(
        configuration: [String: String], seed: UInt64, scenarioTags: [String] = []
    ) async throws -> WebRegistry {
        var settings = WebSettings(baseURL: try baseURL(), browser: browser.settings)
        settings.pageObjects = try pageObjects()
        configure(&settings)
        for tag in scenarioTags where tag.hasPrefix("permissions=") {
            settings.permissions = try settings.permissions.overlaid(with: String(tag.dropFirst("permissions=".count)))
        }
        if scenarioTags.contains(Self.errorPagesTag) { settings.openFailsOnErrorStatus = false }
        if scenarioTags.contains(Scenario.recordingTag) { settings.recording = true }
        var lastError: (any Error)?
        let key = PagePool.enabled ? PagePool.key(configuration: configuration, settings: settings) : nil
        let pool = browser.pool
        for _ in 0..<2 {
            let (b, page, reused) = try await browser.page(reusing: key)
            let origin = PageReuse.origin(of: settings.baseURL)
            var release: (@Sendable (PageTarget) -> Void)?
            if let key {
                release = { page in pool.put(PagePool.Entry(key: key, browser: b, page: page, origin: origin)) }
            }
            do {
                return try await WebRegistry.open(
                    page: page, browser: b, configuration: configuration, seed: seed,
                    settings: settings, reused: reused, release: release)
            } catch let error as DevToolsError where error.code == .browserClosed || error.code == .timedOut {
                // A browser that died or stopped answering is replaced; the job gets a fresh one.
                lastError = error
                await browser.replace(b)
                continue
            }
        }
        throw lastError ?? WebHostError(message: "the browser could not be started")
    }
}

public struct WebHostError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
