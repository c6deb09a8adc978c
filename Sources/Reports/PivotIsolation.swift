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
            if !matches.isEmpty {
                pivot.explanations[i].confirmedBy = matches.reduce(0) { $0 + $1.followUps }
                if scenario == nil { pivot.explanations[i].confirmedIn = Array(Set(matches.map(\.scenario))).sorted() }
            }
        }
    }

    /// `, confirmed by 6 follow-up jobs`; for a pattern that names no scenario, where: `, confirmed in cart-summary and
    /// cart-total by 2 follow-up jobs` (`in 26 scenarios` beyond three).
    static func note(_ e: AxisPivot.Explanation) -> String? {
        guard let n = e.confirmedBy else { return nil }
        guard let scenarios = e.confirmedIn, !scenarios.isEmpty, n > 0 else { return IsolationRecord.evidence(followUps: n) }
        let names = scenarios.count > 3 ? "\(scenarios.count) scenarios"
            : scenarios.count == 1 ? scenarios[0]
            : scenarios.dropLast().joined(separator: ", ") + " and " + scenarios[scenarios.count - 1]
        return "confirmed in \(names) by \(n) follow-up job\(n == 1 ? "" : "s")"
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

    /// Whether a pattern lies within a confirmation (with its scenario, or without one when the pattern names no
    /// scenario): the same axes, each of the pattern's values among the confirmation's for that axis. A confirmation
    /// with a set of values (`window ∈ {narrow-landscape, narrow-portrait}`) marks the pattern of that set and of each
    /// of its values.
    static func matches(_ c: IsolationRecord.Confirmed, _ values: Set<AxisValue>, scenario: String?) -> Bool {
        if let scenario, scenario != c.scenario { return false }
        let own = values.filter { $0.axis != AxisPivot.scenarioAxis }
        guard values.count - own.count == (scenario == nil ? 0 : 1) else { return false }
        let axes = Set(own.map(\.axis))
        return axes == Set(c.combination.keys) && own.allSatisfy { c.combination[$0.axis]?.contains($0.value) == true }
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
