import FlowSpec
import FlowVocabulary
import Foundation

/// Builds a `MatrixFile` from parsed JSON, collecting every finding in one pass.
struct MatrixParser {
    /// `policy.repeat`, read by `parsePolicy`.
    var repetitions = 1
    /// `policy.audit`, read by `parsePolicy`.
    var audit = AuditPolicy.none
    /// `policy.visual`, read by `parsePolicy` (docs/VISUAL.md).
    var visual: VisualPolicy?
    /// `policy.recording`, read by `parsePolicy` (`RecordingPolicy`).
    var recording = RecordingPolicy.off
    let file: String
    let directory: URL?
    var findings: [ValidationFinding] = []
    /// The names `customAxes` declares custom on purpose (no MX031 for them).
    var declaredCustom = Set<String>()

    static let topMembers: Set<String> = ["name", "description", "corpus", "tags", "registry", "labels", "policy",
                                          "axes", "include", "exclude", "constraints", "reduction", "command",
                                          "customAxes", "web"]

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

    /// The top-level keys: one within two edits of a matrix member is MX033 with "did you mean"; any other unknown
    /// key is MX005.
    mutating func checkTopMembers(_ root: JSONNode) {
        for member in root.members ?? [] where !Self.topMembers.contains(member.key) {
            guard let known = Spelling.suggestion(for: member.key, among: Self.topMembers.sorted()) else {
                add(.unknownMember, "$.\(member.key)", member.keyPosition,
                    "'\(member.key)' is not a member here; allowed: \(Self.topMembers.sorted().joined(separator: ", "))")
                continue
            }
            add(.misspeltTopLevelKey, "$.\(member.key)", member.keyPosition,
                "unknown top-level key '\(member.key)' (did you mean '\(known)'?); a matrix's keys are "
                    + Self.topMembers.sorted().joined(separator: ", "))
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
        checkTopMembers(root)
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
        let (includeTags, excludeTags) = parseTags(root["tags"])
        let registries = parseRegistries(root, required: root["corpus"] != nil || !hasCommand)
            ?? (hasCommand && root["corpus"] == nil ? [CommandTemplate.registry] : nil)
        let labels = parseLabels(root["labels"])
        let webSite = parseWebSite(root, registries: registries)
        var policy = (retries: 0, timeout: Duration.seconds(300), failFast: false, keep: KeepPolicy.failures, seed: UInt64(0))
        if let node = root["policy"] { parsePolicy(node, into: &policy) }
        if hasCommand, root["corpus"] == nil { checkAuditOfCommand(root["policy"]?["audit"]) }

        let customAxes = parseCustomAxes(root["customAxes"])
        let axes = parseAxes(root["axes"], parent: root)
        checkRegistryKeys(root, axes: axes)
        // Excludes and constraints may name the registry like an axis (RegistryRules.swift).
        let ruleAxes = axes + (registries.map { [Axis(name: MatrixFile.registryKey, values: $0)] } ?? [])
        var extraKeys: [String: [String]] = [:]
        let include = parseEntries(root["include"], "$.include", axes: axes, isInclude: true, extraKeys: &extraKeys)
        checkCustomDeclarations(customAxes, axes: axes, includeKeys: extraKeys.keys)
        let exclude = parseEntries(root["exclude"], "$.exclude", axes: ruleAxes, isInclude: false, extraKeys: &extraKeys)
        let constraints = parseConstraints(root["constraints"], axes: ruleAxes, extraKeys: extraKeys)
        let (reduction, seedRows) = parseReduction(root["reduction"], axes: axes)
        if let command { checkPlaceholders(command, axes: axes, extraKeys: extraKeys, root: root) }

        guard let name, let registries, findings.isEmpty else { return nil }
        let urls = corpus.map { entry in
            entry.hasPrefix("/") ? URL(fileURLWithPath: entry)
                : (directory ?? URL(fileURLWithPath: ".")).appendingPathComponent(entry).standardizedFileURL
        }
        var matrix = MatrixFile(
            file: file, name: name, description: description, corpus: corpus, corpusURLs: urls, includeTags: includeTags,
            excludeTags: excludeTags, registry: registries[0], requiredLabels: labels, retries: policy.retries,
            jobTimeout: policy.timeout, failFast: policy.failFast, keep: policy.keep, seed: policy.seed, axes: axes,
            include: include, exclude: exclude, constraints: constraints, reduction: reduction, seedRows: seedRows)
        matrix.corpusPositions = corpusPositions
        matrix.registries = registries
        matrix.registryPosition = root["registry"]?.position
        matrix.command = command
        matrix.commandPosition = root["command"]?.position
        matrix.repetitions = repetitions
        matrix.audit = audit
        matrix.visual = visual
        matrix.recording = recording
        matrix.webSite = webSite
        matrix.axesPosition = root["axes"]?.position
        matrix.reductionPosition = root["reduction"]?.position
        checkSemantics(matrix, root: root)
        return findings.isEmpty ? matrix : nil
    }

    /// `tags`: `{"include": [...], "exclude": [...]}`.
    mutating func parseTags(_ node: JSONNode?) -> (include: [String], exclude: [String]) {
        guard let tags = node else { return ([], []) }
        guard tags.members != nil else {
            add(.wrongType, "$.tags", tags.position, "expected an object {\"include\": [...], \"exclude\": [...]}, found \(tags.kindName)")
            return ([], [])
        }
        checkMembers(tags, path: "$.tags", allowed: ["include", "exclude"])
        return (stringList(tags["include"], "$.tags.include"), stringList(tags["exclude"], "$.tags.exclude"))
    }

    /// `labels`: the worker labels a job needs, names and values non-empty strings.
    mutating func parseLabels(_ node: JSONNode?) -> [String: String] {
        guard let node else { return [:] }
        guard let members = node.members else {
            add(.wrongType, "$.labels", node.position, "expected an object of worker labels, found \(node.kindName)")
            return [:]
        }
        var labels: [String: String] = [:]
        for m in members {
            guard let v = m.value.scalarText, m.value.string != nil else {
                add(.wrongType, "$.labels.\(m.key)", m.value.position, "a label value is a string, found \(m.value.kindName)")
                continue
            }
            if m.key.isEmpty || v.isEmpty { add(.badRegistry, "$.labels.\(m.key)", m.keyPosition, "label names and values must not be empty") }
            labels[m.key] = v
        }
        return labels
    }

    mutating func parsePolicy(_ node: JSONNode, into policy: inout (retries: Int, timeout: Duration, failFast: Bool, keep: KeepPolicy, seed: UInt64)) {
        guard node.members != nil else {
            add(.wrongType, "$.policy", node.position, "expected an object, found \(node.kindName)")
            return
        }
        checkMembers(node, path: "$.policy", allowed: ["retries", "timeout", "failFast", "keep", "seed", "repeat", "audit", "visual", "recording"])
        if let a = node["audit"] { parseAudit(a) }
        if let r = node["recording"] {
            parseRecording(r, keep: node["keep"]?.string.flatMap(KeepPolicy.init(rawValue:)))
            // Recording every attempt keeps passing attempts' evidence: `keep` is `all` unless it says otherwise.
            if recording == .all, node["keep"] == nil { policy.keep = .all }
        }
        if let v = node["visual"] {
            visual = parseVisual(v, keep: node["keep"]?.string.flatMap(KeepPolicy.init(rawValue:)))
            // Pictures of passing steps are what visual baselines compare: keep them unless `keep` says otherwise.
            if node["keep"] == nil { policy.keep = .all }
        }
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
}

/// Levenshtein distance (small strings only): `Spelling.distance`, the one helper for "did you mean".
func editDistance(_ a: String, _ b: String) -> Int { Spelling.distance(a, b) }
