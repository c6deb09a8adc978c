import DevTools
import Foundation

/// What the `permission-prompt` interruption answers when a page asks for a permission (geolocation, notifications,
/// camera, microphone, clipboard-read): allow or deny, by default and per permission.
///
/// Written as `allow`, `deny`, or `geolocation=allow,notifications=deny` (`*=allow` sets the default among names).
/// Layers, each over the one before: `WebSettings.permissions` (default: deny everything, as a browser with nobody
/// to click "Allow" does), a scenario's `permissions=…` tag, then the job's `permissions` configuration value (a
/// custom matrix axis, so a matrix can sweep allow and deny). A bare `allow`/`deny` replaces everything below it.
public struct PermissionPolicy: Sendable, Hashable {
    public enum Decision: String, Sendable, Hashable {
        case allow, deny

        /// The setting `Browser.setPermission` takes.
        var setting: String { self == .allow ? "granted" : "denied" }
    }

    /// The permissions a page's request surfaces for (the names `navigator.permissions.query` and
    /// `Browser.setPermission` use).
    public static let names = ["geolocation", "notifications", "camera", "microphone", "clipboard-read"]

    /// The decision for a permission not named in `decisions`.
    public var fallback: Decision
    /// Decisions by permission name.
    public var decisions: [String: Decision]

    public init(_ fallback: Decision = .deny, decisions: [String: Decision] = [:]) {
        self.fallback = fallback
        self.decisions = decisions
    }

    /// The decision for `permission`.
    public func decision(for permission: String) -> Decision { decisions[permission] ?? fallback }

    /// This policy with `text` (`allow`, `deny`, or `name=decision,…`) layered over it.
    /// - Throws: `WebHostError` naming the part that is not a decision or not a known permission.
    public func overlaid(with text: String) throws -> PermissionPolicy {
        var out = self
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard let decision = Decision(rawValue: pieces.last ?? "") else {
                throw WebHostError(message: "permissions: '\(part)' is not allow or deny (e.g. geolocation=allow)")
            }
            if pieces.count == 1 {
                out = PermissionPolicy(decision)
            } else if pieces[0] == "*" {
                out.fallback = decision
            } else if Self.names.contains(pieces[0]) {
                out.decisions[pieces[0]] = decision
            } else {
                throw WebHostError(
                    message: "permissions: '\(pieces[0])' is not one of \(Self.names.joined(separator: ", "))")
            }
        }
        return out
    }
}

/// The position a page that was allowed geolocation sees (`Emulation.setGeolocationOverride`): the job's
/// `geolocation` configuration value, `latitude,longitude[,accuracy in metres]`, else `WebSettings.geolocation`.
public struct GeolocationFix: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var accuracy: Double

    /// Berlin's Alexanderplatz, to 20 m: the default position.
    public static let standard = GeolocationFix(latitude: 52.5219, longitude: 13.4132, accuracy: 20)

    public init(latitude: Double, longitude: Double, accuracy: Double = 20) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
    }

    /// Parses `latitude,longitude[,accuracy]`.
    /// - Throws: `WebHostError` for anything else, or values out of range.
    public init(parsing text: String) throws {
        let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (2...3).contains(numbers.count), let latitude = numbers[0], let longitude = numbers[1],
            abs(latitude) <= 90, abs(longitude) <= 180
        else {
            throw WebHostError(
                message: "geolocation: '\(text)' is not latitude,longitude[,accuracy] (e.g. 48.8584,2.2945,10)")
        }
        let accuracy = numbers.count == 3 ? numbers[2] : 20
        guard let accuracy, accuracy > 0 else {
            throw WebHostError(message: "geolocation: the accuracy in '\(text)' must be a positive number of metres")
        }
        self.init(latitude: latitude, longitude: longitude, accuracy: accuracy)
    }

    var parameters: JSONValue {
        ["latitude": .number(latitude), "longitude": .number(longitude), "accuracy": .number(accuracy)]
    }
}
