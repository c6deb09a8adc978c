import Foundation
import Isolation

extension AxisPivot {
    /// Marks the patterns `flowmatrix isolate` confirmed: a pattern whose values are a confirmed combination's
    /// (with its scenario, or without one when the pattern names no scenario) says by how many follow-up jobs.
    mutating func markConfirmed(_ record: IsolationRecord) {
        for (i, e) in explanations.enumerated() {
            let values = Set(e.group.values)
            let scenario = e.group.values.first { $0.axis == Self.scenarioAxis }?.value
            let match = record.confirmed.first { c in
                let pairs = c.combination.flatMap { axis, vs in vs.map { AxisValue(axis: axis, value: $0) } }
                let own = Set(pairs + [AxisValue(axis: Self.scenarioAxis, value: c.scenario)])
                return scenario == nil ? Set(pairs) == values : own == values
            }
            if let match { explanations[i].confirmedBy = match.followUps }
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
