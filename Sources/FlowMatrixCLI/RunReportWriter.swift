import Foundation
import Journal
import Reports
import RunControl

/// Writes a run's reports when it ends (`run`, `serve`) or is merged (`merge`): report.html, junit.xml, summary.json
/// and the rest of docs/REPORTS.md, with Reports' `ReportWriter`, and says where they are.
struct RunReportWriter: RunReporting {
    var baseline: String?

    func write(runID: String, store: RunStore) -> RunReportNote {
        // The step pictures are compared with their visual baselines first: the reports show what changed.
        let visual = VisualRunCheck.run(runID: runID, store: store)
        let (line, warnings) = Self.write(runID: runID, store: store, baseline: baseline)
        var note = RunReportNote(line: [line, visual.line].compactMap { $0 }.joined(separator: "\n  "),
                                 warnings: visual.warnings + warnings)
        note.visualFailures = visual.failedJobs
        note.visualVerdicts = visual.verdicts
        return note
    }

    /// Writes the run's reports and prints their warnings; returns a line saying where they are (or why they are
    /// not). A `--baseline last` with no earlier run writes the report without a comparison.
    static func writeReports(runID: String, store: RunStore, baseline: String?) -> String? {
        let note = RunReportWriter(baseline: baseline).write(runID: runID, store: store)
        for warning in note.warnings { FlowMatrixCLI.writeError("warning: \(warning)\n") }
        return note.line
    }

    private static func write(runID: String, store: RunStore, baseline: String?) -> (String, [String]) {
        do {
            let reader = try JournalReader(path: store.journalPath)
            var note: String?
            let files: ReportFiles
            do {
                files = try ReportWriter.write(runID: runID, reader: reader, blobsRoot: store.blobsRoot,
                                               into: store.runFolder(runID), baseline: baseline)
            } catch let error as ReportError where error.code == .noBaseline {
                note = "no baseline: \(error.message)"
                files = try ReportWriter.write(runID: runID, reader: reader, blobsRoot: store.blobsRoot,
                                               into: store.runFolder(runID), baseline: nil)
            }
            var line = "report: \(files.html.path)"
            if let diff = files.diff { line += "\n  since \(diff.base): \(diff.summaryLine)" }
            if let note { line += "\n  \(note)" }
            // A run on several registries (renderers): where they disagree, and where the time went.
            if let parity = files.parity { line += "\n  renderers: " + parity.headline.terminalSafe }
            if let times = files.registryTimes { line += "\n  time per registry: " + times.line.terminalSafe }
            if let stability = files.stability {
                // Stability mode: the least stable jobs and axis values (stability.json holds them all).
                line += "\n" + stability.lines().map(\.terminalSafe).joined(separator: "\n")
                line += "\n  stability: " + files.folder.appendingPathComponent("stability.json").path
            }
            return (line, files.warnings)
        } catch {
            return ("report not written: \(error)", [])
        }
    }
}
