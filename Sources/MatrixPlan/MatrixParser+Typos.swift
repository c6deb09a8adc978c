import FlowSpec

/// A custom axis (or include key) whose name is close to a typed axis is a typo until the matrix says otherwise:
/// `lcoale` would silently become a custom axis whose values change nothing (MX031). `customAxes` lists the names
/// meant as custom on purpose; it must name custom axes or include keys of the matrix (MX032).
extension MatrixParser {
    /// Reads `customAxes`: an array of names declared custom on purpose.
    mutating func parseCustomAxes(_ node: JSONNode?) -> [(name: String, position: SourcePosition)] {
        guard let node else { return [] }
        guard let items = node.array else {
            add(.wrongType, "$.customAxes", node.position, "expected an array of axis names, found \(node.kindName)")
            return []
        }
        var names: [(name: String, position: SourcePosition)] = []
        for (i, item) in items.enumerated() {
            guard let name = item.string else {
                add(.wrongType, "$.customAxes[\(i)]", item.position, "expected an axis name (a string), found \(item.kindName)")
                continue
            }
            names.append((name, item.position))
        }
        declaredCustom = Set(names.map(\.name))
        return names
    }

    /// MX031 when `key`, a custom axis or include key, looks like a typed axis and is not declared in `customAxes`.
    mutating func checkTypedAxisSpelling(_ key: String, path: String, position: SourcePosition, what: String) {
        guard BuiltInAxis(rawValue: key) == nil, !declaredCustom.contains(key),
              let typed = Self.nearestTypedAxis(key)
        else { return }
        add(.typedAxisMisspelt, path, position,
            "\(what) '\(key)' is not a typed axis (did you mean '\(typed)'?); as written it is a custom axis whose values "
                + "change nothing a registry applies. Fix the spelling, or list it in \"customAxes\" if it is custom on purpose")
    }

    /// The typed axis name `key` is probably a misspelling of: equal ignoring case, or at most 2 edits away.
    static func nearestTypedAxis(_ key: String) -> String? {
        Spelling.suggestion(for: key, among: BuiltInAxis.allCases.map(\.rawValue), maximumDistance: 2)
    }

    /// MX032 for each `customAxes` entry that is a typed axis, or names no axis or include key of the matrix.
    mutating func checkCustomDeclarations(_ declared: [(name: String, position: SourcePosition)], axes: [Axis],
                                          includeKeys: some Collection<String>) {
        let known = Set(axes.map(\.name)).union(includeKeys)
        for (i, entry) in declared.enumerated() {
            let path = "$.customAxes[\(i)]"
            if BuiltInAxis(rawValue: entry.name) != nil {
                add(.badCustomAxes, path, entry.position,
                    "'\(entry.name)' is a typed axis and cannot be declared custom; remove it from \"customAxes\"")
            } else if !known.contains(entry.name) {
                let hint = Spelling.suggestion(for: entry.name, among: known.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
                add(.badCustomAxes, path, entry.position,
                    "\"customAxes\" names '\(entry.name)', which is neither an axis nor an include key\(hint); remove it")
            }
        }
    }
}
