import FlowSpec
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

    private var state: AppState
    private var version = 0
    private var cached: (version: Int, surface: Surface)?
    private var priceText: [Int: String] = [:]
    private var intentLog: [String] = []

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
        let surface = Surface(
            screen: spec.screen, viewportWidth: state.viewport.width, viewportHeight: state.viewport.height,
            orientation: state.viewport.orientation.rawValue, direction: conditions.direction.rawValue,
            locale: conditions.locale, pseudo: conditions.pseudo.rawValue, elements: elements,
            findings: findings, modal: modal)
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

    private func changed() {
        version &+= 1
        signal.notify()
    }

    private func launchIfNeeded() {
        guard !state.launched else { return }
        state.launched = true
        let fixtures = backend.fixtures
        if fixtures.storedSession { state.signedInEmail = fixtures.accountEmail }
        if fixtures.firstLaunch {
            clock.schedule(after: .zero) { [weak self] in await self?.present(.permission) }
        }
        loadProducts(refresh: false, attempt: 0)
    }

    private func open(_ screen: CatalogID.Screen, _ argument: String?) throws {
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

    private var filteredProducts: [Product] {
        let query = state.search.trimmingCharacters(in: .whitespaces)
        return state.products.filter { p in
            (state.filter == .all || p.category == state.filter)
                && (query.isEmpty
                    || p.name.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil)
        }
    }

    private func index(in id: String, prefix: String, suffix: String = "") -> Int? {
        guard id.hasPrefix(prefix), id.hasSuffix(suffix) else { return nil }
        return Int(id.dropFirst(prefix.count).dropLast(suffix.count))
    }

    private func push(_ screen: CatalogID.Screen) {
        state.stack.append(screen)
        state.showAddedToast = false
    }

    private func pop() {
        if state.stack.count > 1 { state.stack.removeLast() }
        state.showAddedToast = false
    }

    private func tap(_ id: String) throws {
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

    private func type(_ id: String, _ text: String) throws {
        switch id {
        case CatalogID.Catalog.search: state.search = text
        case CatalogID.SignIn.email: state.email = text
        case CatalogID.SignIn.password: state.password = text
        default: throw IntentError(message: "'\(id)' is not a text field")
        }
    }

    private func swipe(_ id: String, _ direction: SwipeDirection) throws {
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

    private func maximumScroll() -> Double {
        var spec = screenSpec()
        spec.scrollOffset = 0
        let (elements, _) = LayoutEngine.layout(
            spec, width: state.viewport.width, height: state.viewport.height,
            direction: .leftToRight, pseudo: .none)
        let contentBottom = elements.filter { $0.role != .alert && $0.role != .banner }.map(\.frame.maxY).max() ?? 0
        return max(0, contentBottom + LayoutEngine.rowGap - Double(state.viewport.height) * 0.8)
    }

    private var currentProduct: Product? {
        guard let id = state.itemID else { return nil }
        return state.products.first { $0.id == id }
    }

    private func addToCart(_ product: Product) {
        if let i = state.cart.firstIndex(where: { $0.product.id == product.id }) {
            state.cart[i].quantity += 1
        } else {
            state.cart.append(CartLine(product: product, quantity: 1))
        }
        if case .placed = state.checkout { state.checkout = .idle }
        noteSignificantAction()
    }

    private func noteSignificantAction() {
        state.significantActions += 1
        if state.significantActions >= actionsBeforeRatePrompt, !state.ratePrompted {
            state.ratePrompted = true
            clock.schedule(after: .seconds(2)) { [weak self] in await self?.present(.rate) }
        }
    }

    // MARK: ambient events (run by the virtual clock)

    private func present(_ alert: AlertKind) {
        state.alerts.append(alert)
        changed()
    }

    private func dismissBanner(_ generation: Int) {
        guard state.bannerGeneration == generation, state.banner != nil else { return }
        state.banner = nil
        changed()
    }

    private func hideToast(_ generation: Int) {
        guard state.toastGeneration == generation, state.showAddedToast else { return }
        state.showAddedToast = false
        changed()
    }

    // MARK: network

    enum Purpose: Sendable { case products(refresh: Bool, attempt: Int), signIn, checkout }

    private func loadProducts(refresh: Bool, attempt: Int) {
        if !refresh { state.load = .loading } else { state.refreshing = true }
        send(.products, purpose: .products(refresh: refresh, attempt: attempt))
    }

    private func send(_ request: BackendRequest, purpose: Purpose) {
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

    private func complete(_ id: Int, _ purpose: Purpose, _ result: Result<BackendResponse, NetworkFailure>) {
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

    private func retryProducts(refresh: Bool) {
        send(.products, purpose: .products(refresh: refresh, attempt: 1))
        changed()
    }

    // MARK: surfaces

    private func price(_ minor: Int) -> String {
        if let text = priceText[minor] { return text }
        let text = localizer.formatting.currency(minorUnits: minor, code: Store.currency)
        priceText[minor] = text
        return text
    }

    private func text(_ id: String, _ key: String, _ args: [String: String] = [:]) -> SurfaceElement {
        SurfaceElement(id: id, role: .text, label: localizer.string(key, args))
    }

    private func button(_ id: String, _ key: String, enabled: Bool = true, selected: Bool = false) -> SurfaceElement {
        SurfaceElement(id: id, role: .button, label: localizer.string(key), isEnabled: enabled, isSelected: selected)
    }

    private func icon(_ id: String, _ symbol: String, value: String? = nil) -> SurfaceElement {
        SurfaceElement(id: id, role: .button, label: symbol, value: value, isContent: true)
    }

    private func content(
        _ id: String, _ label: String, role: ElementRole = .text, value: String? = nil
    ) -> SurfaceElement {
        SurfaceElement(id: id, role: role, label: label, value: value, isContent: true)
    }

    func screenSpec() -> ScreenSpec {
        let screen = currentScreen
        var spec: ScreenSpec
        switch screen {
        case .catalog: spec = catalogSpec()
        case .item: spec = itemSpec()
        case .cart: spec = cartSpec()
        case .signIn: spec = signInSpec()
        case .settings: spec = settingsSpec()
        }
        spec.scrollOffset = state.scroll[screen] ?? 0
        if let banner = state.banner {
            spec.banner = LayoutLeaf(
                SurfaceElement(id: CatalogID.Banner.push, role: .banner, label: localizer.string(banner.key)),
                sizing: .fill, maxLines: 3)
        }
        switch state.alerts.first {
        case .permission:
            spec.alert = ScreenSpec.AlertSpec(
                container: SurfaceElement(
                    id: CatalogID.Alert.permission, role: .alert, label: localizer.string("alert.permission.title")),
                buttons: [
                    button(CatalogID.Alert.permissionDeny, "alert.permission.deny"),
                    button(CatalogID.Alert.permissionAllow, "alert.permission.allow"),
                ])
        case .rate:
            spec.alert = ScreenSpec.AlertSpec(
                container: SurfaceElement(
                    id: CatalogID.Alert.rate, role: .alert, label: localizer.string("alert.rate.title")),
                buttons: [
                    button(CatalogID.Alert.rateNotNow, "alert.rate.notNow"),
                    button(CatalogID.Alert.rateNow, "alert.rate.rate"),
                ])
        case nil:
            break
        }
        return spec
    }

    private func navBack(_ id: String) -> LayoutLeaf {
        LayoutLeaf(button(id, "common.back"), padding: 8)
    }

    private func catalogSpec() -> ScreenSpec {
        var spec = ScreenSpec(screen: CatalogID.Screen.catalog.rawValue)
        spec.navLeading = LayoutLeaf(icon(CatalogID.Catalog.settingsButton, "⚙"), sizing: .fixed(44))
        spec.navTitle = LayoutLeaf(text(CatalogID.Catalog.title, "catalog.title"), font: .headline)
        let count = state.cart.reduce(0) { $0 + $1.quantity }
        var cart = button(CatalogID.Catalog.cartButton, "common.cart")
        cart.value = String(count)
        spec.navTrailing = [LayoutLeaf(cart, padding: 8)]

        var field = SurfaceElement(
            id: CatalogID.Catalog.search, role: .field,
            label: state.search.isEmpty ? localizer.string("catalog.search") : state.search,
            value: state.search, isContent: !state.search.isEmpty)
        field.isSelected = !state.search.isEmpty
        var searchRow = [LayoutLeaf(field, sizing: .fill)]
        if !state.search.isEmpty {
            searchRow.append(LayoutLeaf(icon(CatalogID.Catalog.searchClear, "×"), sizing: .fixed(44)))
        }
        spec.body.append(LayoutRow(searchRow, spacing: 8))
        spec.body.append(
            LayoutRow(
                ProductCategory.allCases.map { c in
                    LayoutLeaf(
                        button(
                            CatalogID.Catalog.filter(c), "catalog.filter.\(c.rawValue)", selected: state.filter == c),
                        padding: 12)
                }, spacing: 8, overflow: .wrap))

        switch state.load {
        case .idle, .loading:
            spec.body.append(
                LayoutRow([
                    LayoutLeaf(
                        SurfaceElement(id: CatalogID.Catalog.loading, role: .indicator, label: ""), sizing: .fixed(20)),
                    LayoutLeaf(text(CatalogID.Catalog.loading + ".label", "catalog.loading"), sizing: .fill),
                ]))
        case .failed(let key):
            spec.body.append(LayoutRow([LayoutLeaf(text(CatalogID.Catalog.error, key), sizing: .fill, maxLines: 3)]))
            spec.body.append(LayoutRow([LayoutLeaf(button(CatalogID.Catalog.retry, "common.retry"))]))
        case .loaded:
            if state.refreshing {
                spec.body.append(
                    LayoutRow([
                        LayoutLeaf(
                            SurfaceElement(id: CatalogID.Catalog.refreshing, role: .indicator, label: ""),
                            sizing: .fixed(20)),
                        LayoutLeaf(text(CatalogID.Catalog.refreshing + ".label", "catalog.refreshing"), sizing: .fill),
                    ]))
            }
            let list = filteredProducts
            var countText = text(
                CatalogID.Catalog.resultCount, "catalog.results",
                ["count": localizer.formatting.number(list.count)])
            countText.value = String(list.count)
            spec.body.append(LayoutRow([LayoutLeaf(countText, font: .caption, sizing: .fill)]))
            if list.isEmpty {
                spec.body.append(
                    LayoutRow([LayoutLeaf(text(CatalogID.Catalog.empty, "catalog.empty"), sizing: .fill, maxLines: 3)]))
            } else {
                let first = spec.body.count
                for (i, p) in list.enumerated() {
                    let row = SurfaceElement(
                        id: CatalogID.Catalog.item(i), role: .container, label: p.name, value: p.id, isContent: true)
                    spec.containers.append(ContainerSpec(element: row, rows: spec.body.count..<spec.body.count + 1))
                    spec.body.append(
                        LayoutRow([
                            LayoutLeaf(
                                content(CatalogID.Catalog.item(i) + ".image", "", role: .image), sizing: .fixed(56),
                                height: 56),
                            LayoutLeaf(content(CatalogID.Catalog.itemTitle(i), p.name), sizing: .fill, maxLines: 3),
                            LayoutLeaf(
                                content(
                                    CatalogID.Catalog.itemPrice(i), price(p.priceMinor), value: String(p.priceMinor)),
                                alignment: .trailing),
                            LayoutLeaf(icon(CatalogID.Catalog.itemAdd(i), "+"), sizing: .fixed(44)),
                        ]))
                }
                let list = SurfaceElement(
                    id: CatalogID.Catalog.list, role: .container, label: "", value: String(list.count))
                spec.containers.insert(ContainerSpec(element: list, rows: first..<spec.body.count), at: 0)
            }
        }
        return spec
    }

    private func itemSpec() -> ScreenSpec {
        var spec = ScreenSpec(screen: CatalogID.Screen.item.rawValue)
        spec.navLeading = navBack(CatalogID.Item.back)
        spec.navTitle = LayoutLeaf(text(CatalogID.Item.title, "item.title"), font: .headline)
        guard let p = currentProduct else {
            spec.body.append(
                LayoutRow([
                    LayoutLeaf(
                        SurfaceElement(id: CatalogID.Catalog.loading, role: .indicator, label: ""), sizing: .fixed(20)),
                    LayoutLeaf(text(CatalogID.Catalog.loading + ".label", "catalog.loading"), sizing: .fill),
                ]))
            return spec
        }
        spec.body.append(LayoutRow([LayoutLeaf(content("item.image", "", role: .image), sizing: .fill, height: 180)]))
        spec.body.append(
            LayoutRow([
                LayoutLeaf(
                    content(CatalogID.Item.name, p.name, value: p.id), font: .largeTitle, sizing: .fill, maxLines: 3)
            ]))
        var stock =
            p.stock > 0
            ? text(CatalogID.Item.stock, "item.inStock", ["count": localizer.formatting.number(p.stock)])
            : text(CatalogID.Item.stock, "item.outOfStock")
        stock.value = String(p.stock)
        spec.body.append(LayoutRow([LayoutLeaf(stock, font: .caption, sizing: .fill)]))
        spec.body.append(
            LayoutRow([LayoutLeaf(content(CatalogID.Item.description, p.summary), sizing: .fill, maxLines: 12)]))
        if state.showAddedToast {
            spec.bottom.append(
                LayoutRow([
                    LayoutLeaf(text(CatalogID.Item.added, "item.added"), sizing: .fill, alignment: .center, maxLines: 2)
                ]))
        }
        spec.bottom.append(
            LayoutRow([
                LayoutLeaf(
                    content(CatalogID.Item.price, price(p.priceMinor), value: String(p.priceMinor)), font: .headline),
                LayoutLeaf(button(CatalogID.Item.addToCart, "item.addToCart", enabled: p.stock > 0), sizing: .fill),
            ]))
        return spec
    }

    private func cartSpec() -> ScreenSpec {
        var spec = ScreenSpec(screen: CatalogID.Screen.cart.rawValue)
        spec.navLeading = navBack(CatalogID.Cart.back)
        spec.navTitle = LayoutLeaf(text(CatalogID.Cart.title, "cart.title"), font: .headline)
        if case .placed(let number, let date) = state.checkout {
            var confirmation = text(CatalogID.Cart.confirmation, "cart.confirmation", ["number": number])
            confirmation.value = number
            spec.body.append(LayoutRow([LayoutLeaf(confirmation, font: .headline, sizing: .fill, maxLines: 3)]))
            spec.body.append(
                LayoutRow([
                    LayoutLeaf(
                        text(CatalogID.Cart.deliveryDate, "cart.delivery", ["date": date]), sizing: .fill, maxLines: 2)
                ]))
            spec.body.append(LayoutRow([LayoutLeaf(button(CatalogID.Cart.continueShopping, "cart.continue"))]))
            return spec
        }
        if state.cart.isEmpty {
            spec.body.append(
                LayoutRow([LayoutLeaf(text(CatalogID.Cart.empty, "cart.empty"), sizing: .fill, maxLines: 3)]))
            spec.body.append(LayoutRow([LayoutLeaf(button(CatalogID.Cart.continueShopping, "cart.continue"))]))
            return spec
        }
        for (i, line) in state.cart.enumerated() {
            let container = SurfaceElement(
                id: CatalogID.Cart.line(i), role: .container, label: line.product.name,
                value: line.product.id, isContent: true)
            spec.containers.append(ContainerSpec(element: container, rows: spec.body.count..<spec.body.count + 2))
            spec.body.append(
                LayoutRow([
                    LayoutLeaf(content(CatalogID.Cart.lineTitle(i), line.product.name), sizing: .fill, maxLines: 2),
                    LayoutLeaf(
                        content(CatalogID.Cart.linePrice(i), price(line.totalMinor), value: String(line.totalMinor)),
                        alignment: .trailing),
                ]))
            var quantity = text(
                CatalogID.Cart.lineQuantity(i), "cart.quantity", ["count": localizer.formatting.number(line.quantity)])
            quantity.value = String(line.quantity)
            spec.body.append(
                LayoutRow([
                    LayoutLeaf(quantity, font: .caption),
                    LayoutLeaf(icon(CatalogID.Cart.lineDecrement(i), "−"), sizing: .fixed(44)),
                    LayoutLeaf(icon(CatalogID.Cart.lineIncrement(i), "+"), sizing: .fixed(44)),
                ]))
        }
        let total = state.cart.reduce(0) { $0 + $1.totalMinor }
        // The total row: label at the leading edge, amount pushed to the far edge.
        spec.body.append(
            LayoutRow([
                LayoutLeaf(text(CatalogID.Cart.totalLabel, "cart.total"), font: .headline),
                LayoutLeaf(
                    content(CatalogID.Cart.totalAmount, price(total), value: String(total)), font: .headline,
                    sizing: .fill, alignment: .right),
            ]))
        if case .failed(let key) = state.checkout {
            spec.body.append(LayoutRow([LayoutLeaf(text(CatalogID.Cart.error, key), sizing: .fill, maxLines: 3)]))
        }
        if state.checkout == .submitting {
            spec.bottom.append(
                LayoutRow([
                    LayoutLeaf(
                        SurfaceElement(id: CatalogID.Cart.submitting, role: .indicator, label: ""), sizing: .fixed(20)),
                    LayoutLeaf(text(CatalogID.Cart.submitting + ".label", "cart.submitting"), sizing: .fill),
                ]))
        } else {
            spec.bottom.append(LayoutRow([LayoutLeaf(button(CatalogID.Cart.checkout, "cart.checkout"), sizing: .fill)]))
        }
        return spec
    }

    private func signInSpec() -> ScreenSpec {
        var spec = ScreenSpec(screen: CatalogID.Screen.signIn.rawValue)
        spec.navLeading = LayoutLeaf(button(CatalogID.SignIn.cancel, "common.cancel"), padding: 8)
        spec.navTitle = LayoutLeaf(text(CatalogID.SignIn.title, "signin.title"), font: .headline)
        let email = SurfaceElement(
            id: CatalogID.SignIn.email, role: .field,
            label: state.email.isEmpty ? localizer.string("signin.email") : state.email,
            value: state.email, isContent: !state.email.isEmpty)
        let password = SurfaceElement(
            id: CatalogID.SignIn.password, role: .field,
            label: state.password.isEmpty
                ? localizer.string("signin.password")
                : String(repeating: "•", count: state.password.count),
            value: state.password.isEmpty ? "" : "set", isContent: !state.password.isEmpty)
        spec.body.append(LayoutRow([LayoutLeaf(email, sizing: .fill)]))
        spec.body.append(LayoutRow([LayoutLeaf(password, sizing: .fill)]))
        if let error = state.signInError {
            spec.body.append(LayoutRow([LayoutLeaf(text(CatalogID.SignIn.error, error), sizing: .fill, maxLines: 3)]))
        }
        if state.signingIn {
            spec.body.append(
                LayoutRow([
                    LayoutLeaf(
                        SurfaceElement(id: CatalogID.SignIn.submitting, role: .indicator, label: ""), sizing: .fixed(20)
                    ),
                    LayoutLeaf(text(CatalogID.SignIn.submitting + ".label", "signin.submitting"), sizing: .fill),
                ]))
        } else {
            let ready = !state.email.isEmpty && !state.password.isEmpty
            spec.body.append(
                LayoutRow([LayoutLeaf(button(CatalogID.SignIn.submit, "signin.submit", enabled: ready), sizing: .fill)])
            )
        }
        return spec
    }

    private func settingsSpec() -> ScreenSpec {
        var spec = ScreenSpec(screen: CatalogID.Screen.settings.rawValue)
        spec.navLeading = navBack(CatalogID.Settings.back)
        spec.navTitle = LayoutLeaf(text(CatalogID.Settings.title, "settings.title"), font: .headline)
        if let email = state.signedInEmail {
            var account = text(CatalogID.Settings.account, "settings.account", ["email": email])
            account.value = email
            spec.body.append(LayoutRow([LayoutLeaf(account, sizing: .fill, maxLines: 2)]))
            spec.body.append(
                LayoutRow([LayoutLeaf(button(CatalogID.Settings.signOut, "settings.signOut"), sizing: .fill)]))
        } else {
            spec.body.append(
                LayoutRow([LayoutLeaf(button(CatalogID.Settings.signIn, "settings.signIn"), sizing: .fill)]))
        }
        var toggle = SurfaceElement(
            id: CatalogID.Settings.notifications, role: .toggle, label: "",
            value: state.notificationsOn ? "on" : "off", isSelected: state.notificationsOn)
        toggle.isContent = true
        spec.body.append(
            LayoutRow([
                LayoutLeaf(text(CatalogID.Settings.notificationsLabel, "settings.notifications"), sizing: .fill),
                LayoutLeaf(toggle, sizing: .fixed(51)),
            ]))
        let language =
            localizer.formatting.locale.localizedString(forIdentifier: conditions.locale) ?? conditions.locale
        spec.body.append(
            LayoutRow([
                LayoutLeaf(text(CatalogID.Settings.languageLabel, "settings.language")),
                LayoutLeaf(
                    content(CatalogID.Settings.language, language, value: conditions.locale), sizing: .fill,
                    alignment: .trailing),
            ]))
        // The version line is built in code.
        let version = SurfaceElement(id: CatalogID.Settings.version, role: .text, label: "Version \(Store.version)")
        spec.body.append(LayoutRow([LayoutLeaf(version, font: .caption, sizing: .fill)]))
        return spec
    }
}
