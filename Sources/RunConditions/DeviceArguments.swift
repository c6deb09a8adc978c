import MatrixPlan

/// What a configuration means to a device worker: XCUIApplication launch arguments and xcodebuild flags.
///
/// | configuration | launch arguments | xcodebuild |
/// |---|---|---|
/// | `locale=ar-SA` | `-AppleLanguages (ar-SA) -AppleLocale ar_SA` | `-testLanguage ar -testRegion SA` |
/// | `locale=ar` | `-AppleLanguages (ar) -AppleLocale ar_SA` (likely region) | `-testLanguage ar -testRegion SA` |
/// | `direction=rtl`, `pseudo-rtl` | `-NSForceRightToLeftWritingDirection YES -AppleTextDirection YES` | |
/// | `direction=ltr` | `-NSForceRightToLeftWritingDirection NO -AppleTextDirection NO` | |
/// | `direction=pseudo-double` | `-NSDoubleLocalizedStrings YES` | |
/// | `direction=pseudo-accented` | `-NSAccentuateLocalizedStrings YES -NSSurroundLocalizedStrings YES` | |
/// | `network=edge` | `-NetworkProfile edge` (the app's in-process conditioner reads it) | |
/// | `textSize=AX5` | `-UIPreferredContentSizeCategoryName UICTContentSizeCategoryAccessibilityXXXL` | |
///
/// The accessibility axes given in the configuration also become simulator settings (`simulatorCommands`, run before
/// the app launches): `appearance` → `xcrun simctl ui booted appearance dark`, `textSize` → `… content_size …`,
/// `contrast` → `… increase_contrast enabled`, `motion=reduced` → the Accessibility domain's `ReduceMotionEnabled`
/// default (`xcrun simctl spawn booted defaults write …`).
///
/// Orientation and window size have no launch argument: a device registry applies them
/// (`XCUIDevice.shared.orientation`, a window resize), from `orientation` and `windowSize`.
public struct DeviceArguments: Sendable, Hashable {
    /// Arguments for `XCUIApplication.launchArguments`, in order.
    public var launchArguments: [String]
    /// Flags for `xcodebuild test`.
    public var xcodebuildFlags: [String]
    /// The orientation to set before the scenario runs.
    public var orientation: String
    /// The window size in points (`WxH`, after orientation).
    public var windowSize: String
    /// Commands that set the simulator's accessibility settings a configuration names (empty when it names none).
    public var simulatorCommands: [String]

    /// The device arguments of a configuration (missing axes take their defaults: en, auto, portrait,
    /// full-window, no network conditioning).
    public static func `for`(_ configuration: Configuration) -> DeviceArguments {
        let conditions = RunConditions(configuration: configuration, seed: 0)
        return conditions.deviceArguments
    }

    /// The likely region of a language without one (`ar` → `SA`), used for `-AppleLocale` and `-testRegion`.
    public static let likelyRegions: [String: String] = [
        "ar": "SA", "he": "IL", "fa": "IR", "ur": "PK", "de": "DE", "fr": "FR", "ja": "JP", "en": "US", "es": "ES",
        "it": "IT", "pt": "BR", "zh": "CN", "ko": "KR", "ru": "RU", "nl": "NL", "sv": "SE", "tr": "TR", "pl": "PL",
        "yi": "US", "ps": "AF", "ckb": "IQ", "dv": "MV", "sd": "PK", "ku": "TR",
    ]

    init(
        locale: String, requestedDirection: LayoutDirection, network: NetworkSpec?, viewport: Viewport,
        accessibility: AccessibilitySettings, configuration: Configuration
    ) {
        let subtags = locale.split(separator: "-").map(String.init)
        let language = subtags.first ?? "en"
        let region =
            subtags.dropFirst().first { $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isNumber)) }
            ?? Self.likelyRegions[language]
        var args = ["-AppleLanguages", "(\(locale))", "-AppleLocale", region.map { "\(language)_\($0)" } ?? language]
        switch requestedDirection {
        case .rtl, .pseudoRTL:
            args += ["-NSForceRightToLeftWritingDirection", "YES", "-AppleTextDirection", "YES"]
        case .ltr:
            args += ["-NSForceRightToLeftWritingDirection", "NO", "-AppleTextDirection", "NO"]
        case .pseudoDouble:
            args += ["-NSDoubleLocalizedStrings", "YES"]
        case .pseudoAccented:
            args += ["-NSAccentuateLocalizedStrings", "YES", "-NSSurroundLocalizedStrings", "YES"]
        case .auto:
            break
        }
        if let network { args += ["-NetworkProfile", network.description] }
        if configuration.textSize != nil {
            args += ["-UIPreferredContentSizeCategoryName", accessibility.textSize.contentSizeCategory]
        }
        self.simulatorCommands = accessibility.simulatorCommands(for: configuration)
        var flags = ["-testLanguage", language]
        if let region { flags += ["-testRegion", region] }
        self.launchArguments = args
        self.xcodebuildFlags = flags
        self.orientation = viewport.orientation.rawValue
        self.windowSize = "\(viewport.width)x\(viewport.height)"
    }
}
