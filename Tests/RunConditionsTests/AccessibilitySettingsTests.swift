import MatrixPlan
import RunConditions
import Testing

@Suite("accessibility axes at run time: defaults, media features, device arguments and simulator settings")
struct AccessibilitySettingsTests {
    @Test("missing accessibility axes take light, large, full motion and standard contrast, and set nothing on a device")
    func defaults() throws {
        let conditions = try RunConditions(values: ["locale": "en"], seed: 1)
        #expect(conditions.accessibility == AccessibilitySettings(
            appearance: .light, textSize: .large, motion: .full, contrast: .standard))
        #expect(conditions.deviceArguments.simulatorCommands.isEmpty)
        #expect(!conditions.deviceArguments.launchArguments.contains("-UIPreferredContentSizeCategoryName"))
        #expect(conditions.accessibility.mediaFeatures.map { "\($0.name): \($0.value)" } == [
            "prefers-color-scheme: light", "prefers-reduced-motion: no-preference", "prefers-contrast: no-preference",
        ])
    }

    @Test("dark, AX5, reduced motion and more contrast become media features, a launch argument and simulator settings")
    func everyAxis() throws {
        let conditions = try RunConditions(
            values: ["appearance": "dark", "textSize": "AX5", "motion": "reduced", "contrast": "more"], seed: 1)
        #expect(conditions.accessibility.mediaFeatures.map(\.value) == ["dark", "reduce", "more"])
        let device = conditions.deviceArguments
        #expect(device.launchArguments.suffix(2) == [
            "-UIPreferredContentSizeCategoryName", "UICTContentSizeCategoryAccessibilityXXXL",
        ])
        #expect(device.simulatorCommands == [
            "xcrun simctl ui booted appearance dark",
            "xcrun simctl ui booted content_size accessibility-extra-extra-extra-large",
            "xcrun simctl ui booted increase_contrast enabled",
            "xcrun simctl spawn booted defaults write com.apple.Accessibility ReduceMotionEnabled -bool true",
        ])
    }

    @Test("text sizes scale like Dynamic Type's body text; the browser's default font size follows", arguments: [
        (TextSize.xSmall, 13), (.large, 16), (.xxxLarge, 22), (.ax1, 26), (.ax5, 50),
    ])
    func textSizes(_ size: TextSize, _ pixels: Int) {
        #expect(size.webFontSize == pixels)
        #expect(TextSize.large.scale == 1)
    }

    @Test("an invalid accessibility value is refused with the axis named")
    func invalid() {
        #expect(throws: RunConditionsError.self) { try RunConditions(values: ["appearance": "Dark"], seed: 1) }
    }
}
