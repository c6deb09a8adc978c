import FlowSpec

// The typed axes of the accessibility settings: appearance, text size, motion and contrast. MatrixPlan validates
// their values; no registry applies them yet (docs/MATRIX.md, "honoured by"), so a run says it ignores them.

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
