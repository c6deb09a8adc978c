import Foundation
import Visual

extension SummaryDocument {
    /// `summary.json`'s `visual`: the run's comparison with its visual baselines (docs/VISUAL.md). Each job with
    /// changed steps has `visualChanges` (their count) in its full entry.
    public struct VisualSummary: Sendable, Hashable, Codable {
        /// Step pictures compared with a baseline, equal byte for byte, and without a baseline.
        public var comparedSteps: Int
        public var equalSteps: Int
        public var newSteps: Int
        public var changedSteps: Int
        public var changedJobs: Int
        /// `fail` or `report` (`policy.visual.onChange`).
        public var onChange: String
        /// Jobs a change failed: the journal records them as `failed` with rule MX053 (0 under `report`).
        public var failedJobs: Int?
        /// Where the changes are, as the report's "Visual changes" section says it.
        public var headline: String

        public init(_ r: VisualRunResults) {
            comparedSteps = r.comparedSteps
            equalSteps = r.equalSteps
            newSteps = r.newSteps
            changedSteps = r.changedSteps
            changedJobs = r.changedJobs
            onChange = r.onChange
            failedJobs = r.verdicts
            headline = VisualSection(results: r).headline
        }
    }

    /// Job id → changed steps.
    static func visualChanges(_ r: VisualRunResults) -> [String: Int] {
        var out: [String: Int] = [:]
        for job in r.jobs where !job.changes.isEmpty { out[job.jobID] = job.changes.count }
        return out
    }
}

extension VisualSection {
    /// The run folder's `visual.json`, nil when there is none.
    /// - Throws: ``ReportError`` `.output` when it cannot be read.
    static func read(in folder: URL) throws -> VisualRunResults? {
        do {
            return try VisualRunResults.read(in: folder)
        } catch {
            throw ReportError(code: .output, message: "cannot read \(folder.appendingPathComponent(VisualRunResults.fileName).path): \(error)")
        }
    }
}
