import DevTools
import FlowSpec
import FlowVocabulary
import Foundation
import MatrixPlan
import RunConditions
import Synchronization

/// The `web` registry: runs FlowSpec steps against a real page in headless Chromium, in a browser context of its own
/// per job (fresh, or a finished job's of the same configuration, reset: `PagePool`), with the job's configuration
/// applied through the browser's own emulation.
///
/// - `open` navigates to its target resolved against the base URL and waits for the load event.
/// - `tap`, `type`, `swipe` wait (up to `actionTimeout`) for their element to be visible, scroll it into view, check
///   that nothing covers it, and act with real input events (mouse, inserted text, drag or wheel).
/// - `wait` waits for its element to exist; `assert` for its clauses (`visible`, `hidden`, `absent`, `text=`,
///   `contains=`, `value=`, and the layout rules `no-truncation`, `no-overlap`, `on-screen`, `mirrored`,
///   `localized`, or `clean` for all five); both re-check on DOM mutations in the page, never on a poll.
/// - `assert page accessible` runs the accessibility audit (`WebRegistry+Audit.swift`, docs/ACCESSIBILITY.md).
/// - `request` serves a fixture for its target URL; `ambient` dispatches a `CustomEvent` named by its target with the
///   arg (JSON when it parses) as `detail`; `rotate` turns the viewport.
/// JavaScript dialogs and permission requests are interruptions (registered with the `InterruptionMonitors`)
/// handled while a step runs: a dialog is accepted (`WebSettings.acceptDialogs`), a permission allowed or denied by
/// the `PermissionPolicy` (`PermissionPrompts`).
public actor WebRegistry: AsyncStepRegistry, StepEvidenceProviding {
    public nonisolated let page: PageTarget
    public nonisolated let conditions: RunConditions
    nonisolated let settings: WebSettings
    nonisolated let events: PageEvents
    public nonisolated let monitors: InterruptionMonitors
    /// The page's recording (`WebSettings.recording`), handed out with each step's evidence.
    nonisolated let screencast: Screencast?
    private nonisolated let stepBox: StepBox
    private nonisolated let opened = ContinuousClock.now  // when the job's registry was made (`WebTimings`)
    /// What the job did that a reset would not undo, and where a page it leaves reusable goes (`PagePool`).
    nonisolated let reuse: PageReuse
    private nonisolated let release: (@Sendable (PageTarget) -> Void)?
    private(set) var viewport: Viewport
    var fetchEnabled = false
    var pageOpened = false
    /// The last screenshot taken (base64, decoded only when its evidence is kept) and the page's change generation
    /// when it was taken.
    var lastScreenshot: (generation: Int, base64: String)?
    let offline: Bool
    /// Set by the first `evidence` call: evidence is wanted after every step.
    var evidenceWanted = false
    /// The page's snapshot taken by a `wait` or `assert` step as it concluded (its evidence needs no round trip).
    var stepSnapshot: JSONValue?
    /// The elements on screen of the last DOM snapshot (`elements.json`), reused with its screenshot by a passive step.
    var lastBoxes: JSONValue?
    var computedNames: Bool?  // the audit reads names in the page (`Element.computedName`); nil: not yet asked
    /// The page's uncaught errors and failed requests during the last step that passed.
    private var troublesOfPreviousStep: [String] = []

    /// The running step's recorder and awaited element, for interruptions handled on other tasks.
    final class StepBox: Sendable {
        let state = Mutex<(recorder: StepRecorder?, awaited: String?)>((nil, nil))
    }

    /// Opens a fresh context in `browser` and applies `configuration` to its page.
    /// - Throws: `RunConditionsError` for invalid axis values; `DevToolsError` when the browser fails.
    public static func open(
        in browser: Browser, configuration: [String: String], seed: UInt64,
        settings: WebSettings
    ) async throws -> WebRegistry {
        _ = try RunConditions(values: configuration, seed: seed)
        let page = try await WebTimings.measure("job: new context + page") { try await browser.newPage() }
        return try await open(
            page: page, browser: browser, configuration: configuration, seed: seed,
            settings: settings)
    }

    /// Applies `configuration` to `page`, a fresh page of `browser` (e.g. one `SharedBrowser` prepared), or, when
    /// `reused`, takes a page a job of the same configuration set up (`PagePool`, reset). When the registry goes
    /// away it hands a page it left reusable to `release`, and disposes the page's context otherwise.
    public static func open(
        page: PageTarget, browser: Browser, configuration: [String: String], seed: UInt64,
        settings: WebSettings, reused: Bool = false, release: (@Sendable (PageTarget) -> Void)? = nil
    ) async throws -> WebRegistry {
        let conditions: RunConditions
        var settings = settings
        do {
            conditions = try RunConditions(values: configuration, seed: seed)
            if let text = configuration["permissions"] {
                settings.permissions = try settings.permissions.overlaid(with: text)
            }
            if let text = configuration["geolocation"] { settings.geolocation = try GeolocationFix(parsing: text) }
        } catch {
            page.disposeIgnoringReply()
            throw error
        }
        do {
            let registry = WebRegistry(
                page: page, conditions: conditions, settings: settings, seed: seed, release: release)
            if reused { return registry }
            try await WebTimings.measure("job: emulation setup") {
                try await registry.setUp(userAgent: browser.userAgent, timezone: configuration["timezone"])
            }
            return registry
        } catch {
            page.disposeIgnoringReply()
            throw error
        }
    }

    private init(
        page: PageTarget, conditions: RunConditions, settings: WebSettings, seed: UInt64,
        release: (@Sendable (PageTarget) -> Void)?
    ) {
        self.page = page
        self.release = release
        self.conditions = conditions
        self.settings = settings
        viewport = conditions.viewport
        let profile = conditions.networkProfile
        offline = profile.failureRate >= 1 && profile.failure == .notConnected
        let monitors = InterruptionMonitors()
        let box = StepBox()
        self.monitors = monitors
        stepBox = box
        let reuse = PageReuse(origin: PageReuse.origin(of: settings.baseURL))
        self.reuse = reuse
        /// An interruption appeared (on the reader thread): the monitors handle it now, on a task of its own.
        let interrupt: @Sendable () -> Void = {
            Task {
                let awaited = box.state.withLock { $0.awaited }
                if let name = try? await monitors.handleFirstPresent(excluding: awaited) {
                    reuse.spoil()  // a permission granted, a position set: the context keeps them
                    box.state.withLock { $0.recorder }?.recordInterruption(name)
                }
            }
        }
        let prompts = PermissionPrompts(page: page, policy: settings.permissions, position: settings.geolocation)
        let events = PageEvents(
            page: page, seed: seed, profile: profile, origin: reuse.origin, onDialog: interrupt,
            onPermission: { request in if prompts.enqueue(request) { interrupt() } })
        self.events = events
        let screencast = settings.recording ? Screencast(page: page) : nil
        self.screencast = screencast
        let accept = settings.acceptDialogs
        monitors.register(
            Interruption(
                name: "javascript-dialog", element: "javascript-dialog", isPresent: { events.dialog != nil },
                handle: {
                    _ = try await page.send("Page.handleJavaScriptDialog", ["accept": .bool(accept)])
                    events.dialogClosed()
                }))
        monitors.register(
            Interruption(
                name: PermissionPrompts.interruptionName, element: PermissionPrompts.interruptionName,
                isPresent: { prompts.isPresent },
                handle: { if let line = try await prompts.answerNext() { events.log(line) } }))
        page.subscribe { method, params in
            reuse.observe(method, params)
            if method == "Page.screencastFrame", let screencast {
                screencast.onFrame(params)
            } else {
                events.handle(method, params)
            }
        }
    }

    /// The page goes to `release` (`PagePool`) when every step passed and nothing outlives the reset: no request
    /// fixtures or flaky network (fetch interception), offline switch, recording, audit (accessibility domain), turned
    /// viewport, handled interruption, crash, open dialog or document of another origin; else its context ends.
    deinit {
        let (navigated, fetching, audited) = (pageOpened, fetchEnabled, computedNames != nil)
        let reusable = navigated && !fetching && !audited && !offline && screencast == nil && !reuse.isSpoiled
            && events.crashed == nil && events.dialog == nil
        if let release, reusable { release(page) } else { page.disposeIgnoringReply() }
        WebTimings.record("job: whole, in the worker", ContinuousClock.now - opened)
    }

    private func setUp(userAgent: String, timezone: String?) async throws {
        let forced: String? = conditions.requestedDirection == .pseudoRTL ? "rtl" : nil
        let prelude = PagePrelude.source(
            attribute: settings.identifierAttribute, forcedDirection: forced,
            pseudo: conditions.pseudo, interruptions: interruptionsJSON)
        let page = page
        /// Each command's time from sending to its answer (they are in flight together; the first pays for the
        /// renderer's start).
        @Sendable func send(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
            try await WebTimings.measure("setup: \(method)") { try await page.send(method, params) }
        }
        async let a = send("Page.enable")
        async let b = send("Runtime.enable")
        async let c = send("Network.enable")
        async let d = send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(prelude)])
        async let e = send("Emulation.setLocaleOverride", ["locale": .string(conditions.locale)])
        async let f = send(
            "Network.setUserAgentOverride",
            [
                "userAgent": .string(userAgent), "acceptLanguage": .string(Self.acceptLanguage(conditions.locale)),
            ])
        async let g = send("Emulation.setDeviceMetricsOverride", metrics(viewport))
        async let h = send("Runtime.addBinding", ["name": .string(PermissionPrompts.binding)])
        async let i = send("Emulation.setEmulatedMedia", Self.emulatedMedia(conditions.accessibility))
        async let j = send("Page.setFontSizes", Self.fontSizes(conditions.textSize))
        // Screenshots equal between identical runs: no animations, transitions, caret or scrollbars (docs/VISUAL.md).
        async let k = send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(ScreenshotFreeze.source)])
        async let l = send("Emulation.setScrollbarsHidden", ["hidden": true])
        _ = try await (a, b, c, d, e, f, g, h, i, j, k, l)
        if let screencast { try await WebTimings.measure("setup: Page.startScreencast") { try await screencast.start() } }
        if let timezone { _ = try await page.send("Emulation.setTimezoneOverride", ["timezoneId": .string(timezone)]) }
        try await applyNetwork(offline: false)
        if conditions.networkProfile.failureRate > 0 && !offline { try await enableFetch() }
    }

    /// `Accept-Language` (and so `navigator.languages`) for a locale: the tag, then its language alone.
    static func acceptLanguage(_ locale: String) -> String {
        let language = locale.split(separator: "-").first.map(String.init) ?? locale
        return language == locale ? locale : "\(locale),\(language)"
    }

    private func metrics(_ v: Viewport) -> JSONValue {
        [
            "width": .number(Double(v.width)), "height": .number(Double(v.height)),
            "deviceScaleFactor": .number(settings.deviceScaleFactor), "mobile": false,
            "screenWidth": .number(Double(v.width)), "screenHeight": .number(Double(v.height)),
            "screenOrientation": v.orientation == .portrait
                ? ["type": "portraitPrimary", "angle": 0] : ["type": "landscapePrimary", "angle": 90],
        ]
    }

    private func enableFetch() async throws {
        guard !fetchEnabled else { return }
        _ = try await page.send("Fetch.enable", ["patterns": [["urlPattern": "*", "requestStage": "Request"]]])
        fetchEnabled = true
    }

    // MARK: Steps

    public func execute(_ step: Step) async throws {
        stepBox.state.withLock { $0 = (StepContext.current, nil) }
        stepSnapshot = nil
        if let crashed = events.crashed { throw StepError.failed("\(crashed); the page cannot run \(step.key)") }
        // With page objects the registry wires what they declare, nothing else (docs/WEB.md, "Page objects").
        if let objects = settings.pageObjects, !objects.wires(step) { throw StepError.unknownStep(step) }
        do {
            try await WebTimings.measure("step: \(step.verb.rawValue)") { try await run(step) }
        } catch let error as DevToolsError {
            reuse.spoil()
            throw Self.stepError(error, step: step, crashed: events.crashed).adding(takeTroubles())
        } catch let error as StepError {
            reuse.spoil()
            throw error.adding(takeTroubles())
        } catch {
            reuse.spoil()  // cancelled: the step may have been cut off mid-gesture
            throw error
        }
        troublesOfPreviousStep = events.takeTroubles()
    }

    /// The page's uncaught errors and failed requests during the previous step and this one (a tap's error shows in
    /// the failure of the assert after it).
    private func takeTroubles() -> [String] {
        defer { troublesOfPreviousStep = [] }
        return troublesOfPreviousStep + events.takeTroubles()
    }

    private func run(_ step: Step) async throws {
        switch step.verb {
        case .open: try await open(step)
        case .tap:
            let p = try await actionPoint(step)
            try await mouse("mousePressed", p.x, p.y, answered: false)
            try await mouse("mouseReleased", p.x, p.y)
        case .type:
            guard let text = step.arg else { throw StepError.invalidArgument("type needs the text to type") }
            _ = try await waitFor(
                [condition(step.target, "visible")], timeout: settings.actionTimeout, step: step, awaited: step.target)
            let focused = try await evaluate("__flowmatrix.focus(\(locator(step.target).serialized))")
            guard focused["ok"]?.bool == true else {
                throw StepError.failed(focused["detail"]?.string ?? "cannot focus")
            }
            _ = try await page.send("Input.insertText", ["text": .string(text)], timeout: settings.pageTimeout)
        case .swipe: try await swipe(step)
        case .wait:
            let timeout: Duration
            switch StepArguments.waitTimeout(step) {
            case .success(let t): timeout = t ?? settings.defaultWaitTimeout
            case .failure(let problem): throw StepError.invalidArgument("wait timeout: \(problem)")
            }
            if let failure = try await waitFor(
                [condition(step.target, "exists")], timeout: timeout, step: step, awaited: step.target)
            {
                throw StepError.conditionTimedOut(
                    description: "\(selector(step.target)) to exist (\(failure))", after: timeout)
            }
        case .assert: try await assert(step)
        case .request: try await request(step)
        case .ambient:
            guard pageOpened else { throw StepError.failed("no page is open: start the scenario with `open`") }
            let detail =
                step.arg.map { arg in (try? JSONValue.parse(Array(arg.utf8))) != nil ? arg : PagePrelude.jsString(arg) }
                ?? "null"
            _ = try await evaluate(
                "window.dispatchEvent(new CustomEvent(\(PagePrelude.jsString(step.target)), { detail: \(detail) })), true"
            )
        case .rotate:
            guard let arg = step.arg, let orientation = DeviceOrientation(rawValue: arg) else {
                throw StepError.invalidArgument("rotate needs portrait or landscape")
            }
            viewport = viewport.rotated(to: orientation)
            reuse.spoil()
            _ = try await page.send(
                "Emulation.setDeviceMetricsOverride", metrics(viewport), timeout: settings.pageTimeout)
        }
    }

    /// Records the in-page interruptions a wait dismissed (named in its result) on the running step.
    private func recordInterruptions(_ result: JSONValue) {
        for name in result["interruptions"]?.array?.compactMap(\.string) ?? [] {
            stepBox.state.withLock { $0.recorder }?.recordInterruption(name)
        }
    }

    struct Point { var x: Double, y: Double, width: Double, height: Double }

    func actionPoint(_ step: Step) async throws -> Point {
        guard pageOpened else { throw StepError.failed("no page is open: start the scenario with `open`") }
        stepBox.state.withLock { $0.awaited = step.target }
        defer { stepBox.state.withLock { $0.awaited = nil } }
        let timeout = settings.actionTimeout
        let p = try await evaluate(
            "__flowmatrix.actionPoint(\(locator(step.target).serialized), \(Int(timeout.milliseconds.rounded(.up))))",
            timeout: timeout + settings.pageTimeout)
        recordInterruptions(p)
        guard p["ok"]?.bool == true, let x = p["x"]?.double, let y = p["y"]?.double else {
            let detail = p["detail"]?.string ?? "no point"
            let waited = p["waited"]?.bool == true ? " (waited \(timeout.secondsText))" : ""
            throw StepError.failed("cannot \(step.verb.rawValue) \(selector(step.target)): \(detail)\(waited)")
        }
        return Point(x: x, y: y, width: p["width"]?.double ?? 0, height: p["height"]?.double ?? 0)
    }

    private func assert(_ step: Step) async throws {
        var assertion: StepArguments.Assertion
        switch StepArguments.assertion(step) {
        case .success(let a): assertion = a
        case .failure(let problem): throw StepError.invalidArgument("assert timeout: \(problem)")
        }
        let audited = try await auditing(step, assertion)
        if audited.expectations.count < assertion.expectations.count && audited.expectations.isEmpty { return }
        assertion = audited
        let whole = step.target == "layout" || step.target == "page"
        let id: String? = whole ? nil : step.target
        var conditions: [JSONValue] = []
        var rules: [String] = []
        // The clause lists are the ones the registry's manifest publishes (WebRegistry+Manifest.swift).
        let layoutWords = Self.layoutClauses
        for clause in assertion.expectations {
            if clause == Self.everyLayoutClause {
                rules += layoutWords
                continue
            }
            if layoutWords.contains(clause) {
                rules.append(clause)
                continue
            }
            if Self.conditionClauses.contains(clause) {
                conditions.append(condition(id, clause))
                continue
            }
            if clause.hasPrefix("key=") {
                conditions.append(try keyCondition(id, key: String(clause.dropFirst(4))))
                continue
            }
            guard let eq = clause.firstIndex(of: "="), Self.keyedClauses.contains(String(clause[..<eq]))
            else {
                let known = Self.manifest.assertClauses?.first?.clauses.joined(separator: ", ") ?? ""
                throw StepError.invalidArgument("unknown assert clause '\(clause)' (\(known))")
            }
            var c = condition(id, String(clause[..<eq]))
            if case .object(var members) = c {
                members["value"] = .string(String(clause[clause.index(after: eq)...]))
                c = .object(members)
            }
            conditions.append(c)
        }
        if whole && conditions.isEmpty && rules.isEmpty { rules = layoutWords }
        if !rules.isEmpty {
            conditions.append([
                "id": id.map(JSONValue.string) ?? .null, "kind": "layout", "rules": .array(rules.map(JSONValue.string)),
            ])
        }
        if conditions.isEmpty { conditions.append(condition(id, "exists")) }
        let timeout = assertion.timeout ?? settings.defaultAssertTimeout
        if let failure = try await waitFor(conditions, timeout: timeout, step: step) {
            throw StepError.assertionFailed(failure)
        }
    }

    private func request(_ step: Step) async throws {
        let (path, argument) = try requestFixture(step)
        guard let url = URL(string: path, relativeTo: settings.baseURL)?.absoluteURL else {
            throw StepError.invalidArgument("'\(path)' is not a URL or a path")
        }
        var fixture = Fixture(status: 200, contentType: "text/plain; charset=utf-8", body: argument ?? "")
        if let arg = argument, let json = try? JSONValue.parse(Array(arg.utf8)) {
            fixture.contentType = "application/json"
            // {"status": 503, "body": …} describes the response; any other JSON is the body itself.
            if let object = json.object, object.keys.allSatisfy({ ["status", "body", "contentType"].contains($0) }),
                object["status"] != nil || object["body"] != nil
            {
                fixture.status = object["status"]?.int ?? 200
                fixture.body = object["body"].map { $0.string ?? $0.serialized } ?? ""
                if let type = object["contentType"]?.string { fixture.contentType = type }
            }
        }
        events.addFixture(url: url.absoluteString, fixture)
        try await enableFetch()
    }

    func condition(_ id: String?, _ kind: String) -> JSONValue {
        ["id": id.map(locator) ?? .null, "kind": .string(kind)]
    }

    /// Waits in the page for every condition; nil when they hold, else the last failure's description.
    /// With `awaited`, the page objects' interruptions are dismissed while it waits (a `wait` or an action's wait).
    private func waitFor(
        _ conditions: [JSONValue], timeout: Duration, step: Step, awaited: String? = nil
    ) async throws -> String? {
        guard pageOpened else { throw StepError.failed("no page is open: start the scenario with `open`") }
        stepBox.state.withLock { $0.awaited = step.target }
        defer { stepBox.state.withLock { $0.awaited = nil } }
        let ms = Int(timeout.milliseconds.rounded(.up))
        // A wait or assert brings back the page's snapshot (DOM, generation) as it concluded, for its evidence.
        let snapshot = evidenceWanted && (step.verb == .wait || step.verb == .assert)
        let result = try await evaluate(
            "__flowmatrix.waitFor(\(JSONValue.array(conditions).serialized), \(ms), \(snapshot)"
                + "\(awaited.map { ", " + locator($0).serialized } ?? ""))",
            timeout: timeout + settings.pageTimeout)
        recordInterruptions(result)
        if snapshot { stepSnapshot = ScreenshotFreeze.snapshot(from: result["snapshot"]) }
        return result["ok"]?.bool == true ? nil : (result["detail"]?.string ?? "the condition did not hold")
    }

    /// Evaluates an expression in the page (awaiting a promise) and returns its value.
    func evaluate(_ expression: String, timeout: Duration? = nil) async throws -> JSONValue {
        let r = try await page.send(
            "Runtime.evaluate",
            [
                "expression": .string(expression), "returnByValue": true, "awaitPromise": true,
            ], timeout: timeout ?? settings.pageTimeout)
        if let details = r["exceptionDetails"] {
            let text = details["exception"]?["description"]?.string ?? details["text"]?.string ?? "exception"
            if text.contains("__flowmatrix is not defined") {
                throw StepError.failed(
                    "the page has no FlowMatrix prelude: only documents opened by `open` can be driven")
            }
            throw StepError.failed("the page threw: \(text)")
        }
        return r["result"]?["value"] ?? .null
    }

    /// The requests the seeded flaky network failed so far (`METHOD URL #n`).
    public nonisolated var failedRequests: [String] { events.failedRequests }
}
