import FlowSpec

/// Axes and the include/exclude entries that name their values.
extension MatrixParser {
    // MARK: - Axes

    mutating func parseAxes(_ node: JSONNode?, parent: JSONNode) -> [Axis] {
        guard let node else {
            add(.missingMember, "$.axes", parent.position, "the matrix needs 'axes': an object of axis name → list of values")
            return []
        }
        guard let members = node.members else {
            add(.wrongType, "$.axes", node.position, "expected an object of axis name → list of values, found \(node.kindName)")
            return []
        }
        if members.isEmpty { add(.emptyAxis, "$.axes", node.position, "the matrix has no axes; add at least one (e.g. \"locale\": [\"en\"])") }
        var axes: [Axis] = []
        var seen = Set<String>()
        for member in members {
            let path = "$.axes.\(member.key)"
            if !isValidKey(member.key) {
                add(.badAxisName, path, member.keyPosition, "axis name '\(member.key)' must be non-empty without '=', ',', '(', ')' or spaces")
                continue
            }
            guard seen.insert(member.key).inserted else {
                add(.duplicateValue, path, member.keyPosition, "axis '\(member.key)' is declared twice")
                continue
            }
            checkTypedAxisSpelling(member.key, path: path, position: member.keyPosition, what: "axis")
            guard let items = member.value.array else {
                add(.wrongType, path, member.value.position, "axis '\(member.key)' takes an array of values, found \(member.value.kindName)")
                continue
            }
            if items.isEmpty {
                add(.emptyAxis, path, member.value.position, "axis '\(member.key)' has no values; list at least one or remove the axis")
            }
            var values: [String] = []
            for (i, item) in items.enumerated() {
                guard let v = value(item, key: member.key, path: "\(path)[\(i)]") else { continue }
                if values.contains(v) {
                    add(.duplicateValue, "\(path)[\(i)]", item.position, "axis '\(member.key)' lists '\(v)' twice")
                    continue
                }
                values.append(v)
            }
            axes.append(Axis(name: member.key, values: values))
        }
        return axes
    }

    func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && !key.contains(where: { "=,() \t\n".contains($0) })
    }

    // MARK: - Include / exclude

    mutating func parseEntries(_ node: JSONNode?, _ path: String, axes: [Axis], isInclude: Bool,
                               extraKeys: inout [String: [String]]) -> [[String: String]] {
        guard let node else { return [] }
        guard let items = node.array else {
            add(.wrongType, path, node.position, "expected an array of objects, found \(node.kindName)")
            return []
        }
        var out: [[String: String]] = []
        for (i, item) in items.enumerated() {
            let itemPath = "\(path)[\(i)]"
            guard let members = item.members else {
                add(.wrongType, itemPath, item.position, "expected an object of axis → value, found \(item.kindName)")
                continue
            }
            if members.isEmpty { add(.wrongType, itemPath, item.position, "an empty \(isInclude ? "include" : "exclude") entry has no effect; remove it") }
            var entry: [String: String] = [:]
            for m in members {
                let mPath = "\(itemPath).\(m.key)"
                let axis = axes.first(where: { $0.name == m.key })
                if axis == nil {
                    if !isInclude {
                        add(.unknownAxis, mPath, m.keyPosition, "exclude names '\(m.key)', which is not an axis; axes: \(axes.map(\.name).joined(separator: ", "))")
                        continue
                    }
                    if let similar = axes.first(where: { looksMisspelt(m.key, $0.name) }) {
                        add(.suspiciousIncludeKey, mPath, m.keyPosition, "include key '\(m.key)' is not an axis but looks like '\(similar.name)'; fix the spelling (include keys that are not axes add a new key)")
                        continue
                    }
                    if !isValidKey(m.key) {
                        add(.badAxisName, mPath, m.keyPosition, "key '\(m.key)' must be non-empty without '=', ',', '(', ')' or spaces")
                        continue
                    }
                    checkTypedAxisSpelling(m.key, path: mPath, position: m.keyPosition, what: "include key")
                }
                guard let v = value(m.value, key: m.key, path: mPath) else { continue }
                if !isInclude, let axis, !axis.values.contains(v) {
                    if axis.name == MatrixFile.registryKey {
                        unknownRegistry(v, known: axis.values, path: mPath, position: m.value.position)
                        continue
                    }
                    add(.unknownAxisValue, mPath, m.value.position, "exclude value '\(v)' is not a value of axis '\(axis.name)' (\(axis.values.joined(separator: ", "))), so it never matches")
                    continue
                }
                if isInclude { extraKeys[m.key, default: []].append(v) }
                entry[m.key] = v
            }
            out.append(entry)
        }
        return out
    }

    func looksMisspelt(_ key: String, _ axis: String) -> Bool {
        key != axis && (key.lowercased() == axis.lowercased() || (axis.count >= 4 && editDistance(key.lowercased(), axis.lowercased()) <= 2))
    }
}
