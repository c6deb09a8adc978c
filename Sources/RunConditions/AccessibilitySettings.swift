import MatrixPlan

/// The accessibility settings of a job (the `appearance`, `textSize`, `motion` and `contrast` axes, defaults filled
/// in): what each renderer applies.
public struct AccessibilitySettings: Sendable, Hashable {
    public var appearance: Appearance
    public var textSize: TextSize
    public var motion: Motion
    public var contrast: Contrast

    public init(appearance: Appearance, textSize: TextSize, motion: Motion, contrast: Contrast) {
        self.appearance = appearance
        self.textSize = textSize
        self.motion = motion
        self.contrast = contrast
    }

    /// The CSS media features a browser emulates (`Emulation.setEmulatedMedia`'s `features`).
    public var mediaFeatures: [(name: String, value: String)] {
        [
            ("prefers-color-scheme", appearance.rawValue),
            ("prefers-reduced-motion", motion == .reduced ? "reduce" : "no-preference"),
            ("prefers-contrast", contrast == .more ? "more" : "no-preference"),
        ]
    }

    /// The simulator commands for the axes `configuration` names (a device worker runs them before launching).
    func simulatorCommands(for configuration: Configuration) -> [String] {
        var commands: [String] = []
        if configuration.appearance != nil { commands.append("xcrun simctl ui booted appearance \(appearance)") }
        if configuration.textSize != nil {
            commands.append("xcrun simctl ui booted content_size \(textSize.simulatorName)")
        }
        if configuration.contrast != nil {
            commands.append(
                "xcrun simctl ui booted increase_contrast \(contrast == .more ? "enabled" : "disabled")")
        }
        if configuration.motion != nil {
            commands.append(
                "xcrun simctl spawn booted defaults write com.apple.Accessibility ReduceMotionEnabled -bool "
                    + (motion == .reduced ? "true" : "false"))
        }
        return commands
    }
}

extension RunConditions {
    /// The job's accessibility settings as one value.
    public var accessibility: AccessibilitySettings {
        AccessibilitySettings(appearance: appearance, textSize: textSize, motion: motion, contrast: contrast)
    }
}
