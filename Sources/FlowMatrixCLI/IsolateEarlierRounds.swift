import Foundation
import Isolation
import Journal
import MatrixPlan

extension IsolateSource {
    /// The follow-up rounds of earlier isolations of run `source` (completed ones, oldest first): `isolate` run again on
    /// the same run starts from their outcomes, so a larger budget continues where a smaller one stopped instead of
    /// running the same follow-ups again, and its rounds are numbered after theirs (a round's seed comes from its
    /// number: a second isolation's first round replayed the first's seeded draws).
    static func earlierRounds(_ reader: JournalReader, source: String) throws -> [String] {
        try reader.runs(limit: 1_000_000).filter { run in
            guard run.status == .completed else { return false }
            let settings = (try? JSONSerialization.jsonObject(with: Data(run.info.settingsJSON.utf8))) as? [String: Any]
            return (settings?["isolates"] as? [String: Any])?["source"] as? String == source
        }.sorted { ($0.info.startedAt, $0.info.runID) < ($1.info.startedAt, $1.info.runID) }.map(\.info.runID)
    }

    /// The outcomes of `rounds` that are still evidence about the matrix and scenarios as they are now (a round with an
    /// axis or value the matrix no longer has, or whose scenarios were edited since, is left out), and how many rounds
    /// that is.
    static func reusable(_ rounds: [String], reader: JournalReader, plan: Plan) throws -> (observations: [Observation], rounds: Int) {
        var out: [Observation] = []
        var used = 0
        for round in rounds {
            let observed = try IsolateCommand.observations(reader, runID: round, followUp: true)
            var rows: [PlannedJob] = []
            try reader.forEachJobRow(run: round) { rows.append($0.job) }
            guard mismatch(plan.matrix, source: observed, planned: false) == nil, changedScenario(plan, failing: rows) == nil
            else { continue }
            out += observed
            used += 1
        }
        return (out, used)
    }
}
