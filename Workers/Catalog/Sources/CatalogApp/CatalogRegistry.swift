import FlowSpec
import Foundation
import MatrixPlan
import RunConditions
import Wireframe

/// Tunables of the headless Catalog registry.
public struct CatalogRegistrySettings: Sendable, Hashable {
    /// How long `wait`, `assert` and the implicit wait of `tap`/`type`/`swipe` wait when a step gives no timeout
    /// (simulated time). Default 5 s.
    public var defaultTimeout: Duration = .seconds(5)
    /// The longest `ambient network.settle` lets simulated time run. Default 60 s.
    public var settleLimit: Duration = .seconds(60)

    public init() {}
}

/// The headless step registry of the Catalog app: every verb drives the pre-UI engine through intents, waits run
/// on the job's `VirtualClock`, and the engine's interruptions (the notification-permission alert on first launch,
/// the "rate this app" prompt) are handled by interruption monitors while steps wait.
///
/// | verb | targets | arg |
/// |---|---|---|
/// | `open` | `catalog`, `item`, `cart`, `signin`, `settings` | for `item`: a product id (`p01`) |
/// | `tap` | buttons, rows, chips, alert buttons, the push banner (`CatalogID`) | — |
/// | `type` | `catalog.search`, `signin.email`, `signin.password` | the text |
/// | `swipe` | `catalog.list` (up/down scrolls), `cart.line.N` (left/right deletes), `banner.push` | direction |
/// | `wait` | any element | timeout in seconds |
/// | `assert` | `page`: `accessible` (the accessibility audit, `CatalogAudit`); any element: `absent`, `text=`, `contains=`, `key=`, `value=`, `enabled`, `disabled`, `selected`, `not-selected`, `hittable`, `visible`, `no-truncation`; `layout`: `no-truncation`, `no-overlap`, `on-screen`, `mirrored`, `localized`, `clean` | clauses; a number is the timeout |
/// | `request` | `catalog.products`, `auth.account`, `auth.session`, `checkout.payment`, `app.install` | the fixture |
/// | `ambient` | `timer.refresh`, `push.notification`, `network.settle`, `time.pass` | kind / seconds |
/// | `rotate` | `device` | `portrait` or `landscape` |
///
/// Anything else throws `StepError.unknownStep`.
public final class CatalogRegistry: AsyncStepRegistry {
    public let conditions: RunConditions
    public let engine: CatalogEngine
    public let clock: VirtualClock
    public let signal: ChangeSignal
    public let monitors: InterruptionMonitors
    public let backend: CatalogBackend
    public let settings: CatalogRegistrySettings

    public var waitClock: any WaitClock { clock }

    /// A fresh app for one job.
    public init(conditions: RunConditions, settings: CatalogRegistrySettings = CatalogRegistrySettings()) {
        self.conditions = conditions
        self.settings = settings
        let clock = VirtualClock()
        let signal = ChangeSignal()
        let backend = CatalogBackend()
        let engine = CatalogEngine(conditions: conditions, clock: clock, signal: signal, backend: backend)
        self.clock = clock
        self.signal = signal
        self.backend = backend
        self.engine = engine
        let monitors = InterruptionMonitors()
        monitors.register(
            Interruption(
                name: "notification-permission", element: CatalogID.Alert.permission,
                isPresent: { await engine.surface().modal == CatalogID.Alert.permission },
                handle: { try await engine.send(.tap(CatalogID.Alert.permissionDeny)) }))
        monitors.register(
            Interruption(
                name: "rate-app-prompt", element: CatalogID.Alert.rate,
                isPresent: { await engine.surface().modal == CatalogID.Alert.rate },
                handle: { try await engine.send(.tap(CatalogID.Alert.rateNotNow)) }))
        self.monitors = monitors
    }

    private var waiter: ConditionWaiter { ConditionWaiter(clock: clock, signal: signal, monitors: monitors) }

    public func execute(_ step: Step) async throws {
        do {
            switch step.verb {
            case .open: try await open(step)
            case .tap: try await tap(step)
            case .type: try await type(step)
            case .swipe: try await swipe(step)
            case .wait: try await wait(step)
            case .assert: try await assert(step)
            case .request: try request(step)
            case .ambient: try await ambient(step)
            case .rotate: try await rotate(step)
            }
        } catch let error as IntentError {
            throw StepError.failed(error.message)
        }
    }

    // MARK: verbs

    private func open(_ step: Step) async throws {
        guard let screen = CatalogID.Screen(rawValue: step.target) else { throw StepError.unknownStep(step) }
        try await engine.send(.open(screen, argument: step.arg))
    }

    private func tap(_ step: Step) async throws {
        guard CatalogID.matches(step.target, anyOf: CatalogID.tappableFamilies) else {
            throw StepError.unknownStep(step)
        }
        try await waitUntilHittable(step.target)
        try await engine.send(.tap(step.target))
    }

    private func type(_ step: Step) async throws {
        guard CatalogID.matches(step.target, anyOf: CatalogID.fieldFamilies) else { throw StepError.unknownStep(step) }
        guard let text = step.arg else { throw StepError.invalidArgument("type needs the text to type") }
        try await waitUntilHittable(step.target)
        try await engine.send(.type(step.target, text: text))
    }

    private func swipe(_ step: Step) async throws {
        guard CatalogID.matches(step.target, anyOf: CatalogID.swipeFamilies) else { throw StepError.unknownStep(step) }
        guard let direction = step.arg.flatMap(SwipeDirection.init(rawValue:)) else {
            throw StepError.invalidArgument("swipe needs up, down, left or right")
        }
        try await waitUntilHittable(step.target)
        try await engine.send(.swipe(step.target, direction))
    }

    private func wait(_ step: Step) async throws {
        guard CatalogID.matches(step.target, anyOf: CatalogID.elementFamilies) else {
            throw StepError.unknownStep(step)
        }
        let timeout: Duration
        switch StepArguments.waitTimeout(step) {
        case .success(let t): timeout = t ?? settings.defaultTimeout
        case .failure(let problem): throw StepError.invalidArgument("wait timeout: \(problem)")
        }
        let engine = self.engine, id = step.target
        try await waiter.wait(for: "'\(id)' to appear", element: id, timeout: timeout) {
            guard let e = await engine.surface().element(id) else { return false }
            return !e.isCoveredByModal
        }
    }

    private func waitUntilHittable(_ id: String) async throws {
        let engine = self.engine
        try await waiter.wait(for: "'\(id)' to be hittable", element: id, timeout: settings.defaultTimeout) {
            await engine.surface().element(id)?.isHittable == true
        }
    }

    private func request(_ step: Step) throws {
        guard CatalogID.fixtureTargets.contains(step.target) else { throw StepError.unknownStep(step) }
        do {
            StepContext.log("fixture " + (try backend.seed(step.target, step.arg)))
        } catch {
            throw StepError.invalidArgument("'\(step.arg ?? "")' is not a fixture of \(step.target)")
        }
    }

    private func ambient(_ step: Step) async throws {
        switch step.target {
        case CatalogID.Ambient.timerRefresh:
            try await engine.send(.timerRefresh)
        case CatalogID.Ambient.push:
            let kind = step.arg ?? "order-shipped"
            guard kind == "order-shipped" || kind == "price-drop" else {
                throw StepError.invalidArgument("push kind '\(kind)': use order-shipped or price-drop")
            }
            try await engine.send(.push(kind))
        case CatalogID.Ambient.networkSettle:
            let engine = self.engine
            try await ConditionWaiter(clock: clock, signal: signal).wait(
                for: "the network to settle", timeout: settings.settleLimit
            ) { await engine.requestsInFlight == 0 }
        case CatalogID.Ambient.timePass:
            let seconds: Duration
            switch StepArguments.parseSeconds(step.arg ?? "1") {
            case .success(let d): seconds = d
            case .failure: throw StepError.invalidArgument("time.pass needs a positive number of seconds")
            }
            await clock.advance(by: seconds)
        default:
            throw StepError.unknownStep(step)
        }
    }

    private func rotate(_ step: Step) async throws {
        guard step.target == CatalogID.device else { throw StepError.unknownStep(step) }
        guard let orientation = step.arg.flatMap(DeviceOrientation.init(rawValue:)) else {
            throw StepError.invalidArgument("rotate needs portrait or landscape")
        }
        try await engine.send(.rotate(orientation))
    }

    // MARK: assert

    /// Layout clauses of `assert layout` and the findings each one forbids.
    static let layoutClauses: [String: Set<LayoutFinding.Kind>] = [
        "no-truncation": [.truncated], "no-overlap": [.overlapping], "on-screen": [.offScreen],
        "mirrored": [.notMirrored], "localized": [.notLocalized], "clean": Set(LayoutFinding.Kind.allCases),
    ]

    static let elementClauses: Set<String> = [
        "absent", "enabled", "disabled", "selected", "not-selected", "hittable", "visible", "no-truncation",
    ]
    static let elementKeyedClauses: Set<String> = ["text", "contains", "key", "value"]

    private func assert(_ step: Step) async throws {
        let assertion: StepArguments.Assertion
        switch StepArguments.assertion(step) {
        case .success(let a): assertion = a
        case .failure(let problem): throw StepError.invalidArgument("assert timeout: \(problem)")
        }
        if step.target == CatalogID.layout {
            try await assertLayout(assertion)
            return
        }
        if step.target == AuditRule.pageTarget {
            try await assertAccessible(assertion)
            return
        }
        guard CatalogID.matches(step.target, anyOf: CatalogID.elementFamilies) else {
            throw StepError.unknownStep(step)
        }
        for clause in assertion.expectations {
            let key = clause.split(separator: "=", maxSplits: 1).first.map(String.init) ?? clause
            guard
                Self.elementClauses.contains(clause) || (clause.contains("=") && Self.elementKeyedClauses.contains(key))
            else {
                throw StepError.invalidArgument(
                    "unknown expectation '\(clause)'; use absent, text=…, contains=…, key=…, value=…, enabled, disabled, selected, not-selected, hittable, visible or no-truncation"
                )
            }
        }
        let id = step.target, engine = self.engine, localizer = engine.localizer
        let check: @Sendable (SurfaceElement?) -> String? = { element in
            Self.mismatch(element, id: id, assertion: assertion, localizer: localizer)
        }
        do {
            try await waiter.wait(
                for: "'\(id)' to match", element: id, timeout: assertion.timeout ?? settings.defaultTimeout
            ) {
                check(await engine.surface().element(id)) == nil
            }
        } catch StepError.conditionTimedOut {
            let problem = check(await engine.surface().element(id)) ?? "the condition did not hold"
            throw StepError.assertionFailed(problem)
        }
    }

    /// Why `element` does not meet `assertion`, or nil when it does.
    static func mismatch(
        _ element: SurfaceElement?, id: String, assertion: StepArguments.Assertion,
        localizer: Localizer
    ) -> String? {
        if assertion.has("absent") {
            return element == nil ? nil : "'\(id)' is still shown (“\(element?.label ?? "")”)"
        }
        guard let e = element else { return "'\(id)' does not exist on this screen" }
        if e.isCoveredByModal, assertion.has("hittable") { return "'\(id)' is covered by an alert" }
        for clause in assertion.expectations {
            switch clause {
            case "enabled" where !e.isEnabled: return "'\(id)' is disabled"
            case "disabled" where e.isEnabled: return "'\(id)' is enabled"
            case "selected" where !e.isSelected: return "'\(id)' is not selected"
            case "not-selected" where e.isSelected: return "'\(id)' is selected"
            case "hittable" where !e.isHittable: return "'\(id)' is not hittable"
            case "visible" where !e.isVisible: return "'\(id)' is not visible (scrolled away)"
            case "no-truncation" where e.isTruncated: return "'\(id)' is truncated: “\(e.label)”"
            default: break
            }
        }
        if let text = assertion.value(of: "text"), e.label != text {
            return "'\(id)' shows “\(e.label)”, expected “\(text)”"
        }
        if let part = assertion.value(of: "contains"), !e.label.contains(part) {
            return "'\(id)' shows “\(e.label)”, which does not contain “\(part)”"
        }
        if let key = assertion.value(of: "key") {
            let expected = localizer.string(key)
            if e.label != expected {
                return "'\(id)' shows “\(e.label)”, expected the \(localizer.locale) string '\(key)' “\(expected)”"
            }
        }
        if let value = assertion.value(of: "value"), e.value != value {
            return "'\(id)' has value “\(e.value ?? "none")”, expected “\(value)”"
        }
        return nil
    }

    private func assertLayout(_ assertion: StepArguments.Assertion) async throws {
        var kinds: Set<LayoutFinding.Kind> = []
        for clause in assertion.expectations.isEmpty ? ["clean"] : assertion.expectations {
            guard let forbidden = Self.layoutClauses[clause] else {
                throw StepError.invalidArgument(
                    "unknown layout expectation '\(clause)'; use \(Self.layoutClauses.keys.sorted().joined(separator: ", "))"
                )
            }
            kinds.formUnion(forbidden)
        }
        let engine = self.engine, forbidden = kinds
        let offending: @Sendable (Surface) -> [LayoutFinding] = { surface in
            surface.findings.filter { forbidden.contains($0.kind) }
        }
        if let timeout = assertion.timeout {
            do {
                try await waiter.wait(for: "a clean layout", timeout: timeout) {
                    offending(await engine.surface()).isEmpty
                }
            } catch StepError.conditionTimedOut {}
        }
        let surface = await engine.surface()
        let findings = offending(surface)
        guard findings.isEmpty else {
            let context =
                "\(surface.locale), \(surface.direction)\(surface.pseudo == "none" ? "" : ", pseudo-\(surface.pseudo)"), \(surface.viewportWidth)x\(surface.viewportHeight)"
            throw StepError.assertionFailed(
                "layout of the \(surface.screen) screen (\(context)): "
                    + findings.map(\.message).joined(separator: "; "))
        }
    }

    // MARK: artifacts

    /// The current screen as JSON: screen, locale, direction, pseudo mode, viewport, elements (identities, labels,
    /// values, frames, states) and layout findings. It holds only what is on screen (no time, no seed) and its keys
    /// are sorted, so identical screens give identical bytes (and deduplicate in a content-addressed store).
    public func surfaceSnapshotJSON() async -> [UInt8] {
        Self.snapshotJSON(of: await engine.surface())
    }

    /// A PNG of the current screen at the job's viewport: element boxes (mirrored in right-to-left), truncated
    /// and off-screen elements in red, overlapping ones in orange; empty only if cairo fails.
    public func wireframePNG() async -> [UInt8] {
        let surface = await engine.surface()
        return (try? Wireframe.png(Self.wireframe(of: surface))) ?? []
    }

    /// The wireframe document of a surface.
    public static func wireframe(of surface: Surface) -> WireframeDocument {
        var flags: [String: WireframeBox.Flags] = [:]
        for finding in surface.findings {
            let flag: WireframeBox.Flags =
                switch finding.kind {
                case .truncated: .truncated
                case .overlapping: .overlapping
                case .offScreen: .offScreen
                case .notMirrored: .notMirrored
                case .notLocalized: .notLocalized
                }
            flags[finding.element, default: []].insert(flag)
            if let other = finding.other { flags[other, default: []].insert(flag) }
        }
        let boxes = surface.elements.filter { !$0.id.isEmpty && $0.frame.width > 0 && $0.frame.height > 0 }.map { e in
            let style: WireframeBox.Style =
                switch e.role {
                case .text: .text
                case .button: .button
                case .field: .field
                case .image: .image
                case .toggle, .indicator: .control
                case .container: .container
                case .alert, .banner: .overlay
                }
            return WireframeBox(
                x: e.frame.x, y: e.frame.y, width: e.frame.width, height: e.frame.height,
                label: e.role == .toggle ? (e.value ?? "") : (e.role == .container ? "" : e.label),
                style: style, flags: flags[e.id] ?? [])
        }
        // Containers first, so they sit under their contents.
        let ordered = boxes.filter { $0.style == .container } + boxes.filter { $0.style != .container }
        return WireframeDocument(
            width: surface.viewportWidth, height: surface.viewportHeight,
            caption:
                "\(surface.screen) · \(surface.locale) · \(surface.pseudo) · \(surface.viewportWidth)x\(surface.viewportHeight)",
            rightToLeft: surface.direction == TextDirection.rightToLeft.rawValue, boxes: ordered)
    }
}

/// The JSON artifact of one screen.
public struct SurfaceSnapshot: Sendable, Hashable, Codable {
    /// The snapshot format's version.
    public var format: Int
    public var surface: Surface

    public init(surface: Surface, format: Int = 1) {
        self.format = format
        self.surface = surface
    }
}

/// What the worker calls once per job.
public enum CatalogWorkerKit {
    /// The registry name scenarios and matrices select (`"registry": "catalog"`).
    public static let registryName = "catalog"

    /// A fresh registry (a fresh app) for one job.
    /// - Throws: `RunConditionsError` when a built-in axis value is invalid.
    public static func makeRegistry(
        configuration: Configuration, seed: UInt64,
        settings: CatalogRegistrySettings = CatalogRegistrySettings()
    ) throws -> CatalogRegistry {
        CatalogRegistry(conditions: try RunConditions(validating: configuration, seed: seed), settings: settings)
    }

    /// A fresh registry from axis → value pairs.
    public static func makeRegistry(
        configuration: [String: String], seed: UInt64,
        settings: CatalogRegistrySettings = CatalogRegistrySettings()
    ) throws -> CatalogRegistry {
        try makeRegistry(configuration: Configuration(configuration), seed: seed, settings: settings)
    }
}
