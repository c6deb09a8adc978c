extension MatrixSpace {
    /// Why this matrix would not plan `configuration` (before reduction), or nil when it would: what a configuration
    /// of an earlier run of the matrix meets when the matrix has been edited since.
    ///
    /// A configuration with every axis on one of its own values is an original combination: no exclude may match it
    /// (unless an include adds exactly it), the includes must extend it with exactly its other keys, and it must meet
    /// every constraint. Any other configuration must be one an include adds, and meet every constraint. Excludes and
    /// constraints that name the registry are left aside (they choose registries, not configurations).
    public func whyNotPlanned(_ configuration: [String: String]) -> String? {
        var row = [Int32](repeating: -1, count: variables.count)
        for (key, value) in configuration {
            guard let v = variables.firstIndex(where: { $0.name == key }) else { return "no axis or include key '\(key)'" }
            guard let i = variables[v].values.firstIndex(of: value) else { return "no value \(key)=\(value)" }
            row[v] = Int32(i)
        }
        let text = configuration.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " + ")
        let added = addedCombinations().contains { $0.row == row }
        let original = (0..<axisCount).allSatisfy { row[$0] >= 0 && Int(row[$0]) < variables[$0].axisSize }
        if !added {
            guard original else { return "no include adds the configuration \(text) any more" }
            if let n = matchingExclude(row) {
                let entry = matrix.exclude[n - 1].sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return "exclude #\(n) {\(entry.joined(separator: ","))} now removes the configuration \(text)"
            }
            if extend(Array(row[0..<axisCount])).row != row {
                return "the includes no longer give the configuration \(text) (they add other keys to it now)"
            }
        }
        if let n = violatedConstraint(row) {
            let rule = matrix.constraints.first(where: { $0.number == n })?.description ?? ""
            return "constraint #\(n) (\(rule)) now rules out the configuration \(text)"
        }
        return nil
    }

    /// `configuration`'s axis values with the keys the matrix's includes add to them, as planning adds them to an
    /// original combination (``extend(_:)``): what a configuration built axis by axis (an isolation follow-up) holds
    /// when the matrix gives it. Keys that only includes add are derived, not taken from `configuration`.
    public func withIncludes(_ configuration: [String: String]) -> [String: String] {
        var axisRow = [Int32](repeating: -1, count: axisCount)
        var out: [String: String] = [:]
        for a in 0..<axisCount {
            guard let value = configuration[variables[a].name] else { continue }
            out[variables[a].name] = value
            if let i = variables[a].values.firstIndex(of: value) { axisRow[a] = Int32(i) }
        }
        // Keys nothing in the matrix knows are kept as they are.
        for (key, value) in configuration where !variables.contains(where: { $0.name == key }) { out[key] = value }
        let row = extend(axisRow).row
        for v in axisCount..<variables.count where row[v] >= 0 { out[variables[v].name] = variables[v].values[Int(row[v])] }
        return out
    }
}
