import Coordinator
import Foundation
import Journal
import MatrixPlan

/// Stability mode's figures (`run --repeat N`): per job (scenario + configuration, over its repetitions) and per
/// axis value, the pass rate and the flake rate = failed repetitions / repetitions. A repetition fails when its
/// final outcome is failed, timed out or quarantined; one that passed on a retry (flaky) counts as passed, and is
/// counted apart. Written as `stability.json` beside the run's reports and printed after the run.
struct StabilitySummary: Sendable {
    struct Entry: Sendable, Hashable {
        var key: String
        var repetitions = 0
        var failed = 0
        var flaky = 0
        var passRate: Double { repetitions == 0 ? 0 : Double(repetitions - failed) / Double(repetitions) }
        var flakeRate: Double { repetitions == 0 ? 0 : Double(failed) / Double(repetitions) }
    }

    var repetitions: Int
    /// Per `scenario [configuration]`, least stable first.
    var jobs: [Entry]
    /// Per `axis=value`, least stable first.
    var axisValues: [Entry]

    init(rows: [JobRow], repetitions: Int) {
        self.repetitions = repetitions
        var jobs: [String: Entry] = [:], values: [String: Entry] = [:]
        for row in rows {
            guard let outcome = row.result?.outcome, outcome != .notRun, outcome != .cancelled else { continue }
            let base = Repetitions.baseConfiguration(row.job.configuration)
            let failed = outcome.isFailure
            func count(_ entry: inout Entry) {
                entry.repetitions += 1
                if failed { entry.failed += 1 }
                if outcome == .flaky { entry.flaky += 1 }
            }
            let jobKey = "\(row.job.scenarioID) [\(base)]"
            count(&jobs[jobKey, default: Entry(key: jobKey)])
            for pair in base.split(separator: ",") {
                count(&values[String(pair), default: Entry(key: String(pair))])
            }
        }
        let order: (Entry, Entry) -> Bool = { $0.flakeRate != $1.flakeRate ? $0.flakeRate > $1.flakeRate : $0.key < $1.key }
        self.jobs = jobs.values.sorted(by: order)
        self.axisValues = values.values.sorted(by: order)
    }

    /// The lines printed after the run: the least stable jobs and axis values.
    func lines(limit: Int = 10) -> [String] {
        let unstable = jobs.filter { $0.failed > 0 }
        var out = ["stability over \(repetitions) repetitions: \(unstable.count) of \(jobs.count) job(s) failed at least once"]
        for e in unstable.prefix(limit) {
            out.append(String(format: "  %5.1f%% failed  %d/%d  %@", e.flakeRate * 100, e.failed, e.repetitions, e.key.terminalSafe))
        }
        let values = axisValues.filter { $0.failed > 0 }.prefix(limit)
        if !values.isEmpty {
            out.append("  by axis value (flake rate = failed repetitions / repetitions):")
            for e in values { out.append(String(format: "  %5.1f%%  %@", e.flakeRate * 100, e.key.terminalSafe)) }
        }
        return out
    }

    /// `stability.json`: {"repetitions", "jobs": [{key, repetitions, failed, flaky, passRate, flakeRate}], "axisValues": […]}.
    func json() throws -> Data {
        func object(_ e: Entry) -> [String: Any] {
            ["key": e.key, "repetitions": e.repetitions, "failed": e.failed, "flaky": e.flaky,
             "passRate": e.passRate, "flakeRate": e.flakeRate]
        }
        let root: [String: Any] = ["repetitions": repetitions, "jobs": jobs.map(object), "axisValues": axisValues.map(object)]
        return try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])
    }
}
