import FlowSpec
import FlowVocabulary
import Foundation

/// Builds a `MatrixFile` from parsed JSON, collecting every finding in one pass.
struct MatrixParser {
    /// `policy.repeat`, read by `parsePolicy`.
    var repetitions = 1
    let file: String
    let directory: URL?
    var findings: [ValidationFinding] = []

    static let topMembers: Set<String> = ["name", "description", "corpus", "tags", "registry", "labels", "policy",
                                          "axes", "include", "exclude", "constraints", "reduction", "command"]

    init(file: String, directory: URL?) {
        self.file = file
        self.directory = directory
    }

    mutating func add(_ rule: MatrixRule, _ path: String, _ position: SourcePosition?, _ message: String) {
        findings.append(ValidationFinding(file: file, code: rule.code, path: path, position: position, message: message))
    }

    mutating func checkMembers(_ node: JSONNode, path: String, allowed: Set<String>) {
        for member in node.members ?? [] where !allowed.contains(member.key) {
            let hint = allowed.min(by: { editDistance($0, member.key) < editDistance($1, member.key) })
                .flatMap { editDistance($0, member.key) <= 2 ? " (did you mean '\($0)'?)" : nil } ?? ""
            add(.unknownMember, "\(path).\(member.key)", member.keyPosition,
                "'\(member.key)' is not a member here\(hint); allowed: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    mutating func string(_ node: JSONNode?, _ path: String, required: Bool, parent: JSONNode) -> String? {
        guard let node else {
            if required { add(.missingMember, path, parent.position, "the matrix needs '\(path.split(separator: ".").last ?? "")'") }
            return nil
        }
        guard let s = node.string else {
            add(.wrongType, path, node.position, "expected a string, found \(node.kindName)")
            return nil
        }
        return s
    }

    mutating func stringList(_ node: JSONNode?, _ path: String) -> [String] {
        guard let node else { return [] }
        if let s = node.string { return [s] }
        guard let items = node.array else {
            add(.wrongType, path, node.position, "expected a string or an array of strings, found \(node.kindName)")
            return []
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            if let s = item.string { out.append(s) } else {
                add(.wrongType, "\(path)[\(i)]", item.position, "expected a string, found \(item.kindName)")
            }
        }
        return out
    }

    // MARK: - Top level

    mutating func parse(_ root: JSONNode) -> MatrixFile? {
        guard root.members != nil else {
            add(.wrongType, "$", root.position, "a matrix file is a JSON object, found \(root.kindName)")
            return nil
        }
        for duplicate in root.duplicateMembers(path: "$") {
            add(.duplicateMember, duplicate.path, duplicate.position,
                "member '\(duplicate.key)' appears more than once in this object; keep one (JSON does not say which wins)")
        }
        checkMembers(root, path: "$", allowed: Self.topMembers)
        let name = string(root["name"], "$.name", required: true, parent: root)
        let description = string(root["description"], "$.description", required: false, parent: root)
        // A matrix names a scenario corpus, a command (docs/COMMAND-JOBS.md), or both.
        let command = root["command"].flatMap { parseCommand($0) }
        let hasCommand = root["command"] != nil
        if root["corpus"] == nil && !hasCommand {
            add(.missingMember, "$.corpus", root.position, "the matrix needs 'corpus': a scenario folder (or list), relative to the matrix file, or a 'command'")
        }
        let corpus = stringList(root["corpus"], "$.corpus")
        let corpusPositions: [SourcePosition] = root["corpus"].map { node in node.array?.map(\.position) ?? [node.position] } ?? []
        if root["corpus"] != nil && corpus.isEmpty && findings.allSatisfy({ $0.path != "$.corpus" }) {
            add(.missingCorpus, "$.corpus", root["corpus"]?.position, "the corpus names no folder; list at least one scenario folder")
        }
        var (includeTags, excludeTags) = ([String](), [String]())
        if let tags = root["tags"] {
            if tags.members == nil {
                add(.wrongType, "$.tags", tags.position, "expected an object {\"include\": [...], \"exclude\": [...]}, found \(tags.kindName)")
            } else {
                checkMembers(tags, path: "$.tags", allowed: ["include", "exclude"])
                includeTags = stringList(tags["include"], "$.tags.include")
                excludeTags = stringList(tags["exclude"], "$.tags.exclude")
            }
        }
        let registry = string(root["registry"], "$.registry", required: root["corpus"] != nil || !hasCommand, parent: root)
            ?? (hasCommand && root["corpus"] == nil ? CommandTemplate.registry : nil)
        if let registry, registry.trimmingSpaces.isEmpty {
            add(.badRegistry, "$.registry", root["registry"]?.position, "the registry name is empty; name the worker kind (e.g. catalog)")
        }
        var labels: [String: String] = [:]
        if let node = root["labels"] {
            if let members = node.members {
                for m in members {
                    guard let v = m.value.scalarText, m.value.string != nil else {
                        add(.wrongType, "$.labels.\(m.key)", m.value.position, "a label value is a string, found \(m.value.kindName)")
                        continue
                    }
                    if m.key.isEmpty || v.isEmpty { add(.badRegistry, "$.labels.\(m.key)", m.keyPosition, "label names and values must not be empty") }
                    labels[m.key] = v
                }
            } else {
                add(.wrongType, "$.labels", node.position, "expected an object of worker labels, found \(node.kindName)")
            }
        }
        var policy = (retries: 0, timeout: Duration.seconds(300), failFast: false, keep: KeepPolicy.failures, seed: UInt64(0))
        if let node = root["policy"] { parsePolicy(node, into: &policy) }

        let axes = parseAxes(root["axes"], parent: root)
        var extraKeys: [String: [String]] = [:]
        let include = parseEntries(root["include"], "$.include", axes: axes, isInclude: true, extraKeys: &extraKeys)
        let exclude = parseEntries(root["exclude"], "$.exclude", axes: axes, isInclude: false, extraKeys: &extraKeys)
        let constraints = parseConstraints(root["constraints"], axes: axes, extraKeys: extraKeys)
        let (reduction, seedRows) = parseReduction(root["reduction"], axes: axes)
        if let command { checkPlaceholders(command, axes: axes, extraKeys: extraKeys, root: root) }

        guard let name, let registry, findings.isEmpty else { return nil }
        let urls = corpus.map { entry in
            entry.hasPrefix("/") ? URL(fileURLWithPath: entry)
                : (directory ?? URL(fileURLWithPath: ".")).appendingPathComponent(entry).standardizedFileURL
        }
        var matrix = MatrixFile(
            file: file, name: name, description: description, corpus: corpus, corpusURLs: urls, includeTags: includeTags,
            excludeTags: excludeTags, registry: registry, requiredLabels: labels, retries: policy.retries,
            jobTimeout: policy.timeout, failFast: policy.failFast, keep: policy.keep, seed: policy.seed, axes: axes,
            include: include, exclude: exclude, constraints: constraints, reduction: reduction, seedRows: seedRows)
        matrix.corpusPositions = corpusPositions
        matrix.command = command
        matrix.commandPosition = root["command"]?.position
        matrix.repetitions = repetitions
        matrix.axesPosition = root["axes"]?.position
        matrix.reductionPosition = root["reduction"]?.position
        checkSemantics(matrix, root: root)
        return findings.isEmpty ? matrix : nil
    }

    mutating func parsePolicy(_ node: JSONNode, into policy: inout (retries: Int, timeout: Duration, failFast: Bool, keep: KeepPolicy, seed: UInt64)) {
        guard node.members != nil else {
            add(.wrongType, "$.policy", node.position, "expected an object, found \(node.kindName)")
            return
        }
        checkMembers(node, path: "$.policy", allowed: ["retries", "timeout", "failFast", "keep", "seed", "repeat"])
        if let r = node["repeat"] {
            if let n = r.number {
                if n == n.rounded(), (1...1000).contains(n) { repetitions = Int(n) } else {
                    add(.badPolicy, "$.policy.repeat", r.position, "repeat must be a whole number from 1 to 1000, not \(r.scalarText ?? "")")
                }
            } else { add(.wrongType, "$.policy.repeat", r.position, "expected a number, found \(r.kindName)") }
        }
        if let r = node["retries"] {
            if let n = r.number {
                if n == n.rounded(), (0...10).contains(n) { policy.retries = Int(n) } else {
                    add(.badPolicy, "$.policy.retries", r.position, "retries must be a whole number from 0 to 10, not \(r.scalarText ?? "")")
                }
            } else { add(.wrongType, "$.policy.retries", r.position, "expected a number, found \(r.kindName)") }
        }
        if let t = node["timeout"] {
            if let n = t.number {
                if n > 0, n <= 86_400 { policy.timeout = .nanoseconds(Int64((n * 1e9).rounded())) } else {
                    add(.badPolicy, "$.policy.timeout", t.position, "the per-job timeout is in seconds, above 0 and at most 86400, not \(t.scalarText ?? "")")
                }
            } else { add(.wrongType, "$.policy.timeout", t.position, "expected a number of seconds, found \(t.kindName)") }
        }
        if let f = node["failFast"] {
            if let b = f.bool { policy.failFast = b } else {
                add(.wrongType, "$.policy.failFast", f.position, "expected true or false, found \(f.kindName)")
            }
        }
        if let k = node["keep"] {
            if let s = k.string {
                if let keep = KeepPolicy(rawValue: s) { policy.keep = keep } else {
                    add(.badPolicy, "$.policy.keep", k.position, "keep is failures, all or none, not '\(s)'")
                }
            } else { add(.wrongType, "$.policy.keep", k.position, "expected a string, found \(k.kindName)") }
        }
        if let s = node["seed"] {
            if case .number(_, let text) = s.value {
                if let seed = UInt64(text) { policy.seed = seed } else {
                    add(.badPolicy, "$.policy.seed", s.position, "the seed is a whole number from 0 to 18446744073709551615, not \(text)")
                }
            } else { add(.wrongType, "$.policy.seed", s.position, "expected a number, found \(s.kindName)") }
        }
    }

    // MARK: - Values

    /// The canonical value of `node` for key `key` (typed when the key is a built-in axis), or nil with a finding.
    mutating func value(_ node: JSONNode, key: String, path: String) -> String? {
        if let kind = BuiltInAxis(rawValue: key) {
            if kind == .network, node.members != nil { return customNetwork(node, path: path) }
            guard let text = node.string else {
                add(.wrongType, path, node.position, "a \(key) value is a string\(kind == .network ? " or a custom network object" : ""), found \(node.kindName)")
                return nil
            }
            switch kind.normalize(text) {
            case .success(let v): return v
            case .failure(let problem):
                let rule: MatrixRule = kind == .locale ? .badLocale : kind == .window ? .badWindow : .unknownAxisValue
                add(rule, path, node.position, problem.message)
                return nil
            }
        }
        if node.members != nil || node.array != nil || node.isNull {
            add(.wrongType, path, node.position, "a value of custom axis '\(key)' is a string, found \(node.kindName)")
            return nil
        }
        return node.scalarText
    }

    mutating func customNetwork(_ node: JSONNode, path: String) -> String? {
        checkMembers(node, path: path, allowed: ["latency", "jitter", "bytesPerSecond", "failureRate", "failure"])
        func number(_ key: String) -> Double? { node[key]?.number }
        var missing: [String] = []
        for key in ["latency", "jitter", "bytesPerSecond", "failureRate"] where node[key] == nil { missing.append(key) }
        if !missing.isEmpty {
            add(.badNetwork, path, node.position, "a custom network needs \(missing.joined(separator: ", ")) (latency and jitter in ms, bytesPerSecond, failureRate 0…1)")
            return nil
        }
        var ok = true
        for key in ["latency", "jitter", "bytesPerSecond", "failureRate"] {
            guard let n = number(key), n.isFinite else {
                add(.wrongType, "\(path).\(key)", node[key]?.position, "\(key) is a number, found \(node[key]?.kindName ?? "nothing")")
                ok = false
                continue
            }
            if key != "failureRate", n != n.rounded() || abs(n) > 1e13 {
                add(.badNetwork, "\(path).\(key)", node[key]?.position, "\(key) must be a whole number")
                ok = false
            }
        }
        var failure: String?
        if let f = node["failure"] {
            if let s = f.string { failure = s } else {
                add(.wrongType, "\(path).failure", f.position, "failure is a string such as timeout or reset, found \(f.kindName)")
                ok = false
            }
        }
        guard ok, let latency = number("latency"), let jitter = number("jitter"), let rate = number("bytesPerSecond"),
              let failureRate = number("failureRate") else { return nil }
        let network = CustomNetwork(latencyMilliseconds: Int(latency), jitterMilliseconds: Int(jitter),
                                    bytesPerSecond: Int(rate), failureRate: failureRate, failure: failure)
        if let problem = network.problem {
            add(.badNetwork, path, node.position, "custom network: \(problem)")
            return nil
        }
        return network.description
    }

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
                }
                guard let v = value(m.value, key: m.key, path: mPath) else { continue }
                if !isInclude, let axis, !axis.values.contains(v) {
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

/// Levenshtein distance (small strings only).
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
