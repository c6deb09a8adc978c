import Isolation

/// The pivot's sentence (``AxisPivot/headline``).
enum PivotHeadline {
    /// One sentence for a person: which axis values the failures follow. A pattern that is exactly its failing jobs
    /// says so ("exactly"); a partial one gives both rates (of its jobs, how many fail; of the failures, how many it
    /// holds). Patterns the run cannot tell apart are named ("can't tell locale=ar from window=narrow here"), and
    /// patterns `flowmatrix isolate` confirmed say by how many follow-up jobs.
    static func sentence(_ pivot: AxisPivot) -> String {
        let (totalJobs, totalFailures, explanations, unexplained) =
            (pivot.totalJobs, pivot.totalFailures, pivot.explanations, pivot.unexplained)
        guard totalFailures > 0 else {
            return totalJobs == 0 ? "No job reached a verdict." : "No failures in \(totalJobs) jobs."
        }
        let failures = "\(totalFailures) failure\(totalFailures == 1 ? "" : "s")"
        let registries = pivot.axes.contains { $0.axis == AxisPivot.registryAxis }
        func notes(_ e: AxisPivot.Explanation) -> String {
            Self.notes(e) + (registries ? Self.renderers(e) : "")
        }
        if explanations.count == 1, let only = explanations.first, only.exact, unexplained == 0 {
            return "Fails exactly with \(only.group.label): all \(failures), and every such job fails"
                + notes(only) + "."
        }
        guard !explanations.isEmpty else {
            return totalFailures == 1
                ? "1 failure in \(totalJobs) jobs." : "\(failures) with no axis value in common beyond single jobs."
        }
        let patterns = explanations.map { e in
            let g = e.group
            let jobs = "\(g.failures) of \(g.jobs) job\(g.jobs == 1 ? "" : "s") fail"
            return e.exact ? "exactly \(g.label) (\(jobs))\(notes(e))"
                : "\(g.label) (\(jobs); \(e.explains) of \(totalFailures) failures)\(notes(e))"
        }
        let rest = unexplained == 0 ? "" : "; \(unexplained) other failure\(unexplained == 1 ? "" : "s")"
        return "\(failures) follow " + patterns.joined(separator: "; ") + rest + "."
    }

    /// `, confirmed by 6 follow-up jobs` and `; can't tell locale=ar from window=narrow here`, when they apply.
    static func notes(_ e: AxisPivot.Explanation) -> String {
        var out = ""
        if let note = PivotIsolation.note(e) { out += ", " + note }
        if let tell = cannotTell(e) { out += " (\(tell))" }
        return out
    }

    /// In a run on several registries (renderers), what an exact pattern means: with a registry value, its jobs on
    /// the other registries pass (`: fails only in web, a renderer defect`); without one, it fails on every registry
    /// (`: fails in every registry, a model defect`). Empty for a pattern that is not exact.
    static func renderers(_ e: AxisPivot.Explanation) -> String {
        guard e.exact else { return "" }
        let named = e.group.values.filter { $0.axis == AxisPivot.registryAxis }.map(\.value)
        return named.isEmpty ? ": fails in every registry, a model defect"
            : ": fails only in \(named.joined(separator: ", ")), a renderer defect"
    }

    /// "can't tell locale=ar from window=narrow or device=tablet here": the values in which a pattern and its
    /// alternatives differ; nil without alternatives.
    static func cannotTell(_ e: AxisPivot.Explanation) -> String? {
        guard !e.alternatives.isEmpty else { return nil }
        let own = Set(e.group.values)
        let mine = e.group.values.filter { value in e.alternatives.contains { !$0.values.contains(value) } }
        let others = e.alternatives.map { alt in PivotCovering.label(alt.values.filter { !own.contains($0) }) }
        return "can't tell \(PivotCovering.label(mine)) from \(others.joined(separator: " or ")) here"
    }
}
