import FlowSpec

/// The single source of truth for the Catalog app's identifiers: screens, elements, ambient events and backend
/// fixtures. The model sets these identities on its surfaces; the registry, the scenarios and a device
/// registry's page objects query the same constants (renaming one is one edit).
public enum CatalogID {
    /// Screens, the targets of `open`.
    public enum Screen: String, Sendable, Hashable, CaseIterable {
        case catalog, item, cart, signIn = "signin", settings
    }

    /// The target of `rotate`.
    public static let device = "device"
    /// The pseudo-target of `assert` that checks the current screen's layout findings.
    public static let layout = "layout"

    public enum Catalog {
        public static let title = "catalog.title"
        public static let settingsButton = "catalog.settings-button"
        public static let cartButton = "catalog.cart-button"
        public static let search = "catalog.search"
        public static let searchClear = "catalog.search.clear"
        public static let list = "catalog.list"
        public static let resultCount = "catalog.result-count"
        public static let loading = "catalog.loading"
        public static let refreshing = "catalog.refreshing"
        public static let error = "catalog.error"
        public static let retry = "catalog.retry"
        public static let empty = "catalog.empty"
        public static func filter(_ category: ProductCategory) -> String { "catalog.filter.\(category.rawValue)" }
        public static func item(_ index: Int) -> String { "catalog.item.\(index)" }
        public static func itemTitle(_ index: Int) -> String { "catalog.item.\(index).title" }
        public static func itemPrice(_ index: Int) -> String { "catalog.item.\(index).price" }
        public static func itemAdd(_ index: Int) -> String { "catalog.item.\(index).add" }
    }

    public enum Item {
        public static let title = "item.title"
        public static let back = "item.back"
        public static let name = "item.name"
        public static let price = "item.price"
        public static let stock = "item.stock"
        public static let description = "item.description"
        public static let addToCart = "item.add-to-cart"
        public static let added = "item.added"
    }

    public enum Cart {
        public static let title = "cart.title"
        public static let back = "cart.back"
        public static let empty = "cart.empty"
        public static let continueShopping = "cart.continue-shopping"
        public static let totalLabel = "cart.total.label"
        public static let totalAmount = "cart.total.amount"
        public static let checkout = "cart.checkout"
        public static let submitting = "cart.submitting"
        public static let error = "cart.error"
        public static let confirmation = "cart.confirmation"
        public static let deliveryDate = "cart.delivery-date"
        public static func line(_ index: Int) -> String { "cart.line.\(index)" }
        public static func lineTitle(_ index: Int) -> String { "cart.line.\(index).title" }
        public static func lineQuantity(_ index: Int) -> String { "cart.line.\(index).quantity" }
        public static func linePrice(_ index: Int) -> String { "cart.line.\(index).price" }
        public static func lineIncrement(_ index: Int) -> String { "cart.line.\(index).increment" }
        public static func lineDecrement(_ index: Int) -> String { "cart.line.\(index).decrement" }
    }

    public enum SignIn {
        public static let title = "signin.title"
        public static let cancel = "signin.cancel"
        public static let email = "signin.email"
        public static let password = "signin.password"
        public static let submit = "signin.submit"
        public static let submitting = "signin.submitting"
        public static let error = "signin.error"
    }

    public enum Settings {
        public static let title = "settings.title"
        public static let back = "settings.back"
        public static let account = "settings.account"
        public static let signIn = "settings.sign-in"
        public static let signOut = "settings.sign-out"
        public static let notificationsLabel = "settings.notifications.label"
        public static let notifications = "settings.notifications"
        public static let languageLabel = "settings.language.label"
        public static let language = "settings.language"
        public static let version = "settings.version"
    }

    /// Interruptions: system-style alerts that cover the screen.
    public enum Alert {
        public static let permission = "alert.permission"
        public static let permissionAllow = "alert.permission.allow"
        public static let permissionDeny = "alert.permission.dont-allow"
        public static let rate = "alert.rate"
        public static let rateNow = "alert.rate.rate"
        public static let rateNotNow = "alert.rate.not-now"
    }

    public enum Banner {
        public static let push = "banner.push"
    }

    /// Targets of `ambient`: automatic events at their true position in the run.
    public enum Ambient {
        /// The catalog's periodic refresh timer fires (a network reload).
        public static let timerRefresh = "timer.refresh"
        /// A push notification arrives; arg `order-shipped` (default) or `price-drop`.
        public static let push = "push.notification"
        /// Outstanding network requests complete (simulated time runs until none is in flight; at most 60 s).
        public static let networkSettle = "network.settle"
        /// Simulated time passes; arg: seconds (default 1).
        public static let timePass = "time.pass"
    }

    /// Targets of `request`: backend fixtures seeded before (or during) a flow.
    public enum Fixture {
        /// arg `default` | `empty` | `large` | `unavailable`.
        public static let products = "catalog.products"
        /// arg `shopper` (shopper@example.com / secret, the default) | `locked`.
        public static let account = "auth.account"
        /// arg `signed-in` | `signed-out`: a stored session the app finds at launch.
        public static let session = "auth.session"
        /// arg `accepted` | `declined`.
        public static let payment = "checkout.payment"
        /// arg `first-launch` (default) | `returning`: whether the app asks for notification permission.
        public static let install = "app.install"
    }

    /// Identifier families with an index (`catalog.item.3.add`) or a value (`catalog.filter.bags`): each `#` is a
    /// run of letters, digits and `-`, the target patterns of `RegistryManifest` (the registry publishes these).
    static func matches(_ id: String, anyOf families: [String]) -> Bool {
        RegistryManifest.matches(id, anyOf: families)
    }

    /// Every element identity a screen can show (families written with `#`).
    static let elementFamilies: [String] = [
        Catalog.title, Catalog.settingsButton, Catalog.cartButton, Catalog.search, Catalog.searchClear, Catalog.list,
        Catalog.resultCount, Catalog.loading, Catalog.refreshing, Catalog.error, Catalog.retry, Catalog.empty,
        "catalog.filter.#", "catalog.item.#", "catalog.item.#.title", "catalog.item.#.price", "catalog.item.#.add",
        Item.title, Item.back, Item.name, Item.price, Item.stock, Item.description, Item.addToCart, Item.added,
        Cart.title, Cart.back, Cart.empty, Cart.continueShopping, Cart.totalLabel, Cart.totalAmount, Cart.checkout,
        Cart.submitting, Cart.error, Cart.confirmation, Cart.deliveryDate, "cart.line.#", "cart.line.#.title",
        "cart.line.#.quantity", "cart.line.#.price", "cart.line.#.increment", "cart.line.#.decrement",
        SignIn.title, SignIn.cancel, SignIn.email, SignIn.password, SignIn.submit, SignIn.submitting, SignIn.error,
        Settings.title, Settings.back, Settings.account, Settings.signIn, Settings.signOut, Settings.notificationsLabel,
        Settings.notifications, Settings.languageLabel, Settings.language, Settings.version,
        Alert.permission, Alert.permissionAllow, Alert.permissionDeny, Alert.rate, Alert.rateNow, Alert.rateNotNow,
        Banner.push, "catalog.item.#.image", "item.image", "catalog.loading.label", "catalog.refreshing.label",
        "cart.submitting.label", "signin.submitting.label",
    ]

    /// Elements a user can tap.
    static let tappableFamilies: [String] = [
        Catalog.settingsButton, Catalog.cartButton, Catalog.searchClear, Catalog.retry, "catalog.filter.#",
        "catalog.item.#", "catalog.item.#.add", Item.back, Item.addToCart, Cart.back, Cart.continueShopping,
        Cart.checkout, "cart.line.#.increment", "cart.line.#.decrement", SignIn.cancel, SignIn.submit, Settings.back,
        Settings.signIn, Settings.signOut, Settings.notifications, Alert.permissionAllow, Alert.permissionDeny,
        Alert.rateNow, Alert.rateNotNow, Banner.push,
    ]

    /// Text fields (`type` targets).
    static let fieldFamilies: [String] = [Catalog.search, SignIn.email, SignIn.password]
    /// Swipeable elements.
    static let swipeFamilies: [String] = [Catalog.list, "cart.line.#", Banner.push]
    static let ambientTargets: [String] = [Ambient.timerRefresh, Ambient.push, Ambient.networkSettle, Ambient.timePass]
    static let fixtureTargets: [String] = [
        Fixture.products, Fixture.account, Fixture.session, Fixture.payment, Fixture.install,
    ]
}
