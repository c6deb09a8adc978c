import Foundation

/// What comparing a run's step pictures with their baselines found: `runs/<run-id>/visual.json`, written when the run
/// ends (the Baselines module's `VisualCheck`) and read by the reports (docs/VISUAL.md).
public struct VisualRunResults: Sendable, Hashable, Codable {
    /// The file's format version.
    public var format = 1
    public var runID: String
    /// `fail` or `report`: what a change does (the matrix's `policy.visual.onChange`).
    public var onChange: String
    /// Step pictures compared with a baseline (equal hashes included).
    public var comparedSteps = 0
    /// Step pictures equal to their baseline byte for byte (no decoding needed).
    public var equalSteps = 0
    /// Step pictures that have no baseline yet.
    public var newSteps = 0
    /// Every job with at least one compared step, in plan order.
    public var jobs: [Job] = []
    /// Milliseconds spent comparing (decoding, comparing, writing diff images).
    public var milliseconds: Double = 0

    public init(runID: String, onChange: String) {
        self.runID = runID
        self.onChange = onChange
    }

    /// One job's comparison.
    public struct Job: Sendable, Hashable, Codable {
        public var jobID: String
        public var registry: String
        public var scenarioID: String
        /// Canonical configuration text `k=v,k=v`.
        public var configuration: String
        public var comparedSteps: Int
        /// The changed steps only.
        public var changes: [Step]
        /// The attempt whose pictures were compared (the job's last attempt that kept pictures).
        public var attempt: Int?
        /// The job's failure message when its changes failed it (`onChange: fail` and the compared attempt had passed):
        /// the journal records the job as failed with it (docs/VISUAL.md, "A visual change is a verdict").
        public var verdict: String?
        /// The job's outcome before the verdict (`passed` or `flaky`), when there is one.
        public var outcomeBefore: String?

        public init(jobID: String, registry: String, scenarioID: String, configuration: String, comparedSteps: Int,
                    changes: [Step]) {
            self.jobID = jobID
            self.registry = registry
            self.scenarioID = scenarioID
            self.configuration = configuration
            self.comparedSteps = comparedSteps
            self.changes = changes
        }

        /// The configuration's axis → value pairs.
        public var axes: [(String, String)] {
            configuration.split(separator: ",").compactMap { part -> (String, String)? in
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return pieces.count == 2 ? (String(pieces[0]), String(pieces[1])) : nil
            }
        }
    }

    /// A changed step.
    public struct Step: Sendable, Hashable, Codable {
        /// As people count steps: the first is 1.
        public var step: Int
        /// `changed` (over the tolerances), `size` (the picture's size changed) or `unreadable` (a picture could not
        /// be decoded; `message` says why).
        public var kind: String
        public var differentPixels: Int
        public var totalPixels: Int
        /// Blob hashes in the store (gzip of the PNG): the baseline, the current picture, the diff image.
        public var baseline: String
        public var current: String
        public var diff: String?
        /// The pictures as files of the run folder (`visual/<hash>.png`), for the report.
        public var baselineFile: String?
        public var currentFile: String?
        public var diffFile: String?
        public var message: String?

        public init(step: Int, kind: String, differentPixels: Int, totalPixels: Int, baseline: String, current: String) {
            self.step = step
            self.kind = kind
            self.differentPixels = differentPixels
            self.totalPixels = totalPixels
            self.baseline = baseline
            self.current = current
        }

        /// What changed, in words: `812 of 1024000 pixels differ (0.08 %)`, or the size or decoding problem.
        public var summary: String {
            switch kind {
            case "size": return message ?? "the picture's size changed"
            case "unreadable": return "a picture could not be read: \(message ?? "")"
            default:
                let percent = totalPixels == 0 ? 0 : Double(differentPixels) * 100 / Double(totalPixels)
                return "\(differentPixels) of \(totalPixels) pixels differ (" + String(format: "%.2f", percent) + " %)"
            }
        }
    }

    /// Changed steps of all jobs.
    public var changedSteps: Int { jobs.reduce(0) { $0 + $1.changes.count } }
    /// Jobs with at least one changed step.
    public var changedJobs: Int { jobs.filter { !$0.changes.isEmpty }.count }
    /// Jobs a change fails (none when `onChange` is `report`).
    public var failedJobs: Int { onChange == "fail" ? changedJobs : 0 }
    /// Jobs whose outcome a change turned to `failed` in the journal (passing before).
    public var verdicts: Int { jobs.filter { $0.verdict != nil }.count }

    /// The file's name in a run folder.
    public static let fileName = "visual.json"

    /// Reads `visual.json` from a run folder; nil when there is none (a run compared nothing).
    /// - Throws: when the file exists but is not a readable results file.
    public static func read(in folder: URL) throws -> VisualRunResults? {
        let url = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(VisualRunResults.self, from: Data(contentsOf: url))
    }

    /// Writes `visual.json` into a run folder.
    public func write(in folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try encoder.encode(self).write(to: folder.appendingPathComponent(Self.fileName), options: .atomic)
    }
}
