import FlowSpec

/// Constraints, t-wise reduction with its seed rows, and the checks that need the whole matrix.
extension MatrixParser {
    // MARK: - Constraints

    mutating func parseConstraints(_ node: JSONNode?, axes: [Axis], extraKeys: [String: [String]]) -> [Constraint] {
        guard let node else { return [] }
        guard let items = node.array else {
            add(.wrongType, "$.constraints", node.position, "expected an array of {\"if\": {...}, \"then\": {...}}, found \(node.kindName)")
            return []
        }
        var out: [Constraint] = []
        for (i, item) in items.enumerated() {
            let path = "$.constraints[\(i)]"
            guard item.members != nil else {
                add(.wrongType, path, item.position, "a constraint is an object {\"if\": {...}, \"then\": {...}}, found \(item.kindName)")
                continue
            }
            checkMembers(item, path: path, allowed: ["if", "then", "note"])
            let conditions = parseConditions(item["if"], "\(path).if", parent: item, axes: axes, extraKeys: extraKeys)
            let consequences = parseConditions(item["then"], "\(path).then", parent: item, axes: axes, extraKeys: extraKeys)
            if let conditions, let consequences {
                out.append(Constraint(number: i + 1, conditions: conditions, consequences: consequences))
            }
        }
        return out
    }

    mutating func parseConditions(_ node: JSONNode?, _ path: String, parent: JSONNode, axes: [Axis],
                                  extraKeys: [String: [String]]) -> [Condition]? {
        guard let node else {
            add(.badConstraint, path, parent.position, "a constraint needs '\(path.split(separator: ".").last ?? "")': an object of axis → value or condition")
            return nil
        }
        guard let members = node.members else {
            add(.wrongType, path, node.position, "expected an object of axis → value or {\"in\": [...]}, found \(node.kindName)")
            return nil
        }
        if members.isEmpty {
            add(.badConstraint, path, node.position, "'\(path.split(separator: ".").last ?? "")' is empty; name at least one axis")
            return nil
        }
        var out: [Condition] = []
        var ok = true
        for m in members {
            let mPath = "\(path).\(m.key)"
            let known: [String]
            if let axis = axes.first(where: { $0.name == m.key }) {
                known = axis.values + (extraKeys[m.key] ?? [])
            } else if let extra = extraKeys[m.key] {
                known = extra
            } else {
                add(.unknownAxis, mPath, m.keyPosition, "constraint names '\(m.key)', which is neither an axis nor an include key; axes: \(axes.map(\.name).joined(separator: ", "))")
                ok = false
                continue
            }
            var op = Condition.Operator.equals
            var valueNodes: [(JSONNode, String)] = []
            if let opMembers = m.value.members {
                guard opMembers.count == 1, let first = opMembers.first, let parsed = Condition.Operator(rawValue: first.key) else {
                    add(.badConstraint, mPath, m.value.position, "a condition object has exactly one operator: equals, notEquals, in or notIn")
                    ok = false
                    continue
                }
                op = parsed
                if op == .in || op == .notIn {
                    guard let list = first.value.array, !list.isEmpty else {
                        add(.badConstraint, "\(mPath).\(first.key)", first.value.position, "'\(first.key)' takes a non-empty array of values")
                        ok = false
                        continue
                    }
                    valueNodes = list.enumerated().map { ($0.element, "\(mPath).\(first.key)[\($0.offset)]") }
                } else {
                    valueNodes = [(first.value, "\(mPath).\(first.key)")]
                }
            } else if let list = m.value.array {
                op = .in
                valueNodes = list.enumerated().map { ($0.element, "\(mPath)[\($0.offset)]") }
            } else {
                valueNodes = [(m.value, mPath)]
            }
            var values: [String] = []
            for (vNode, vPath) in valueNodes {
                guard let v = value(vNode, key: m.key, path: vPath) else { ok = false; continue }
                if !known.contains(v) {
                    if m.key == MatrixFile.registryKey {
                        unknownRegistry(v, known: known, path: vPath, position: vNode.position)
                        ok = false
                        continue
                    }
                    add(.unknownAxisValue, vPath, vNode.position, "'\(v)' is not a value of '\(m.key)' (\(known.joined(separator: ", "))), so this condition never matches it")
                    ok = false
                    continue
                }
                values.append(v)
            }
            out.append(Condition(axis: m.key, op: op, values: values))
        }
        return ok ? out : nil
    }

    // MARK: - Reduction

    mutating func parseReduction(_ node: JSONNode?, axes: [Axis]) -> (ReductionStrategy, [[String: String]]) {
        guard let node else { return (.full, []) }
        var strategyNode: JSONNode? = node
        var tNode: JSONNode?
        var seedRows: [[String: String]] = []
        if node.members != nil {
            checkMembers(node, path: "$.reduction", allowed: ["strategy", "t", "seedRows"])
            strategyNode = node["strategy"]
            tNode = node["t"]
            if strategyNode == nil { add(.missingMember, "$.reduction.strategy", node.position, "the reduction needs 'strategy': full, pairwise or t-wise") }
            if let rows = node["seedRows"] { seedRows = parseSeedRows(rows, axes: axes) }
        }
        guard let strategyNode else { return (.full, seedRows) }
        guard let name = strategyNode.string else {
            add(.wrongType, "$.reduction", strategyNode.position, "the strategy is a string (full, pairwise, t-wise) or an object, found \(strategyNode.kindName)")
            return (.full, seedRows)
        }
        let strategyPath = node.members != nil ? "$.reduction.strategy" : "$.reduction"
        var strategy: ReductionStrategy
        switch name {
        case "full", "cartesian": strategy = .full
        case "pairwise", "2-wise": strategy = .tWise(2)
        case "t-wise":
            guard let tNode else {
                add(.missingMember, "$.reduction.t", node.position, "t-wise needs 't' (3 up to the number of axes)")
                return (.full, seedRows)
            }
            guard let t = tNode.number, t == t.rounded(), abs(t) < 1000 else {
                add(.wrongType, "$.reduction.t", tNode.position, "t is a whole number, found \(tNode.scalarText ?? tNode.kindName)")
                return (.full, seedRows)
            }
            strategy = .tWise(Int(t))
        default:
            if name.hasSuffix("-wise"), let t = Int(name.dropLast(5)) {
                strategy = .tWise(t)
            } else {
                add(.unknownStrategy, strategyPath, strategyNode.position, "unknown strategy '\(name)'; use full, pairwise or t-wise (with t)")
                return (.full, seedRows)
            }
        }
        if let t = strategy.strength, t < 2 || t > axes.count {
            add(.badStrength, tNode != nil ? "$.reduction.t" : strategyPath, (tNode ?? strategyNode).position,
                "t = \(t) is out of range: it must be at least 2 and at most the number of axes (\(axes.count))")
        }
        if strategy == .full, tNode != nil {
            add(.badStrength, "$.reduction.t", tNode?.position, "'t' only applies to the t-wise strategy")
        }
        return (strategy, seedRows)
    }

    mutating func parseSeedRows(_ node: JSONNode, axes: [Axis]) -> [[String: String]] {
        guard let items = node.array else {
            add(.wrongType, "$.reduction.seedRows", node.position, "expected an array of objects, found \(node.kindName)")
            return []
        }
        var rows: [[String: String]] = []
        for (i, item) in items.enumerated() {
            let path = "$.reduction.seedRows[\(i)]"
            guard let members = item.members else {
                add(.wrongType, path, item.position, "a seed row is an object of axis → value, found \(item.kindName)")
                continue
            }
            var row: [String: String] = [:]
            for m in members {
                let mPath = "\(path).\(m.key)"
                guard let axis = axes.first(where: { $0.name == m.key }) else {
                    add(.unknownAxis, mPath, m.keyPosition, "seed row names '\(m.key)', which is not an axis")
                    continue
                }
                guard let v = value(m.value, key: m.key, path: mPath) else { continue }
                guard axis.values.contains(v) else {
                    add(.unknownAxisValue, mPath, m.value.position, "seed row value '\(v)' is not a value of axis '\(axis.name)' (\(axis.values.joined(separator: ", ")))")
                    continue
                }
                row[m.key] = v
            }
            rows.append(row)
        }
        return rows
    }

    // MARK: - Semantics

    mutating func checkSemantics(_ matrix: MatrixFile, root: JSONNode) {
        let space = MatrixSpace(matrix)
        if !space.hasAnyConfiguration() {
            let position = root["constraints"]?.position ?? root["exclude"]?.position ?? root.position
            add(.nothingLeft, root["constraints"] != nil ? "$.constraints" : "$.exclude", position,
                "excludes and constraints together leave no configuration at all; relax a constraint or an exclude")
        }
        if let t = matrix.reduction.strength {
            let levels = space.levels
            let smallest = levels.sorted().prefix(t).reduce(1.0) { $0 * Double($1) }
            let tuples = Double(binomial(levels.count, t)) * smallest
            let limit = CoveringArray.Settings().maximumTuples
            if tuples > Double(limit) {
                add(.badStrength, "$.reduction", root["reduction"]?.position,
                    "t = \(t) over \(levels.count) axes means at least \(Int(min(tuples, 1e15))) tuples to cover (more than \(limit)); lower t")
            }
        }
        let seedRowNodes = root["reduction"]?["seedRows"]?.array ?? []
        for (i, row) in matrix.seedRows.enumerated() {
            let partial = space.partial(row)
            if let reason = space.whyImpossible(partial) {
                add(.seedRowViolates, "$.reduction.seedRows[\(i)]", seedRowNodes.indices.contains(i) ? seedRowNodes[i].position : nil,
                    "seed row \(Configuration(row).canonicalString) can never run: \(reason)")
            }
        }
    }
}
