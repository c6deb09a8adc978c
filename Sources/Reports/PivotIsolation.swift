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
            let matches = record.confirmed.filter { c in
                guard c.test == nil else { return false }
                let pairs = c.combination.flatMap { axis, vs in vs.map { AxisValue(axis: axis, value: $0) } }
                let own = Set(pairs + [AxisValue(axis: scenarioAxis, value: c.scenario)])
                return scenario == nil ? Set(pairs) == values : own == values
            }
            if !matches.isEmpty { pivot.explanations[i].confirmedBy = matches.reduce(0) { $0 + $1.followUps } }
        }
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
