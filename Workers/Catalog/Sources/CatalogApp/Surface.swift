import RunConditions

/// A rectangle in points, origin top-left.
public struct Rect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// The area both rectangles cover (0 when they only touch).
    public func overlapArea(with other: Rect) -> Double {
        let w = min(maxX, other.maxX) - max(x, other.x)
        let h = min(maxY, other.maxY) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }

    /// The rectangle mirrored across the vertical centre line of a canvas `width` wide.
    public func mirrored(inWidth width: Double) -> Rect {
        Rect(x: width - maxX, y: y, width: self.width, height: height)
    }
}

/// What kind of thing an element is.
public enum ElementRole: String, Sendable, Hashable, Codable {
    case text, button, field, image, toggle, indicator, container, alert, banner
}

/// One element of a screen as the user experiences it: identity, label, state and frame.
public struct SurfaceElement: Sendable, Hashable, Codable {
    /// The identifier from `CatalogID` (the accessibility identifier on a device).
    public var id: String
    public var role: ElementRole
    /// The text shown (localized, pseudolocalized), or the field's placeholder when it is empty.
    public var label: String
    /// A semantic value: a count, a field's text, a toggle's `on`/`off`, a product id.
    public var value: String?
    public var isEnabled: Bool
    public var isSelected: Bool
    /// Content (product names, prices, user input) rather than UI copy from the string tables.
    public var isContent: Bool
    public var frame: Rect
    /// Inside the visible part of the screen (not scrolled away).
    public var isVisible: Bool
    /// Visible and not covered by an alert or a banner: a tap would reach it.
    public var isHittable: Bool
    /// Under a modal alert (waits treat such an element as not there yet).
    public var isCoveredByModal: Bool
    /// The text does not fit its frame (drawn with an ellipsis).
    public var isTruncated: Bool
    /// What VoiceOver reads when it differs from `label` (an icon button's name); nil: the label is the name.
    public var accessibilityLabel: String?
    /// The colours the text is drawn in and over (`CatalogTheme`); nil for elements that draw no text.
    public var foreground: RGB?
    public var background: RGB?
    /// The text's point size at the job's text size, and whether its style is bold (large text under WCAG is
    /// 18 pt, or 14 pt bold); nil for elements that draw no text.
    public var fontSize: Double?
    public var isBold: Bool?

    /// The name assistive technologies read: the accessibility label, else the label unless it is only symbols
    /// (a glyph such as “+” or “⚙” names nothing).
    public var accessibleName: String {
        if let accessibilityLabel { return accessibilityLabel }
        return label.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
            ? label : ""
    }

    /// An element before layout (frame zero, not visible); `LayoutEngine` places it.
    public init(
        id: String, role: ElementRole, label: String, value: String? = nil, isEnabled: Bool = true,
        isSelected: Bool = false, isContent: Bool = false
    ) {
        self.id = id
        self.role = role
        self.label = label
        self.value = value
        self.isEnabled = isEnabled
        self.isSelected = isSelected
        self.isContent = isContent
        self.frame = Rect(x: 0, y: 0, width: 0, height: 0)
        self.isVisible = false
        self.isHittable = false
        self.isCoveredByModal = false
        self.isTruncated = false
    }
}

/// A layout problem found by the rules (never by a special case for a locale).
public struct LayoutFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Text longer than the room it is given, on one line (or more lines than allowed).
        case truncated
        /// Two elements of the same layer cover each other.
        case overlapping
        /// An element extends past the window's left or right edge.
        case offScreen = "off-screen"
        /// In right-to-left, an element is not where the mirror image of its left-to-right layout puts it.
        case notMirrored = "not-mirrored"
        /// Under `pseudo-accented`, visible UI copy without the pseudo brackets: a hard-coded string.
        case notLocalized = "not-localized"
    }

    public var kind: Kind
    /// The element the finding is about.
    public var element: String
    /// The other element, for overlaps.
    public var other: String?
    public var message: String

    public init(kind: Kind, element: String, other: String? = nil, message: String) {
        self.kind = kind
        self.element = element
        self.other = other
        self.message = message
    }

    public var description: String { message }
}

/// A screen as it is now: its elements with frames and the layout findings, for one viewport and direction.
public struct Surface: Sendable, Hashable, Codable {
    public var screen: String
    public var viewportWidth: Int
    public var viewportHeight: Int
    public var orientation: String
    public var direction: String
    public var locale: String
    public var pseudo: String
    /// Elements in drawing order (the screen, then bars, then overlays).
    public var elements: [SurfaceElement]
    public var findings: [LayoutFinding]
    /// The identifier of the modal alert on screen, if any.
    public var modal: String?
    /// The accessibility settings the screen was drawn with (`appearance`, `textSize`, `contrast` axes); nil in
    /// surfaces recorded before they were applied.
    public var appearance: String?
    public var textSize: String?
    public var contrast: String?
    /// The language of the string table the screen's copy came from (`en` when a locale has no table of its own).
    public var language: String?

    public init(
        screen: String, viewportWidth: Int, viewportHeight: Int, orientation: String, direction: String,
        locale: String, pseudo: String, elements: [SurfaceElement], findings: [LayoutFinding], modal: String?,
        appearance: String? = nil, textSize: String? = nil, contrast: String? = nil, language: String? = nil
    ) {
        self.screen = screen
        self.viewportWidth = viewportWidth
        self.viewportHeight = viewportHeight
        self.orientation = orientation
        self.direction = direction
        self.locale = locale
        self.pseudo = pseudo
        self.elements = elements
        self.findings = findings
        self.modal = modal
        self.appearance = appearance
        self.textSize = textSize
        self.contrast = contrast
        self.language = language
    }

    /// The element with `id`, if the screen shows it.
    public func element(_ id: String) -> SurfaceElement? { elements.first { $0.id == id } }
}
