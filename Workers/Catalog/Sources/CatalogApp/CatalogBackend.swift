import Synchronization

/// A request the app sends to the catalog backend.
public enum BackendRequest: Sendable, Hashable {
    case products
    case signIn(email: String, password: String)
    case checkout(lines: [CartLine])

    /// The request's size on the wire, for the conditioner's byte rate.
    var requestBytes: Int {
        switch self {
        case .products: 420
        case .signIn: 380
        case .checkout(let lines): 400 + 160 * lines.count
        }
    }
}

/// What the backend answers.
public enum BackendResponse: Sendable, Hashable {
    case products([Product])
    case signedIn(email: String)
    case orderPlaced(number: String)
    /// The server refused: `unavailable`, `credentials`, `locked`, `declined`.
    case refused(String)

    /// The response's size on the wire (a product list carries ~1.4 kB per product with image URLs).
    var responseBytes: Int {
        switch self {
        case .products(let list): 512 + 1_400 * list.count
        case .signedIn: 640
        case .orderPlaced: 820
        case .refused: 300
        }
    }
}

/// The catalog backend: in-memory fixtures that `request` steps seed. It answers at once; the network
/// conditioner decides when (and whether) the answer reaches the app.
public final class CatalogBackend: Sendable {
    /// The fixtures the backend serves.
    public struct Fixtures: Sendable, Hashable {
        /// nil: the products endpoint answers 503.
        public var products: [Product]? = ProductFixtures.standard
        public var accountEmail = "shopper@example.com"
        public var accountPassword = "secret"
        public var accountLocked = false
        public var paymentDeclined = false
        /// A stored session the app finds at launch.
        public var storedSession = false
        /// First launch: the app asks for notification permission.
        public var firstLaunch = true
        public init() {}
    }

    private let state = Mutex(Fixtures())
    private let orders = Mutex(0)

    public init(fixtures: Fixtures = Fixtures()) { state.withLock { $0 = fixtures } }

    public var fixtures: Fixtures { state.withLock { $0 } }

    /// Seeds a fixture (`request` steps): see `CatalogID.Fixture` for targets and arguments.
    /// - Throws: `StepError.invalidArgument` for an argument the fixture does not know.
    func seed(_ target: String, _ arg: String?) throws -> String {
        let value = arg ?? ""
        return try state.withLock { f in
            switch (target, value) {
            case (CatalogID.Fixture.products, ""), (CatalogID.Fixture.products, "default"):
                f.products = ProductFixtures.standard
            case (CatalogID.Fixture.products, "empty"): f.products = []
            case (CatalogID.Fixture.products, "large"): f.products = ProductFixtures.large
            case (CatalogID.Fixture.products, "unavailable"): f.products = nil
            case (CatalogID.Fixture.account, ""), (CatalogID.Fixture.account, "shopper"): f.accountLocked = false
            case (CatalogID.Fixture.account, "locked"): f.accountLocked = true
            case (CatalogID.Fixture.session, "signed-in"): f.storedSession = true
            case (CatalogID.Fixture.session, "signed-out"): f.storedSession = false
            case (CatalogID.Fixture.payment, ""), (CatalogID.Fixture.payment, "accepted"): f.paymentDeclined = false
            case (CatalogID.Fixture.payment, "declined"): f.paymentDeclined = true
            case (CatalogID.Fixture.install, ""), (CatalogID.Fixture.install, "first-launch"): f.firstLaunch = true
            case (CatalogID.Fixture.install, "returning"): f.firstLaunch = false
            default: throw FixtureError(target: target, arg: value)
            }
            return "\(target)=\(value.isEmpty ? "default" : value)"
        }
    }

    struct FixtureError: Error { var target: String; var arg: String }

    /// Answers a request from the fixtures.
    func answer(_ request: BackendRequest) -> BackendResponse {
        let f = fixtures
        switch request {
        case .products:
            return f.products.map(BackendResponse.products) ?? .refused("unavailable")
        case .signIn(let email, let password):
            if email.lowercased() != f.accountEmail || password != f.accountPassword { return .refused("credentials") }
            return f.accountLocked ? .refused("locked") : .signedIn(email: f.accountEmail)
        case .checkout:
            if f.paymentDeclined { return .refused("declined") }
            let n = orders.withLock { n -> Int in
                n += 1; return n
            }
            return .orderPlaced(number: "A-\(1040 + n)")
        }
    }
}
