import FlowSpec
import MatrixPlan

/// What a configuration means at run time: the locale strings resolve in, the effective writing direction and
/// pseudolocalization, the viewport, the network conditioner (seeded per job) and the device arguments.
///
/// Missing axes take defaults: `locale` en, `direction` auto, `orientation` portrait, `window` full-window,
/// `network` none (unconditioned), `appearance` light, `textSize` large, `motion` full, `contrast` standard. Unparseable values are rejected by `init(validating:seed:)`.
public struct RunConditions: Sendable {
    /// The typed axes these conditions give a meaning (a registry built on them honours those it applies: the web
    /// registry all of them, the Catalog registry all but the accessibility axes).
    public static let appliedAxes: [BuiltInAxis] = [
        .locale, .direction, .orientation, .window, .network, .appearance, .textSize, .motion, .contrast,
    ]
    /// The accessibility axes among them (docs/ACCESSIBILITY.md).
    public static let accessibilityAxes: [BuiltInAxis] = [.appearance, .textSize, .motion, .contrast]

    public let configuration: Configuration
    public let seed: UInt64
    /// The canonical BCP-47 tag strings and formats resolve for.
    public let locale: String
    /// The `direction` axis as given (`auto` when absent).
    public let requestedDirection: LayoutDirection
    /// The direction the UI lays out in: forced by `rtl`/`ltr`/`pseudo-rtl`, else the locale's own.
    public let direction: TextDirection
    /// The pseudolocalization applied to every string.
    public let pseudo: PseudoMode
    public let viewport: Viewport
    public let networkProfile: NetworkProfile
    /// The job's conditioner (one per `RunConditions` value; share it with the app's data port).
    public let network: NetworkConditioner
    public let deviceArguments: DeviceArguments
    /// The system's light or dark appearance.
    public let appearance: Appearance
    /// The preferred text size (`large` is the default).
    public let textSize: TextSize
    /// Full animation or reduced motion.
    public let motion: Motion
    /// Standard or increased contrast.
    public let contrast: Contrast

    /// Builds the run conditions of `configuration` for a job with `seed`. Invalid axis values fall back to
    /// their defaults; use `init(validating:seed:)` to reject them instead.
    public init(configuration: Configuration, seed: UInt64) {
        self.configuration = configuration
        self.seed = seed
        let locale = configuration.locale.flatMap(LocaleTag.canonicalize) ?? "en"
        self.locale = locale
        let requested = configuration.direction ?? .auto
        self.requestedDirection = requested
        switch requested {
        case .ltr: direction = .leftToRight; pseudo = .none
        case .rtl, .pseudoRTL: direction = .rightToLeft; pseudo = .none
        case .auto: direction = Self.localeDirection(locale); pseudo = .none
        case .pseudoDouble: direction = Self.localeDirection(locale); pseudo = .double
        case .pseudoAccented: direction = Self.localeDirection(locale); pseudo = .accented
        }
        let viewport = Viewport.resolve(
            window: configuration.window ?? .preset(.fullWindow),
            orientation: configuration.orientation ?? .portrait)
        self.viewport = viewport
        let networkSpec = configuration.network
        let profile = networkSpec.map(NetworkProfile.init) ?? .unconditioned
        self.networkProfile = profile
        self.network = NetworkConditioner(profile: profile, seed: seed)
        let settings = AccessibilitySettings(
            appearance: configuration.appearance ?? .light, textSize: configuration.textSize ?? .large,
            motion: configuration.motion ?? .full, contrast: configuration.contrast ?? .standard)
        appearance = settings.appearance
        textSize = settings.textSize
        motion = settings.motion
        contrast = settings.contrast
        self.deviceArguments = DeviceArguments(
            locale: locale, requestedDirection: requested, network: networkSpec,
            viewport: viewport, accessibility: settings, configuration: configuration)
    }

    /// Builds the run conditions, rejecting any built-in axis value that is not valid.
    /// - Throws: `RunConditionsError` naming every invalid axis.
    public init(validating configuration: Configuration, seed: UInt64) throws {
        var problems: [String] = []
        for axis in BuiltInAxis.allCases {
            guard let value = configuration[axis.rawValue] else { continue }
            if case .failure(let problem) = axis.normalize(value) {
                problems.append("\(axis.rawValue): \(problem.message)")
            }
        }
        guard problems.isEmpty else { throw RunConditionsError(problems: problems) }
        self.init(configuration: configuration, seed: seed)
    }

    /// Convenience: a configuration given as axis → value.
    public init(values: [String: String], seed: UInt64) throws {
        try self.init(validating: Configuration(values), seed: seed)
    }

    /// The direction a locale is written in (`ar`, `he`, `fa`, `ur`, … and RTL scripts are right-to-left).
    public static func localeDirection(_ tag: String) -> TextDirection {
        LocaleTag.isRightToLeft(tag) ? .rightToLeft : .leftToRight
    }

    /// A localizer over `tables` for this run's locale and pseudolocalization.
    public func localizer(_ tables: StringTables) -> Localizer {
        Localizer(tables: tables, locale: locale, pseudo: pseudo)
    }
}

/// A configuration whose built-in axis values cannot be given a run-time meaning.
public struct RunConditionsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var problems: [String]
    public var description: String { "invalid configuration: " + problems.joined(separator: "; ") }
}
