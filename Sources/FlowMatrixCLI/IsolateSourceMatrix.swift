import Isolation
import MatrixPlan

extension IsolateCommand {
    /// Why `matrix` no longer describes the run whose jobs are `source`, or nil when it still does: every key of the
    /// run's configurations is one of the matrix's axes or a key its includes add, with a value the matrix still
    /// gives it. Follow-ups are made from the matrix as it is now: with an axis renamed or a value removed since the
    /// run, they held both the old and the new axis, broke the matrix's constraints, and confirmed combinations the
    /// run's own evidence did not support. (A changed exclude or constraint is not detected.)
    static func mismatch(_ matrix: MatrixFile, source: [Observation]) -> String? {
        var values: [String: Set<String>] = [:]
        for axis in matrix.axes { values[axis.name, default: []].formUnion(axis.values) }
        for entry in matrix.include { for (key, value) in entry { values[key, default: []].insert(value) } }
        var seen = Set<[String: String]>()
        for o in source where seen.insert(o.configuration).inserted {
            for (key, value) in o.configuration.sorted(by: { $0.key < $1.key }) {
                guard let allowed = values[key] else {
                    return "the run's jobs have the axis '\(key)', which the matrix no longer has"
                }
                if !allowed.contains(value) {
                    return "the run's jobs have \(key)=\(value), which the matrix no longer has"
                }
            }
        }
        return nil
    }
}
