import Foundation
import MatrixPlan

/// A colour in sRGB, 8 bits a channel, written `#RRGGBB` in surfaces and messages.
public struct RGB: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ hex: UInt32) {
        red = UInt8((hex >> 16) & 0xFF)
        green = UInt8((hex >> 8) & 0xFF)
        blue = UInt8(hex & 0xFF)
    }

    /// `#RRGGBB`, or nil for any other text.
    public init?(hex text: String) {
        guard text.count == 7, text.first == "#", let value = UInt32(text.dropFirst(), radix: 16) else { return nil }
        self.init(value)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let colour = RGB(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not #RRGGBB: \(text)"))
        }
        self = colour
    }

    public var description: String {
        "#" + [red, green, blue].map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }

    /// WCAG 2.2's relative luminance (sRGB channels linearised).
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2.2's contrast ratio of two colours, from 1 (equal) to 21 (black on white).
    public static func contrast(_ a: RGB, _ b: RGB) -> Double {
        let (l1, l2) = (a.relativeLuminance, b.relativeLuminance)
        return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The Catalog app's colours: a light and a dark palette, each with an increased-contrast variant, and which
/// colour each element draws its text in over which background.
///
/// The prices keep a colour written for the light appearance (a seeded accessibility defect: `price` below), so
/// their text contrast fails WCAG AA in the dark appearance only.
public struct CatalogTheme: Sendable, Hashable {
    public var background: RGB
    public var label: RGB
    public var secondaryLabel: RGB
    public var tint: RGB
    public var fieldBackground: RGB
    public var alertBackground: RGB
    public var bannerBackground: RGB
    public var disabled: RGB

    public static let light = CatalogTheme(
        background: RGB(0xFFFFFF), label: RGB(0x1C1C1E), secondaryLabel: RGB(0x5E5E63), tint: RGB(0x0A5FCC),
        fieldBackground: RGB(0xF2F2F7), alertBackground: RGB(0xF2F2F7), bannerBackground: RGB(0xE9E9EE),
        disabled: RGB(0x6E6E73))
    public static let lightMoreContrast = CatalogTheme(
        background: RGB(0xFFFFFF), label: RGB(0x000000), secondaryLabel: RGB(0x3A3A3C), tint: RGB(0x0040A8),
        fieldBackground: RGB(0xF2F2F7), alertBackground: RGB(0xFFFFFF), bannerBackground: RGB(0xE5E5EA),
        disabled: RGB(0x48484A))
    public static let dark = CatalogTheme(
        background: RGB(0x1C1C1E), label: RGB(0xF2F2F7), secondaryLabel: RGB(0xAEAEB2), tint: RGB(0x5AA9FF),
        fieldBackground: RGB(0x2C2C2E), alertBackground: RGB(0x2C2C2E), bannerBackground: RGB(0x3A3A3C),
        disabled: RGB(0x98989D))
    public static let darkMoreContrast = CatalogTheme(
        background: RGB(0x000000), label: RGB(0xFFFFFF), secondaryLabel: RGB(0xD1D1D6), tint: RGB(0x8AC2FF),
        fieldBackground: RGB(0x1C1C1E), alertBackground: RGB(0x1C1C1E), bannerBackground: RGB(0x2C2C2E),
        disabled: RGB(0xAEAEB2))

    /// The palette of an appearance and contrast setting.
    public static func of(_ appearance: Appearance, _ contrast: Contrast) -> CatalogTheme {
        switch (appearance, contrast) {
        case (.light, .standard): light
        case (.light, .more): lightMoreContrast
        case (.dark, .standard): dark
        case (.dark, .more): darkMoreContrast
        }
    }

    /// The colour of a price. Written when the app had only a light appearance, it never followed the dark one.
    var price: RGB { Self.light.secondaryLabel }

    /// `elements` with their text and background colours: text on the screen's background, buttons in the tint
    /// colour, fields on their own fill, alert and banner contents on the alert's and banner's. Indicators, images
    /// and containers draw no text and get none.
    func paint(_ elements: [SurfaceElement]) -> [SurfaceElement] {
        let alertFrame = elements.first { $0.role == .alert }?.frame
        let bannerFrame = elements.first { $0.role == .banner }?.frame
        return elements.map { element in
            var e = element
            let ground: RGB =
                if let alertFrame, e.role == .alert || alertFrame.contains(e.frame) {
                    alertBackground
                } else if let bannerFrame, e.role == .banner || bannerFrame.contains(e.frame) {
                    bannerBackground
                } else {
                    background
                }
            switch e.role {
            case .indicator, .image, .container: return e
            case .field: (e.foreground, e.background) = (label, fieldBackground)
            case .button, .toggle: (e.foreground, e.background) = (e.isEnabled ? tint : disabled, ground)
            case .text, .alert, .banner:
                let isPrice = e.isContent && (e.id.hasSuffix(".price") || e.id.hasSuffix(".amount"))
                let small = (e.fontSize ?? 17) < 15
                (e.foreground, e.background) = (isPrice ? price : small && !e.isContent ? secondaryLabel : label, ground)
            }
            return e
        }
    }
}

extension Rect {
    /// Whether `other` lies inside this rectangle (edges included).
    func contains(_ other: Rect) -> Bool {
        other.x >= x - 0.01 && other.y >= y - 0.01 && other.maxX <= maxX + 0.01 && other.maxY <= maxY + 0.01
    }
}
