import Foundation
import Journal

/// The compact JSON that `report.html` carries for jobs whose panels are built on demand (passed and not-run jobs,
/// and jobs that did not pass beyond ``ReportSettings/pagePanels``):
/// a `<script type="application/json" id="job-data">` block the page's script reads when such a job is opened.
///
/// Shape (`v` 1; every string is an index into `strings`, durations are whole microseconds, times whole seconds
/// after `start`, the run's start in Unix seconds):
/// ```
/// {"jobs":{"<job id>":[scenarioID, title, registry, status, durationUs, [value per axis or null],
///                      failureStep, failureMessage, [attempt…]], …},
///  "strings":[…], "axes":[axis names], "start":1795900000, "v":1}
/// attempt:  [attempt, worker, outcome, durationUs, startedAfter, superseded 0|1, failureStep, message, [step…], [artifact…]]
/// step:     [index, key, outcome, durationUs, message, interruptions]
/// artifact: [step, name, mediaType, rawSize, sha256, path, note, kind]
/// ```
struct JobDataIsland {
    private var strings: [String] = []
    private var index: [String: Int] = [:]
    private let axes: [String]
    private let start: Int64
    private let artifacts: [ArtifactExport.Key: ExportedArtifact]
    private var count = 0

    init(report: RunReport, artifacts: [ArtifactExport.Key: ExportedArtifact]) {
        axes = report.axisNames
        start = Int64(report.run.info.startedAt.timeIntervalSince1970.rounded(.down))
        self.artifacts = artifacts
    }

    /// Jobs whose panel the page always builds from the island.
    static func carries(_ job: JobReport) -> Bool { job.status == .passed || job.status == .notRun }

    private mutating func s(_ text: String?) -> String {
        guard let text else { return "null" }
        if let i = index[text] { return String(i) }
        index[text] = strings.count
        strings.append(text)
        return String(strings.count - 1)
    }

    private static func micros(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "null" }
        return String(Int64((seconds * 1e6).rounded()))
    }

    /// Opens the block.
    func begin(_ out: ReportOutput) {
        out += "<script type=\"application/json\" id=\"job-data\">{\"jobs\":{"
    }

    /// Writes one job's entry.
    mutating func add(_ job: JobReport, to out: ReportOutput) {
        var values: [String: String] = [:]
        for v in job.axes { values[v.axis] = v.value }
        var text = (count == 0 ? "\n" : ",\n") + JSONText.string(job.id) + ":["
        count += 1
        text += s(job.job.scenarioID) + "," + s(job.job.scenarioTitle) + "," + s(job.job.registry) + ","
            + s(job.status.rawValue) + "," + Self.micros(job.row.result?.duration) + ",["
            + axes.map { s(values[$0]) }.joined(separator: ",") + "],"
            + JSONText.int(job.row.result?.failureStep) + "," + s(job.row.result?.failureMessage) + ",["
        for (n, attempt) in job.attempts.enumerated() {
            let result = attempt.row.result
            let started = attempt.row.startedAt.map { String(Int64($0.timeIntervalSince1970.rounded(.down)) - start) } ?? "null"
            text += (n == 0 ? "[" : ",[") + String(attempt.attempt) + "," + s(attempt.row.worker.isEmpty ? nil : attempt.row.worker)
                + "," + s(result?.outcome.rawValue) + "," + Self.micros(result?.duration) + "," + started + ","
                + (attempt.superseded ? "1" : "0") + "," + JSONText.int(result?.failureStep) + "," + s(result?.message) + ",["
            for (i, step) in attempt.steps.enumerated() {
                text += (i == 0 ? "[" : ",[") + String(step.index) + "," + s(step.key) + "," + s(step.outcome.rawValue) + ","
                    + Self.micros(step.duration)
                let message = step.message.flatMap { $0.isEmpty ? nil : $0 }
                let interruptions = step.interruptions.flatMap { $0.isEmpty ? nil : $0 }
                if message != nil || interruptions != nil { text += "," + s(message) + "," + s(interruptions) }
                text += "]"
            }
            text += "],["
            for (i, ref) in HTMLReport.ordered(attempt.artifacts).enumerated() {
                let exported = artifacts[ArtifactExport.Key(job: job.id, attempt: attempt.attempt, step: ref.stepIndex, name: ref.name)]
                let kind = exported?.kind ?? ArtifactKind(mediaType: ref.mediaType, name: ref.name)
                text += (i == 0 ? "[" : ",[") + String(ref.stepIndex) + "," + s(ref.name) + "," + s(ref.mediaType) + ","
                    + String(ref.rawSize) + "," + JSONText.string(ref.sha256) + "," + s(exported?.relativePath) + ","
                    + s(exported?.note) + "," + s(kind.rawValue) + "]"
            }
            text += "]]"
        }
        out += text + "]]"
    }

    /// Closes the block with the string table.
    func end(_ out: ReportOutput) {
        out += "\n},\"strings\":[" + strings.map(JSONText.string).joined(separator: ",") + "],\"axes\":["
            + axes.map(JSONText.string).joined(separator: ",") + "],\"start\":\(start),\"v\":1}</script>\n"
    }
}
