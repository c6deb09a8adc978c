import DevTools
import FlowSpec
import Foundation
import RunConditions

/// The `web` registry's page objects: a folder of declarative files, one per screen, that say where each identifier a
/// scenario names is in the page (its locator) and which screen it belongs to, plus one optional `app.json` for what
/// belongs to the whole app (fixtures behind `request` targets, `ambient` events, in-page interruptions, the string
/// tables `key=` reads). With page objects the registry resolves every target through them and wires nothing else
/// (an undeclared target throws `unknownStep`), and `manifest` publishes exactly the `verb:target` pairs they wire, so
/// `validate` finds an unwired step before anything runs. The format is in docs/WEB.md ("Page objects").
public struct PageObjects: Sendable {
    /// Where an element is in the page.
    public enum Locator: Sendable, Hashable {
        /// The element whose identifier attribute (`data-testid`) has this value: the default.
        case testID(String)
        /// The element with this ARIA role (explicit, or implied by its tag) and accessible name.
        case role(String, name: String)
        /// The form control with this label (`<label for>`, a wrapping `<label>`, `aria-label` or `aria-labelledby`).
        case label(String)
        /// The first element matching this CSS selector.
        case css(String)

        /// How the page's script receives it (`PagePrelude`'s `find`).
        func json(named target: String) -> JSONValue {
            switch self {
            case .testID(let id): ["as": .string(target), "testId": .string(id)]
            case .role(let role, let name): ["as": .string(target), "role": .string(role), "name": .string(name)]
            case .label(let label): ["as": .string(target), "label": .string(label)]
            case .css(let css): ["as": .string(target), "css": .string(css)]
            }
        }

        /// The locator with `{#}` replaced by the values a target's `#` holes took, in order.
        func filled(_ holes: [String]) -> Locator {
            func fill(_ s: String) -> String {
                var out = s
                for hole in holes {
                    guard let r = out.range(of: "{#}") else { break }
                    out.replaceSubrange(r, with: hole)
                }
                return out
            }
            switch self {
            case .testID(let id): return .testID(fill(id))
            case .role(let role, let name): return .role(fill(role), name: fill(name))
            case .label(let label): return .label(fill(label))
            case .css(let css): return .css(fill(css))
            }
        }
    }

    /// One identifier (a name, or a pattern whose `#` holes take letters, digits or `-`) and where it is.
    public struct Element: Sendable, Hashable {
        public var pattern: String
        public var screen: String
        /// Nil: the test id equal to the target itself.
        public var locator: Locator?
    }

    /// A screen: its name (the `open` target) and the URL that opens it (`{arg}`: the step's argument).
    public struct Screen: Sendable, Hashable {
        public var name: String
        public var url: String
    }

    /// The fixtures a `request` target serves: the URL the app requests, and per argument the response (as the
    /// `request` verb's own argument: a body, or `{"status", "body", "contentType"}`).
    public struct Request: Sendable, Hashable {
        public var url: String
        public var responses: [String: String]
    }

    /// An in-page interruption (an alert the app itself draws): while a `wait`, `tap`, `type` or `swipe` waits, a
    /// visible `element` that is not what the step waits for is dismissed by clicking `dismiss`.
    public struct Interruption: Sendable, Hashable {
        public var name: String
        public var element: String
        public var dismiss: String
    }

    public private(set) var screens: [Screen] = []
    public private(set) var elements: [Element] = []
    public private(set) var requests: [String: Request] = [:]
    public private(set) var events: [String] = []
    public private(set) var interruptions: [Interruption] = []
    /// The app's string tables (`assert … key=`), when `app.json` names them.
    public private(set) var strings: StringTables?

    public init() {}

    // MARK: resolution

    /// The locator of `target` (first the exact names, then the patterns, in file order), or nil when no page
    /// object declares it.
    public func locator(for target: String) -> Locator? {
        if let e = elements.first(where: { $0.pattern == target }) { return e.locator ?? .testID(target) }
        for e in elements where e.pattern.contains("#") {
            guard let holes = Self.holes(of: target, in: e.pattern) else { continue }
            return e.locator?.filled(holes) ?? .testID(target)
        }
        return nil
    }

    /// The screen `target` belongs to (the first page object that declares it).
    public func screen(of target: String) -> String? {
        elements.first { e in
            e.pattern == target || (e.pattern.contains("#") && Self.holes(of: target, in: e.pattern) != nil)
        }?.screen
    }

    /// The URL (relative to the site) that `open target arg` loads: `open item p03` is screen `item` with `{arg}`
    /// replaced by `p03` (percent-encoded).
    public func url(opening target: String, arg: String?) -> String? {
        guard let screen = screens.first(where: { $0.name == target }) else { return nil }
        let value = (arg ?? "").addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        return screen.url.replacingOccurrences(of: "{arg}", with: value)
    }

    /// The values `target`'s `#` holes take in `pattern`, or nil when it does not match.
    static func holes(of target: String, in pattern: String) -> [String]? {
        guard RegistryManifest.matches(target, pattern: pattern) else { return nil }
        var holes: [String] = []
        var rest = Substring(target)
        var pieces = pattern.split(separator: "#", omittingEmptySubsequences: false).map(String.init)
        guard let first = pieces.first, rest.hasPrefix(first) else { return nil }
        rest = rest.dropFirst(first.count)
        pieces.removeFirst()
        for (i, piece) in pieces.enumerated() {
            // The hole runs up to the next literal piece (the last one to the end, or to its final piece).
            if i == pieces.count - 1 {
                guard rest.hasSuffix(piece) else { return nil }
                holes.append(String(rest.dropLast(piece.count)))
                break
            }
            guard let end = rest.range(of: piece) else { return nil }
            holes.append(String(rest[..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return holes
    }

    // MARK: what it wires

    /// The `verb:target` patterns the page objects wire, per verb: `open` the screens, `tap`/`type`/`swipe`/`wait`
    /// the elements, `assert` the elements plus `layout` and `page`, `request` the fixtures, `ambient` the events,
    /// `rotate` any target (the device turns, not an element).
    public var stepPatterns: [RegistryManifest.StepPatterns] {
        let names = elements.map(\.pattern)
        return [
            .init(verb: Verb.open.rawValue, targets: screens.map(\.name)),
            .init(verb: Verb.tap.rawValue, targets: names),
            .init(verb: Verb.type.rawValue, targets: names),
            .init(verb: Verb.swipe.rawValue, targets: names),
            .init(verb: Verb.wait.rawValue, targets: names),
            .init(verb: Verb.assert.rawValue, targets: ["layout", AuditRule.pageTarget] + names),
            .init(verb: Verb.request.rawValue, targets: requests.keys.sorted()),
            .init(verb: Verb.ambient.rawValue, targets: events),
            .init(verb: Verb.rotate.rawValue, targets: ["*"]),
        ]
    }

    /// True when the page objects wire `step` (see `stepPatterns`).
    public func wires(_ step: Step) -> Bool {
        manifest.wires(step)
    }

    /// The `web` registry's manifest with the page objects' steps: what `validate` checks a corpus against.
    public var manifest: RegistryManifest {
        var m = WebRegistry.manifest
        m.steps = stepPatterns
        return m
    }

    // MARK: building

    mutating func add(screen: Screen, elements: [Element]) {
        screens.append(screen)
        self.elements += elements
    }

    mutating func add(requests: [String: Request], events: [String], interruptions: [Interruption],
                      strings: StringTables?) {
        self.requests.merge(requests) { $1 }
        self.events += events
        self.interruptions += interruptions
        if let strings { self.strings = strings }
    }
}
