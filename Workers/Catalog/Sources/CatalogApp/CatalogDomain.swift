/// A product category (catalog filter chips).
public enum ProductCategory: String, Sendable, Hashable, CaseIterable, Codable {
    case all, shoes, bags, accessories
}

/// A product as the backend sends it. Names and descriptions are content (not translated by the app).
public struct Product: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var name: String
    public var category: ProductCategory
    /// The price in euro cents.
    public var priceMinor: Int
    public var stock: Int
    public var summary: String

    public init(id: String, name: String, category: ProductCategory, priceMinor: Int, stock: Int, summary: String) {
        self.id = id
        self.name = name
        self.category = category
        self.priceMinor = priceMinor
        self.stock = stock
        self.summary = summary
    }
}

/// One line of the cart.
public struct CartLine: Sendable, Hashable, Codable {
    public var product: Product
    public var quantity: Int
    public var totalMinor: Int { product.priceMinor * quantity }
}

/// The store's currency (prices are formatted for the run's locale, the amount stays in euro).
public enum Store {
    public static let currency = "EUR"
    /// The app version shown in settings.
    public static let version = "2.3.1"
}

/// The products the backend serves.
public enum ProductFixtures {
    /// Twelve products across the three categories (one out of stock).
    public static let standard: [Product] = [
        Product(
            id: "p01", name: "Trail Runner Sneakers", category: .shoes, priceMinor: 8900, stock: 12,
            summary: "Light, grippy running shoes for rough paths and city streets."),
        Product(
            id: "p02", name: "Leather Chelsea Boots", category: .shoes, priceMinor: 15900, stock: 4,
            summary: "Full-grain leather boots with elastic sides and a stacked heel."),
        Product(
            id: "p03", name: "Canvas Slip-Ons", category: .shoes, priceMinor: 4900, stock: 0,
            summary: "Washable canvas shoes that go on without laces."),
        Product(
            id: "p04", name: "Weekender Duffel", category: .bags, priceMinor: 12900, stock: 7,
            summary: "A waxed-cotton duffel that fits two days of clothes."),
        Product(
            id: "p05", name: "Everyday Tote", category: .bags, priceMinor: 5900, stock: 20,
            summary: "A sturdy tote with an inner zip pocket."),
        Product(
            id: "p06", name: "Roll-Top Backpack", category: .bags, priceMinor: 9900, stock: 9,
            summary: "A waterproof roll-top backpack with a padded laptop sleeve."),
        Product(
            id: "p07", name: "Minimalist Wallet", category: .accessories, priceMinor: 3900, stock: 30,
            summary: "Holds eight cards and a few folded notes."),
        Product(
            id: "p08", name: "Wool Beanie", category: .accessories, priceMinor: 2500, stock: 15,
            summary: "A ribbed merino beanie."),
        Product(
            id: "p09", name: "Polarized Sunglasses", category: .accessories, priceMinor: 7900, stock: 6,
            summary: "Polarized lenses in a lightweight acetate frame."),
        Product(
            id: "p10", name: "Waterproof Hiking Boots", category: .shoes, priceMinor: 17900, stock: 3,
            summary: "Waterproof boots with ankle support for long hikes."),
        Product(
            id: "p11", name: "Crossbody Sling", category: .bags, priceMinor: 6900, stock: 11,
            summary: "A compact sling for a phone, keys and a wallet."),
        Product(
            id: "p12", name: "Silk Scarf", category: .accessories, priceMinor: 4500, stock: 8,
            summary: "A printed silk scarf, 90 by 90 centimetres."),
    ]

    /// A large catalog: 240 products (the standard ones, repeated in numbered editions).
    public static let large: [Product] = (0..<240).map { i in
        var p = standard[i % standard.count]
        let edition = i / standard.count
        if edition > 0 {
            p.id = "\(p.id)-\(edition)"
            p.name += " \(edition + 1)"
        }
        return p
    }
}
