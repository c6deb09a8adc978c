import Baselines
import FlowVocabulary
import Foundation
import Journal
import RunControl
import Visual

/// The visual comparison at the end of `run`, `serve` and `merge`, before the reports (docs/VISUAL.md): a line for the
/// person, warnings, and how many jobs a change fails.
enum VisualRunCheck {
    struct Outcome {
        var line: String?
        var warnings: [String] = []
        var failedJobs = 0
        /// Jobs the journal now records as failed because of a change, by the outcome each had before.
        var verdicts: [JobOutcome: Int] = [:]
    }

    static func run(runID: String, store: RunStore) -> Outcome {
        do {
            let reader = try JournalReader(path: store.journalPath)
            let baselines = try BaselineStore(root: store.root)
            guard let results = try VisualCheck.run(runID: runID, reader: reader, store: baselines,
                                                    folder: store.runFolder(runID)) else { return Outcome() }
            var outcome = Outcome(line: summaryLine(results), failedJobs: results.failedJobs)
            // A change under onChange 'fail' is a verdict: the journal records those jobs as failed before the
            // reports read it (docs/VISUAL.md, "A visual change is a verdict").
            outcome.verdicts = try VisualVerdicts.record(results, journalPath: store.journalPath)
            return outcome
        } catch {
            return Outcome(warnings: ["visual baselines not compared: \(error)"])
        }
    }

    /// `visual: 2 changed step(s) in 1 job(s) (fail); 40 compared (38 equal), 3 new`.
    static func summaryLine(_ r: VisualRunResults) -> String {
        String(format: "visual: %d changed step(s) in %d job(s) (%@); %d compared (%d equal), %d without baseline, %.0f ms",
               r.changedSteps, r.changedJobs, r.onChange, r.comparedSteps, r.equalSteps, r.newSteps, r.milliseconds)
    }
}
