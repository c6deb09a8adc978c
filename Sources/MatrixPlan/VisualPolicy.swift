import Foundation

/// `policy.visual`: how every step picture of a run is compared with its baseline (docs/VISUAL.md).
///
/// A step counts as a visual change when more pixels differ than both tolerances allow: over `maxDiffPixels` and over
/// `maxDiffRatio` of the picture. Without `policy.visual`, steps that have baselines are still compared, with the
/// defaults, and changes are only reported.
public struct VisualPolicy: Sendable, Hashable, Codable {
    /// What a visual change does to the run.
    public enum OnChange: String, Sendable, Hashable, Codable, CaseIterable {
        /// The job counts as failed for the run's verdict (exit code 1); the report shows why.
        case fail
        /// Only reported (report, summary.json, diff).
        case report
    }

    /// A masked region: an element identifier (its boxes from the step's element list) or a fixed rectangle.
    public enum Mask: Sendable, Hashable, Codable {
        case identifier(String)
        case rect(x: Int, y: Int, width: Int, height: Int)
    }

    /// pixelmatch's colour-distance threshold, 0…1 (default 0.1).
    public var threshold: Double = 0.1
    /// Differing pixels a step may have and still match (default 0).
    public var maxDiffPixels: Int = 0
    /// Share of differing pixels a step may have and still match, 0…1 (default 0).
    public var maxDiffRatio: Double = 0
    /// Regions not compared.
    public var masks: [Mask] = []
    /// Count anti-aliased pixels as differences (default false).
    public var includeAntiAliasing = false
    /// Default `fail` when the matrix has `policy.visual`; `report` for the defaults of a matrix without it.
    public var onChange: OnChange = .fail

    public init() {}

    /// The settings of a run whose matrix has no `policy.visual`: compare with the defaults, only report.
    public static let reportOnly: VisualPolicy = {
        var p = VisualPolicy()
        p.onChange = .report
        return p
    }()

    /// Whether `differentPixels` of `totalPixels` exceed both tolerances.
    public func isChange(differentPixels: Int, totalPixels: Int) -> Bool {
        guard differentPixels > maxDiffPixels else { return false }
        return Double(differentPixels) > maxDiffRatio * Double(totalPixels)
    }

    /// The identifiers among the masks.
    public var maskIdentifiers: [String] {
        masks.compactMap { if case .identifier(let id) = $0 { id } else { nil } }
    }

    /// The policy as one JSON object (the run's journaled settings carry it; `init(json:)` reads it back).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads ``json``; nil for anything else.
    public init?(json: Data) {
        guard let policy = try? JSONDecoder().decode(VisualPolicy.self, from: json) else { return nil }
        self = policy
    }
}

extension MatrixFile {
    /// The settings key under which the run's journaled settings carry `policy.visual`.
    public static let visualSettingsKey = "visual"
}
