import Foundation

/// Where a baseline belongs: not the job id (it changes with the scenario file) but what the picture shows.
public struct BaselineKey: Sendable, Hashable, Codable, Comparable {
    public var registry: String
    public var scenario: String
    /// Canonical configuration text `k=v,k=v`.
    public var configuration: String
    /// As people count steps: the first is 1.
    public var step: Int

    public init(registry: String, scenario: String, configuration: String, step: Int) {
        self.registry = registry
        self.scenario = scenario
        self.configuration = configuration
        self.step = step
    }

    public static func < (a: BaselineKey, b: BaselineKey) -> Bool {
        (a.registry, a.scenario, a.configuration, a.step) < (b.registry, b.scenario, b.configuration, b.step)
    }

    /// The picture's path in an exported folder: `<registry>/<scenario>/<configuration>/step-N.png`, each name with
    /// `%` and `/` percent-encoded so that any id or value is one folder.
    public var folderPath: String {
        [registry, scenario, configuration].map(Self.escape).joined(separator: "/") + "/step-\(step).png"
    }

    static func escape(_ name: String) -> String {
        let escaped = name.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
        return escaped.isEmpty || escaped == "." || escaped == ".." ? "%" + escaped : escaped
    }

    /// Whether this key's configuration has every `axis=value` of `conditions`.
    public func matches(_ conditions: [String: String]) -> Bool {
        guard !conditions.isEmpty else { return true }
        var pairs: [String: String] = [:]
        for part in configuration.split(separator: ",") {
            guard let eq = part.firstIndex(of: "=") else { continue }
            pairs[String(part[..<eq])] = String(part[part.index(after: eq)...])
        }
        return conditions.allSatisfy { pairs[$0.key] == $0.value }
    }
}

/// One accepted picture.
public struct BaselineEntry: Sendable, Hashable, Codable {
    public var key: BaselineKey
    /// In the store's manifest: the gzip blob's hash (the blob store's name for it). In a folder's manifest: the
    /// SHA-256 of the PNG file.
    public var sha256: String
    public var width: Int
    public var height: Int
    /// The run the picture was accepted from.
    public var acceptedFrom: String
    /// ISO 8601.
    public var acceptedAt: String
    /// In a folder's manifest: the picture's path relative to the folder.
    public var file: String?

    public init(key: BaselineKey, sha256: String, width: Int, height: Int, acceptedFrom: String, acceptedAt: String,
                file: String? = nil) {
        self.key = key
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.acceptedFrom = acceptedFrom
        self.acceptedAt = acceptedAt
        self.file = file
    }
}

/// The list of baselines: the store's `baselines/manifest.json`, and an exported folder's `manifest.json`.
public struct BaselineManifest: Sendable, Hashable, Codable {
    /// The format's version.
    public var format = 1
    /// What the file is (so a stray `manifest.json` is not taken for one).
    public var kind = "flowmatrix-baselines"
    /// Sorted by key.
    public var entries: [BaselineEntry] = []

    public init(entries: [BaselineEntry] = []) {
        self.entries = entries.sorted { $0.key < $1.key }
    }

    public static let fileName = "manifest.json"

    /// Reads a manifest file.
    /// - Throws: ``BaselineError`` `.missingManifest` when there is no file, `.badManifest` when it is not one.
    public static func read(_ url: URL) throws -> BaselineManifest {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BaselineError(code: .missingManifest, message: "\(url.path) does not exist: a baseline folder has a "
                                + "manifest.json beside its <registry>/ folders (made by 'flowmatrix baseline export')")
        }
        let manifest: BaselineManifest
        do {
            manifest = try JSONDecoder().decode(BaselineManifest.self, from: Data(contentsOf: url))
        } catch {
            throw BaselineError(code: .badManifest, message: "\(url.path) is not a baseline manifest: \(error)")
        }
        guard manifest.kind == "flowmatrix-baselines", manifest.format == 1 else {
            throw BaselineError(code: .badManifest, message: "\(url.path) is a '\(manifest.kind)' file of format "
                                + "\(manifest.format), not a baseline manifest of format 1")
        }
        return manifest
    }

    /// Writes the manifest (sorted keys, atomically).
    public func write(_ url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw BaselineError(code: .io, message: "cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
