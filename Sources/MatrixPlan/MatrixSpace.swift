/// A matrix compiled to integers: variables (the axes first, then keys that only includes add), value
/// indices, and compiled excludes, includes and constraints. Pure; no I/O.
///
/// A row is an array of value indices, one per variable, `-1` where the key is absent. The original
/// combinations are the mixed-radix numbers over the axes (first axis most significant).
public struct MatrixSpace: Sendable {
    struct Variable: Sendable {
        var name: String
        var values: [String]
        /// How many of `values` are the axis' own values (0 for include-only keys).
        var axisSize: Int
    }

    struct CompiledCondition: Sendable {
        var variable: Int
        /// Indexed by value index.
        var accepts: [Bool]
        var acceptsMissing: Bool

        func holds(_ value: Int32) -> Bool { value < 0 ? acceptsMissing : accepts[Int(value)] }
    }

    struct CompiledConstraint: Sendable {
        var number: Int
        var conditions: [CompiledCondition]
        var consequences: [CompiledCondition]
    }

    struct CompiledInclude: Sendable {
        var number: Int
        /// (axis variable, value) pairs that must equal the original combination's values.
        var axisPart: [(Int, Int32)]
        /// (extra variable, value) pairs written into the combination.
        var extraPart: [(Int, Int32)]
        /// False when some axis value is not one of the axis' own values (then it can only add a combination).
        var canMatch: Bool
    }

    let matrix: MatrixFile
    var variables: [Variable] = []
    /// Number of axes (the first variables).
    public let axisCount: Int
    var excludes: [[(Int, Int32)]] = []
    /// The 1-based file number of each of `excludes` (those naming the registry are applied after planning).
    var excludeNumbers: [Int] = []
    var includes: [CompiledInclude] = []
    var constraints: [CompiledConstraint] = []
    /// Axes that some exclude, include or constraint mentions; the others never affect validity.
    var relevantAxes: [Int] = []
    /// For each extra variable, the includes that write it (in order).
    var writers: [Int: [Int]] = [:]

    /// Compiles a parsed matrix.
    public init(_ matrix: MatrixFile) {
        self.matrix = matrix
        axisCount = matrix.axes.count
        for axis in matrix.axes {
            variables.append(Variable(name: axis.name, values: axis.values, axisSize: axis.values.count))
        }
        func variable(_ name: String) -> Int {
            if let i = variables.firstIndex(where: { $0.name == name }) { return i }
            variables.append(Variable(name: name, values: [], axisSize: 0))
            return variables.count - 1
        }
        func valueIndex(_ v: Int, _ value: String) -> Int32 {
            if let i = variables[v].values.firstIndex(of: value) { return Int32(i) }
            variables[v].values.append(value)
            return Int32(variables[v].values.count - 1)
        }
        // Excludes and constraints naming the registry choose registries per configuration (RegistryRules.swift).
        for (n, entry) in matrix.exclude.enumerated() where !RegistryRules.names(entry) {
            excludeNumbers.append(n + 1)
            excludes.append(entry.keys.sorted().map { key in
                let v = variable(key)
                return (v, valueIndex(v, entry[key] ?? ""))
            })
        }
        for (n, entry) in matrix.include.enumerated() {
            var include = CompiledInclude(number: n + 1, axisPart: [], extraPart: [], canMatch: true)
            for key in entry.keys.sorted() {
                let v = variable(key)
                let value = valueIndex(v, entry[key] ?? "")
                if v < axisCount {
                    include.axisPart.append((v, value))
                    if Int(value) >= variables[v].axisSize { include.canMatch = false }
                } else {
                    include.extraPart.append((v, value))
                    writers[v, default: []].append(n)
                }
            }
            includes.append(include)
        }
        var compiledConstraints: [(Int, [(Int, Condition)], [(Int, Condition)])] = []
        for c in matrix.constraints where !RegistryRules.names(c) {
            let conds = c.conditions.map { (variable($0.axis), $0) }
            let cons = c.consequences.map { (variable($0.axis), $0) }
            for (v, cond) in conds + cons { for value in cond.values { _ = valueIndex(v, value) } }
            compiledConstraints.append((c.number, conds, cons))
        }
        // Compile conditions only once every value is known (tables sized to the final value lists).
        for (number, conds, cons) in compiledConstraints {
            func compile(_ pair: (Int, Condition)) -> CompiledCondition {
                let (v, cond) = pair
                let accepts = variables[v].values.map { cond.holds(for: $0) }
                return CompiledCondition(variable: v, accepts: accepts, acceptsMissing: cond.holds(for: nil))
            }
            constraints.append(CompiledConstraint(number: number, conditions: conds.map(compile), consequences: cons.map(compile)))
        }
        var relevant = Set<Int>()
        for e in excludes { for (v, _) in e { relevant.insert(v) } }
        for inc in includes where !inc.extraPart.isEmpty { for (v, _) in inc.axisPart { relevant.insert(v) } }
        for c in constraints { for cond in c.conditions + c.consequences where cond.variable < axisCount { relevant.insert(cond.variable) } }
        relevantAxes = relevant.sorted()
    }

    /// Number of values of each axis.
    public var levels: [Int] { (0..<axisCount).map { variables[$0].axisSize } }

    /// True when no exclude or constraint restricts the axes.
    var isUnconstrained: Bool { excludes.isEmpty && constraints.isEmpty }

    // MARK: - Rows and configurations

    /// A partial axis assignment (`-1` where unassigned) from axis name → value; unknown keys are ignored.
    public func partial(_ values: [String: String]) -> [Int32] {
        var row = [Int32](repeating: -1, count: axisCount)
        for a in 0..<axisCount {
            if let value = values[variables[a].name], let i = variables[a].values.firstIndex(of: value) { row[a] = Int32(i) }
        }
        return row
    }

    /// An empty table of this space's full rows (its variables and their values), to add configurations to.
    func tableBuilder() -> ConfigurationTable.Builder {
        ConfigurationTable.Builder(names: variables.map(\.name), values: variables.map(\.values))
    }

    /// Applies the includes to an original combination: the full row and the numbers of includes that extended it.
    func extend(_ axisRow: [Int32]) -> (row: [Int32], includes: [Int]) {
        var row = axisRow + [Int32](repeating: -1, count: variables.count - axisCount)
        var applied: [Int] = []
        for inc in includes where inc.canMatch && inc.axisPart.allSatisfy({ axisRow[$0.0] == $0.1 }) {
            for (v, value) in inc.extraPart { row[v] = value }
            if !inc.extraPart.isEmpty { applied.append(inc.number) }
        }
        return (row, applied)
    }

    /// The combinations includes add because they extend no original (post-exclude) combination, with the
    /// include's number. They carry only the keys they name.
    func addedCombinations() -> [(row: [Int32], include: Int)] {
        var out: [(row: [Int32], include: Int)] = []
        for inc in includes {
            var partialRow = [Int32](repeating: -1, count: axisCount)
            for (v, value) in inc.axisPart { partialRow[v] = value }
            if inc.canMatch && canComplete(partialRow, useConstraints: false) { continue }
            var row = [Int32](repeating: -1, count: variables.count)
            for (v, value) in inc.axisPart + inc.extraPart { row[v] = value }
            if !out.contains(where: { $0.row == row }) { out.append((row, inc.number)) }
        }
        return out
    }

    /// The number of the first exclude matching the full row, or nil.
    func matchingExclude(_ row: [Int32]) -> Int? {
        excludes.firstIndex(where: { e in e.allSatisfy { row[$0.0] == $0.1 } }).map { excludeNumbers[$0] }
    }

    /// The number of the first constraint the full row violates, or nil.
    func violatedConstraint(_ row: [Int32]) -> Int? {
        for c in constraints where c.conditions.allSatisfy({ $0.holds(row[$0.variable]) }) {
            if !c.consequences.allSatisfy({ $0.holds(row[$0.variable]) }) { return c.number }
        }
        return nil
    }

    // MARK: - Partial assignments

    private static let unknown: Int32 = -2

    /// The value of variable `v` under a partial axis assignment: `-1` absent, `-2` not yet determined.
    private func value(of v: Int, in partial: [Int32]) -> Int32 {
        if v < axisCount { return partial[v] < 0 ? Self.unknown : partial[v] }
        for n in (writers[v] ?? []).reversed() {
            let inc = includes[n]
            guard inc.canMatch else { continue }
            var matches = true
            var undetermined = false
            for (a, value) in inc.axisPart {
                if partial[a] < 0 { undetermined = true } else if partial[a] != value { matches = false; break }
            }
            if !matches { continue }
            if undetermined { return Self.unknown }
            return inc.extraPart.first(where: { $0.0 == v })?.1 ?? -1
        }
        return -1
    }

    private enum Status { case satisfied, violated, open }

    private func status(of c: CompiledConstraint, _ partial: [Int32]) -> Status {
        var open = false
        for cond in c.conditions {
            let v = value(of: cond.variable, in: partial)
            if v == Self.unknown { open = true; continue }
            if !cond.holds(v) { return .satisfied }
        }
        var consequenceOpen = false
        for cond in c.consequences {
            let v = value(of: cond.variable, in: partial)
            if v == Self.unknown { consequenceOpen = true; continue }
            if !cond.holds(v) { return open ? .open : .violated }
        }
        return open || consequenceOpen ? .open : .satisfied
    }

    private func excluded(_ e: [(Int, Int32)], _ partial: [Int32]) -> Status {
        var open = false
        for (v, value) in e {
            if partial[v] < 0 { open = true } else if partial[v] != value { return .satisfied }
        }
        return open ? .open : .violated
    }

    /// True when some full, valid original combination extends the partial axis assignment.
    /// - Parameter useConstraints: false to consider excludes only (include matching uses that).
    public func canComplete(_ partial: [Int32], useConstraints: Bool = true) -> Bool {
        if excludes.isEmpty && (!useConstraints || constraints.isEmpty) { return true }
        var row = partial
        return search(&row, useConstraints: useConstraints)
    }

    private func search(_ row: inout [Int32], useConstraints: Bool) -> Bool {
        for e in excludes where excluded(e, row) == .violated { return false }
        if useConstraints { for c in constraints where status(of: c, row) == .violated { return false } }
        guard let next = relevantAxes.first(where: { row[$0] < 0 }) else { return true }
        for value in 0..<variables[next].axisSize {
            row[next] = Int32(value)
            if search(&row, useConstraints: useConstraints) { row[next] = -1; return true }
        }
        row[next] = -1
        return false
    }

    /// Nil when some valid configuration extends the partial assignment, else the reason it cannot.
    public func whyImpossible(_ partial: [Int32]) -> String? {
        for (i, e) in excludes.enumerated() where excluded(e, partial) == .violated {
            let text = e.map { "\(variables[$0.0].name)=\(variables[$0.0].values[Int($0.1)])" }.joined(separator: ",")
            return "excluded by exclude #\(excludeNumbers[i]) {\(text)}"
        }
        for c in constraints where status(of: c, partial) == .violated {
            let text = matrix.constraints.first(where: { $0.number == c.number })?.description ?? ""
            return "excluded by constraint #\(c.number) (\(text))"
        }
        if !canComplete(partial) {
            return "no valid configuration contains it: every completion is removed by an exclude or a constraint"
        }
        return nil
    }

    /// True when at least one configuration survives excludes and constraints (an original or an include's).
    public func hasAnyConfiguration() -> Bool {
        if axisCount > 0 && levels.allSatisfy({ $0 > 0 }) && canComplete([Int32](repeating: -1, count: axisCount)) { return true }
        return addedCombinations().contains { violatedConstraint($0.row) == nil }
    }
}
