import Foundation
import Isolation

/// What `flowmatrix isolate` confirmed, applied to a report's pivot.
enum PivotIsolation {
    /// Marks the patterns `flowmatrix isolate` confirmed: a pattern whose values are a confirmed combination's
    /// (with its scenario, or without one when the pattern names no scenario) says by how many follow-up jobs.
    static func markConfirmed(_ pivot: inout AxisPivot, _ record: IsolationRecord) {
        let scenarioAxis = AxisPivot.scenarioAxis
        for (i, e) in pivot.explanations.enumerated() {
            let values = Set(e.group.values)
            let scenario = e.group.values.first { $0.axis == scenarioAxis }?.value
            // A pattern that names no scenario sums the confirmations of every scenario with that combination.
            // A command job's test's confirmation is about that test, not the job's pattern.
            let matches = record.confirmed.filter { $0.test == nil && Self.matches($0, values, scenario: scenario) }
            if !matches.isEmpty { pivot.explanations[i].confirmedBy = matches.reduce(0) { $0 + $1.followUps } }
        }
    }

    /// Command jobs' tests pivoted one by one, with the patterns `flowmatrix isolate` confirmed for that test marked.
    static func marked(_ pivots: [TestPivot], _ record: IsolationRecord?) -> [TestPivot] {
        guard let record else { return pivots }
        var pivots = pivots
        for (i, t) in pivots.enumerated() {
            for (j, e) in t.patterns.enumerated() {
                let scenario = e.group.values.first { $0.axis == AxisPivot.scenarioAxis }?.value
                let matches = record.confirmed.filter { $0.test == t.test && Self.matches($0, Set(e.group.values), scenario: scenario) }
                if !matches.isEmpty { pivots[i].patterns[j].confirmedBy = matches.reduce(0) { $0 + $1.followUps } }
            }
        }
        return pivots
    }

    /// Whether a confirmation's combination is a pattern's values (with its scenario, or without one when the pattern
    /// names no scenario).
    private static func matches(_ c: IsolationRecord.Confirmed, _ values: Set<AxisValue>, scenario: String?) -> Bool {
        let pairs = c.combination.flatMap { axis, vs in vs.map { AxisValue(axis: axis, value: $0) } }
        let own = Set(pairs + [AxisValue(axis: AxisPivot.scenarioAxis, value: c.scenario)])
        return scenario == nil ? Set(pairs) == values : own == values
    }
}

extension ReportWriter {
    /// `isolation.json` in the report folder, when `flowmatrix isolate` wrote one.
    /// - Throws: ``ReportError`` `.output` when it is there and cannot be read.
    static func readIsolation(in folder: URL) throws -> IsolationRecord? {
        do {
            return try IsolationRecord.read(in: folder)
        } catch {
            throw ReportError(code: .output, message: "cannot read \(folder.appendingPathComponent(IsolationRecord.fileName).path): \(error)")
        }
    }
}
