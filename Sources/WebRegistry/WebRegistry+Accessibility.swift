import DevTools
import MatrixPlan
import RunConditions

/// How the `web` registry applies the accessibility axes: `appearance`, `motion` and `contrast` as the media features
/// `prefers-color-scheme`, `prefers-reduced-motion` and `prefers-contrast` (`Emulation.setEmulatedMedia`), and
/// `textSize` as the browser's default font sizes (`Page.setFontSizes`, what a user's font-size setting changes:
/// 16 px standard and 13 px fixed at `large`, scaled like Dynamic Type's body text). Text sized in `rem`, `em` or
/// percentages follows; text sized in `px` does not (as in a browser whose user raised the default size).
extension WebRegistry {
    static func emulatedMedia(_ settings: AccessibilitySettings) -> JSONValue {
        let features = settings.mediaFeatures.map { JSONValue.object(["name": .string($0.name), "value": .string($0.value)]) }
        return ["features": .array(features)]
    }

    static func fontSizes(_ size: TextSize) -> JSONValue {
        let fixed = Int((13 * size.scale).rounded())
        return ["fontSizes": ["standard": .number(Double(size.webFontSize)), "fixed": .number(Double(fixed))]]
    }
}
