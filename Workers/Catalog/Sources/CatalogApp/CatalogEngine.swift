import FlowSpec
import FlowVocabulary
import Foundation
import MatrixPlan
import RunConditions

/// Something a user or the world does to the app: every trigger enters the engine as an intent.
public enum CatalogIntent: Sendable, Hashable {
    /// Launch the app if needed and show a screen (for `item`, the argument is a product id).
    case open(CatalogID.Screen, argument: String?)
    case tap(String)
    case type(String, text: String)
    case swipe(String, SwipeDirection)
    case rotate(DeviceOrientation)
    /// The periodic refresh timer fired.
    case timerRefresh
    /// A push notification arrived (`order-shipped` or `price-drop`).
    case push(String)
}

/// Why an intent could not be carried out.
public struct IntentError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The Catalog app's pre-UI engine: it owns the app state, takes every trigger as an intent, talks to the
/// backend through the network conditioner (completions are events on the virtual clock), and exposes what each
/// screen shows as a `Surface` laid out for the run's viewport and direction.
public actor CatalogEngine {
    public nonisolated let conditions: RunConditions
    public nonisolated let localizer: Localizer
    public nonisolated let clock: VirtualClock
    public nonisolated let signal: ChangeSignal
    public nonisolated let backend: CatalogBackend
    /// Significant actions (adding to the cart, placing an order) before the "rate this app" prompt.
    public nonisolated let actionsBeforeRatePrompt: Int

    /// The simulated wall-clock date at virtual time zero (for delivery dates).
    public static let referenceDate = Date(timeIntervalSince1970: 1_772_442_000)  // 2026-03-02 09:00 UTC

    enum LoadState: Equatable { case idle, loading, loaded, failed(key: String) }
    enum CheckoutState: Equatable { case idle, submitting, placed(number: String, date: String), failed(key: String) }
    enum AlertKind: Equatable { case permission, rate }

    struct AppState {
        var launched = false
        var stack: [CatalogID.Screen] = [.catalog]
        var viewport: Viewport
        var products: [Product] = []
        var load = LoadState.idle
        var refreshing = false
        var search = ""
        var filter = ProductCategory.all
        var itemID: String?
        var cart: [CartLine] = []
        var signedInEmail: String?
        var email = ""
        var password = ""
        var signingIn = false
        var signInError: String?
        var checkout = CheckoutState.idle
        var alerts: [AlertKind] = []
        var banner: (key: String, opens: CatalogID.Screen)?
        var bannerGeneration = 0
        var notificationsOn = false
        var significantActions = 0
        var ratePrompted = false
        var toastGeneration = 0
        var showAddedToast = false
        var scroll: [CatalogID.Screen: Double] = [:]
        var inFlight: Set<Int> = []
        var nextRequest = 0
    }

    var state: AppState
    var version = 0
    var cached: (version: Int, surface: Surface)?
    var priceText: [Int: String] = [:]
    var intentLog: [String] = []

    public init(
        conditions: RunConditions, clock: VirtualClock = VirtualClock(), signal: ChangeSignal = ChangeSignal(),
        backend: CatalogBackend = CatalogBackend(), actionsBeforeRatePrompt: Int = 3
    ) {
        self.conditions = conditions
        self.localizer = conditions.localizer(CatalogStrings.tables)
        self.clock = clock
        self.signal = signal
        self.backend = backend
        self.actionsBeforeRatePrompt = actionsBeforeRatePrompt
        self.state = AppState(viewport: conditions.viewport)
    }

    // MARK: observation

    /// The current screen as the user experiences it (cached until the state changes).
    public func surface() -> Surface {
        if let cached, cached.version == version { return cached.surface }
        let spec = screenSpec()
        let (elements, findings) = LayoutEngine.layout(
            spec, width: state.viewport.width, height: state.viewport.height,
            direction: conditions.direction, pseudo: conditions.pseudo)
        let modal = state.alerts.first.map { $0 == .permission ? CatalogID.Alert.permission : CatalogID.Alert.rate }
        let settings = conditions.accessibility
        let surface = Surface(
            screen: spec.screen, viewportWidth: state.viewport.width, viewportHeight: state.viewport.height,
            orientation: state.viewport.orientation.rawValue, direction: conditions.direction.rawValue,
            locale: conditions.locale, pseudo: conditions.pseudo.rawValue,
            elements: CatalogTheme.of(settings.appearance, settings.contrast).paint(elements),
            findings: findings, modal: modal, appearance: settings.appearance.rawValue,
            textSize: settings.textSize.rawValue, contrast: settings.contrast.rawValue, language: localizer.tableLanguage)
        cached = (version, surface)
        return surface
    }

    /// The screen on top of the navigation stack.
    public var currentScreen: CatalogID.Screen { state.stack.last ?? .catalog }
    /// Requests sent and not yet answered.
    public var requestsInFlight: Int { state.inFlight.count }
    public var viewport: Viewport { state.viewport }
    /// Every intent handled, in order (for logs and tests).
    public var handledIntents: [String] { intentLog }

    // MARK: intents

    /// Handles one intent.
    /// - Throws: `IntentError` when the intent cannot apply to the current state (e.g. tapping a disabled button).
    public func send(_ intent: CatalogIntent) throws {
        intentLog.append(String(describing: intent))
        switch intent {
        case .open(let screen, let argument): try open(screen, argument)
        case .tap(let id): try tap(id)
        case .type(let id, let text): try type(id, text)
        case .swipe(let id, let direction): try swipe(id, direction)
        case .rotate(let orientation): state.viewport = state.viewport.rotated(to: orientation)
        case .timerRefresh:
            if state.launched { loadProducts(refresh: state.load == .loaded, attempt: 0) }
        case .push(let kind):
            let key = kind == "price-drop" ? "push.priceDrop" : "push.orderShipped"
            state.banner = (key, kind == "price-drop" ? .catalog : .cart)
            state.bannerGeneration += 1
            let generation = state.bannerGeneration
            clock.schedule(after: .seconds(5)) { [weak self] in await self?.dismissBanner(generation) }
        }
        changed()
    }

    func changed() {
        version &+= 1
        signal.notify()
    }

    func launchIfNeeded() {
        guard !state.launched else { return }
        state.launched = true
        let fixtures = backend.fixtures
        if fixtures.storedSession { state.signedInEmail = fixtures.accountEmail }
        if fixtures.firstLaunch {
            clock.schedule(after: .zero) { [weak self] in await self?.present(.permission) }
        }
        loadProducts(refresh: false, attempt: 0)
    }

    func open(_ screen: CatalogID.Screen, _ argument: String?) throws {
        launchIfNeeded()
        switch screen {
        case .catalog: state.stack = [.catalog]
        case .item:
            guard let argument, !argument.isEmpty else {
                throw IntentError(message: "open item needs a product id argument (e.g. p01)")
            }
            state.itemID = argument
            state.stack = [.catalog, .item]
        case .cart, .signIn, .settings: state.stack = [.catalog, screen]
        }
        state.showAddedToast = false
    }

    var filteredProducts: [Product] {
        let query = state.search.trimmingCharacters(in: .whitespaces)
        return state.products.filter { p in
            (state.filter == .all || p.category == state.filter)
                && (query.isEmpty
                    || p.name.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil)
        }
    }

    func index(in id: String, prefix: String, suffix: String = "") -> Int? {
        guard id.hasPrefix(prefix), id.hasSuffix(suffix) else { return nil }
        return Int(id.dropFirst(prefix.count).dropLast(suffix.count))
    }

    func push(_ screen: CatalogID.Screen) {
        state.stack.append(screen)
        state.showAddedToast = false
    }

    func pop() {
        if state.stack.count > 1 { state.stack.removeLast() }
        state.showAddedToast = false
    }

    func tap(_ id: String) throws {
        if let element = surface().element(id), !element.isEnabled {
            throw IntentError(message: "'\(id)' is disabled")
        }
        switch id {
        case CatalogID.Catalog.settingsButton: push(.settings)
        case CatalogID.Catalog.cartButton: push(.cart)
        case CatalogID.Catalog.searchClear: state.search = ""
        case CatalogID.Catalog.retry: loadProducts(refresh: false, attempt: 0)
        case CatalogID.Item.back, CatalogID.Cart.back, CatalogID.Settings.back, CatalogID.SignIn.cancel: pop()
        case CatalogID.Item.addToCart:
            guard let product = currentProduct else { throw IntentError(message: "no product is shown") }
            addToCart(product)
            state.showAddedToast = true
            state.toastGeneration += 1
            let generation = state.toastGeneration
            clock.schedule(after: .seconds(2)) { [weak self] in await self?.hideToast(generation) }
        case CatalogID.Cart.continueShopping:
            state.stack = [.catalog]
            if case .placed = state.checkout { state.checkout = .idle }
        case CatalogID.Cart.checkout:
            if state.signedInEmail == nil {
                push(.signIn)
            } else {
                state.checkout = .submitting
                send(.checkout(lines: state.cart), purpose: .checkout)
            }
        case CatalogID.SignIn.submit:
            state.signingIn = true
            state.signInError = nil
            send(.signIn(email: state.email, password: state.password), purpose: .signIn)
        case CatalogID.Settings.signIn: push(.signIn)
        case CatalogID.Settings.signOut: state.signedInEmail = nil
        case CatalogID.Settings.notifications: state.notificationsOn.toggle()
        case CatalogID.Alert.permissionAllow, CatalogID.Alert.permissionDeny:
            state.alerts.removeAll { $0 == .permission }
            state.notificationsOn = id == CatalogID.Alert.permissionAllow
        case CatalogID.Alert.rateNow, CatalogID.Alert.rateNotNow:
            state.alerts.removeAll { $0 == .rate }
        case CatalogID.Banner.push:
            if let banner = state.banner {
                state.stack = banner.opens == .catalog ? [.catalog] : [.catalog, banner.opens]
                state.banner = nil
            }
        default:
            if id.hasPrefix("catalog.filter."),
                let c = ProductCategory(rawValue: String(id.dropFirst("catalog.filter.".count)))
            {
                state.filter = c
            } else if let i = index(in: id, prefix: "catalog.item.", suffix: ".add") {
                let list = filteredProducts
                guard list.indices.contains(i) else { throw IntentError(message: "there is no product \(i)") }
                addToCart(list[i])
            } else if let i = index(in: id, prefix: "catalog.item.") {
                let list = filteredProducts
                guard list.indices.contains(i) else { throw IntentError(message: "there is no product \(i)") }
                state.itemID = list[i].id
                push(.item)
            } else if let i = index(in: id, prefix: "cart.line.", suffix: ".increment"), state.cart.indices.contains(i)
            {
                state.cart[i].quantity += 1
            } else if let i = index(in: id, prefix: "cart.line.", suffix: ".decrement"), state.cart.indices.contains(i)
            {
                state.cart[i].quantity -= 1
                if state.cart[i].quantity <= 0 { state.cart.remove(at: i) }
            } else {
                throw IntentError(message: "'\(id)' does nothing on the \(currentScreen.rawValue) screen")
            }
        }
    }

    func type(_ id: String, _ text: String) throws {
        switch id {
        case CatalogID.Catalog.search: state.search = text
        case CatalogID.SignIn.email: state.email = text
        case CatalogID.SignIn.password: state.password = text
        default: throw IntentError(message: "'\(id)' is not a text field")
        }
    }

    func swipe(_ id: String, _ direction: SwipeDirection) throws {
        switch (id, direction) {
        case (CatalogID.Catalog.list, .up), (CatalogID.Catalog.list, .down):
            let page = Double(state.viewport.height) * 0.6
            let current = state.scroll[.catalog] ?? 0
            let maxScroll = maximumScroll()
            state.scroll[.catalog] = min(maxScroll, max(0, current + (direction == .up ? page : -page)))
        case (CatalogID.Banner.push, _):
            state.banner = nil
        case (_, .left), (_, .right):
            guard let i = index(in: id, prefix: "cart.line."), state.cart.indices.contains(i) else {
                throw IntentError(message: "'\(id)' cannot be swiped \(direction.rawValue)")
            }
            state.cart.remove(at: i)
        default:
            throw IntentError(message: "'\(id)' cannot be swiped \(direction.rawValue)")
        }
    }

    func maximumScroll() -> Double {
        var spec = screenSpec()
        spec.scrollOffset = 0
        let (elements, _) = LayoutEngine.layout(
            spec, width: state.viewport.width, height: state.viewport.height,
            direction: .leftToRight, pseudo: .none)
        let contentBottom = elements.filter { $0.role != .alert && $0.role != .banner }.map(\.frame.maxY).max() ?? 0
        return max(0, contentBottom + LayoutEngine.rowGap - Double(state.viewport.height) * 0.8)
    }

    var currentProduct: Product? {
        guard let id = state.itemID else { return nil }
        return state.products.first { $0.id == id }
    }

    func addToCart(_ product: Product) {
        if let i = state.cart.firstIndex(where: { $0.product.id == product.id }) {
            state.cart[i].quantity += 1
        } else {
            state.cart.append(CartLine(product: product, quantity: 1))
        }
        if case .placed = state.checkout { state.checkout = .idle }
        noteSignificantAction()
    }

    func noteSignificantAction() {
        state.significantActions += 1
        if state.significantActions >= actionsBeforeRatePrompt, !state.ratePrompted {
            state.ratePrompted = true
            clock.schedule(after: .seconds(2)) { [weak self] in await self?.present(.rate) }
        }
    }

    // MARK: ambient events (run by the virtual clock)

    func present(_ alert: AlertKind) {
        state.alerts.append(alert)
        changed()
    }

    func dismissBanner(_ generation: Int) {
        guard state.bannerGeneration == generation, state.banner != nil else { return }
        state.banner = nil
        changed()
    }

    func hideToast(_ generation: Int) {
        guard state.toastGeneration == generation, state.showAddedToast else { return }
        state.showAddedToast = false
        changed()
    }

    // MARK: network

    enum Purpose: Sendable { case products(refresh: Bool, attempt: Int), signIn, checkout }

    func loadProducts(refresh: Bool, attempt: Int) {
        if !refresh { state.load = .loading } else { state.refreshing = true }
        send(.products, purpose: .products(refresh: refresh, attempt: attempt))
    }

    func send(_ request: BackendRequest, purpose: Purpose) {
        let id = state.nextRequest
        state.nextRequest += 1
        state.inFlight.insert(id)
        let response = backend.answer(request)
        let decision = conditions.network.deliver(
            requestBytes: request.requestBytes, responseBytes: response.responseBytes,
            on: clock
        ) { [weak self] decision in
            await self?.complete(id, purpose, decision.failure.map { .failure($0) } ?? .success(response))
        }
        StepContext.log(
            "request #\(id) \(purpose) on \(conditions.networkProfile.name): "
                + "\(decision.failure.map { "fails (\($0.code))" } ?? "succeeds") after \(decision.delay.secondsText)")
    }

    func complete(_ id: Int, _ purpose: Purpose, _ result: Result<BackendResponse, NetworkFailure>) {
        state.inFlight.remove(id)
        switch (purpose, result) {
        case (.products, .success(.products(let list))):
            state.products = list
            state.load = .loaded
            state.refreshing = false
        case (.products(let refresh, _), .success):
            state.refreshing = false
            if !refresh { state.load = .failed(key: "catalog.error.failed") }
        case (.products(let refresh, let attempt), .failure(let failure)):
            if attempt == 0 && failure != .notConnected {
                // One automatic retry for an idempotent GET after a lost connection.
                clock.schedule(after: .seconds(1)) { [weak self] in await self?.retryProducts(refresh: refresh) }
            } else if refresh {
                state.refreshing = false
            } else {
                state.load = .failed(key: failure == .notConnected ? "catalog.error.offline" : "catalog.error.failed")
            }
        case (.signIn, .success(.signedIn(let email))):
            state.signingIn = false
            state.signedInEmail = email
            state.password = ""
            if currentScreen == .signIn { pop() }
        case (.signIn, .success(let response)):
            state.signingIn = false
            state.signInError = response == .refused("locked") ? "signin.error.locked" : "signin.error.credentials"
        case (.signIn, .failure):
            state.signingIn = false
            state.signInError = "signin.error.network"
        case (.checkout, .success(.orderPlaced(let number))):
            let arrival = Self.referenceDate.addingTimeInterval(clock.now().milliseconds / 1000 + 3 * 86_400)
            state.checkout = .placed(number: number, date: localizer.formatting.date(arrival))
            state.cart = []
            noteSignificantAction()
        case (.checkout, .success):
            state.checkout = .failed(key: "cart.error.declined")
        case (.checkout, .failure):
            state.checkout = .failed(key: "cart.error.network")
        }
        changed()
    }

    func retryProducts(refresh: Bool) {
        send(.products, purpose: .products(refresh: refresh, attempt: 1))
        changed()
    }
}
