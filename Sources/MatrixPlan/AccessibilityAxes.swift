import FlowSpec

// The typed axes of the accessibility settings: appearance, text size, motion and contrast. MatrixPlan validates
// their values; RunConditions gives them their run-time meaning (the web registry through the browser's emulation, a
// device through `DeviceArguments`, the Catalog registry through its theme and text scale; it has no motion).

/// The `appearance` axis: the system's light or dark appearance.
public enum Appearance: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case light, dark
    public var description: String { rawValue }
}

/// The `textSize` axis: the preferred text size, from `xSmall` to `xxxLarge` and the five accessibility sizes
/// `AX1`…`AX5` (Dynamic Type's categories).
public enum TextSize: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case xSmall, small, medium, large, xLarge, xxLarge, xxxLarge
    case ax1 = "AX1", ax2 = "AX2", ax3 = "AX3", ax4 = "AX4", ax5 = "AX5"
    public var description: String { rawValue }

    /// The point size of body text at this size (Dynamic Type's body style: 17 at `large`).
    public var bodyPointSize: Double {
        switch self {
        case .xSmall: 14
        case .small: 15
        case .medium: 16
        case .large: 17
        case .xLarge: 19
        case .xxLarge: 21
        case .xxxLarge: 23
        case .ax1: 28
        case .ax2: 33
        case .ax3: 40
        case .ax4: 47
        case .ax5: 53
        }
    }

    /// How much larger text is than at the default `large` (1 at `large`, about 3.1 at `AX5`).
    public var scale: Double { bodyPointSize / TextSize.large.bodyPointSize }

    /// The browser's default font size in CSS pixels at this size: 16 px scaled like body text.
    public var webFontSize: Int { Int((16 * scale).rounded()) }

    /// The `UIContentSizeCategory` raw value (`-UIPreferredContentSizeCategoryName`).
    public var contentSizeCategory: String {
        let short = ["XS", "S", "M", "L", "XL", "XXL", "XXXL", "AccessibilityM", "AccessibilityL", "AccessibilityXL",
                     "AccessibilityXXL", "AccessibilityXXXL"]
        return "UICTContentSizeCategory" + short[Self.allCases.firstIndex(of: self) ?? 3]
    }

    /// The name `xcrun simctl ui <device> content_size` takes.
    public var simulatorName: String {
        let names = ["extra-small", "small", "medium", "large", "extra-large", "extra-extra-large",
                     "extra-extra-extra-large", "accessibility-medium", "accessibility-large", "accessibility-extra-large",
                     "accessibility-extra-extra-large", "accessibility-extra-extra-extra-large"]
        return names[Self.allCases.firstIndex(of: self) ?? 3]
    }
}

/// The `motion` axis: full animation or the reduced-motion setting.
public enum Motion: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case full, reduced
    public var description: String { rawValue }
}

/// The `contrast` axis: standard contrast or the increased-contrast setting.
public enum Contrast: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case standard, more
    public var description: String { rawValue }
}

extension BuiltInAxis {
    /// The canonical value of a closed-vocabulary axis (every value written exactly as listed), or why not.
    static func closed<T: RawRepresentable & CaseIterable>(_ type: T.Type, _ text: String, axis: String)
        -> Result<String, AxisValueProblem> where T.RawValue == String {
        if let value = T(rawValue: text) { return .success(value.rawValue) }
        let values = T.allCases.map(\.rawValue)
        let hint = Spelling.suggestion(for: text, among: values).map { " (did you mean '\($0)'?)" } ?? ""
        return .failure(.init("'\(text)' is not a value of \(axis)\(hint); use one of \(values.joined(separator: ", "))"))
    }
}

extension Configuration {
    /// The typed `appearance` value, when present and valid.
    public var appearance: Appearance? { values[BuiltInAxis.appearance.rawValue].flatMap(Appearance.init(rawValue:)) }
    /// The typed `textSize` value, when present and valid.
    public var textSize: TextSize? { values[BuiltInAxis.textSize.rawValue].flatMap(TextSize.init(rawValue:)) }
    /// The typed `motion` value, when present and valid.
    public var motion: Motion? { values[BuiltInAxis.motion.rawValue].flatMap(Motion.init(rawValue:)) }
    /// The typed `contrast` value, when present and valid.
    public var contrast: Contrast? { values[BuiltInAxis.contrast.rawValue].flatMap(Contrast.init(rawValue:)) }

    /// What this configuration's accessibility axes mean to each renderer (`plan --explain`), one line per axis it
    /// sets; empty when it sets none.
    public var accessibilityMeaning: [String] {
        var lines: [String] = []
        if let a = appearance {
            lines.append("appearance=\(a): web prefers-color-scheme: \(a); simulator"
                         + " `xcrun simctl ui booted appearance \(a)`; Catalog: its \(a) palette")
        }
        if let t = textSize {
            lines.append("textSize=\(t): web default font size \(t.webFontSize) px (×\(fmt(t.scale))); device"
                         + " -UIPreferredContentSizeCategoryName \(t.contentSizeCategory),"
                         + " `xcrun simctl ui booted content_size \(t.simulatorName)`; Catalog: text ×\(fmt(t.scale))"
                         + (t.scale >= 1.6 ? ", rows stacked" : ""))
        }
        if let m = motion {
            let media = m == .reduced ? "reduce" : "no-preference"
            lines.append("motion=\(m): web prefers-reduced-motion: \(media); simulator ReduceMotionEnabled"
                         + " \(m == .reduced); Catalog: not applied")
        }
        if let c = contrast {
            let media = c == .more ? "more" : "no-preference"
            lines.append("contrast=\(c): web prefers-contrast: \(media); simulator `xcrun simctl ui booted"
                         + " increase_contrast \(c == .more ? "enabled" : "disabled")`; Catalog: its"
                         + " \(c == .more ? "increased-contrast" : "standard") palette")
        }
        return lines
    }

    private func fmt(_ v: Double) -> String { String((v * 100).rounded() / 100) }
}
