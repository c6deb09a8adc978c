/// Checking a scenario against the registry that will run it, before anything runs.
extension RegistryManifest {
    /// How many targets or clauses a finding lists before `…`.
    static let listedAlternatives = 12

    /// Every finding of `loaded` against this manifest, in step order: a step the registry does not wire (FS021), an
    /// `assert` clause it does not understand (FS022). Nothing is reported for what the manifest does not publish.
    ///
    /// - Parameter others: the other registries of the same matrix: a step one of them wires (per its published steps)
    ///   and this one does not is FS023 (a parity gap) rather than FS021.
    public func findings(for loaded: LoadedScenario, others: [RegistryManifest] = []) -> [ValidationFinding] {
        var problems: [(rule: ScenarioRule, step: Int, member: String, message: String)] = []
        for (index, step) in loaded.scenario.steps.enumerated() {
            if !wires(step) {
                let elsewhere = others.filter { $0.name != name && $0.steps != nil && $0.wires(step) }.map(\.name)
                if elsewhere.isEmpty {
                    problems.append((.stepNotWired, index, "target", notWiredMessage(step, index: index)))
                } else {
                    problems.append((.stepWiredElsewhere, index, "target", parityGapMessage(step, index: index, wiredBy: elsewhere)))
                }
                continue
            }
            guard step.verb == .assert, let vocabulary = clauses(on: step.target),
                  case .success(let assertion) = StepArguments.assertion(step)
            else { continue }
            for clause in assertion.expectations where !Self.understands(clause, vocabulary: vocabulary) {
                problems.append((.unknownAssertClause, index, "arg", unknownClauseMessage(clause, step: step, index: index,
                                                                                           vocabulary: vocabulary)))
            }
        }
        guard !problems.isEmpty else { return [] }
        // Positions only when something is reported: the file is parsed again (it was valid a moment ago).
        let steps = (try? JSONParser.parse(loaded.contentDigestSource))?["steps"]?.array
        return problems.map { problem in
            let node = steps.flatMap { $0.indices.contains(problem.step) ? $0[problem.step] : nil }
            return ValidationFinding(
                file: loaded.file, code: problem.rule.code, path: "$.steps[\(problem.step)].\(problem.member)",
                position: (node?[problem.member] ?? node)?.position, message: problem.message)
        }
    }

    private func notWiredMessage(_ step: Step, index: Int) -> String {
        let patterns = targets(of: step.verb) ?? []
        guard !patterns.isEmpty else {
            let verbs = (steps ?? []).map(\.verb)
            return "step \(index + 1) '\(step.key)': registry \(name) does not wire the verb \(step.verb.rawValue) (it wires: "
                + "\(verbs.joined(separator: ", "))), so the step would fail in every configuration"
        }
        let hint = Spelling.suggestion(for: step.target, among: patterns.filter { !$0.contains("#") }, maximumDistance: 3)
            .map { " (did you mean '\(step.verb.rawValue):\($0)'?)" } ?? ""
        return "step \(index + 1) '\(step.key)' is not wired by registry \(name)\(hint), so it would fail in every "
            + "configuration; \(step.verb.rawValue) targets: \(Self.list(patterns))"
    }

    private func parityGapMessage(_ step: Step, index: Int, wiredBy: [String]) -> String {
        "step \(index + 1) '\(step.key)' is wired by \(wiredBy.joined(separator: ", ")) but not by registry \(name), so the "
            + "scenario would fail only on \(name) (missing machinery, not a product defect); wire it in \(name), or "
            + "keep \(name) off this scenario's matrix"
    }

    private func unknownClauseMessage(_ clause: String, step: Step, index: Int, vocabulary: [String]) -> String {
        let word = clause.firstIndex(of: "=").map { String(clause[...$0]) } ?? clause
        let hint = Spelling.suggestion(for: word, among: vocabulary, maximumDistance: 3).map { " (did you mean '\($0)'?)" } ?? ""
        return "step \(index + 1) asserts '\(clause)' on \(step.target), which registry \(name) does not understand\(hint); "
            + "clauses there: \(Self.list(vocabulary)) (a number or timeout=N is the timeout)"
    }

    private static func list(_ words: [String]) -> String {
        words.prefix(listedAlternatives).joined(separator: ", ") + (words.count > listedAlternatives ? ", …" : "")
    }
}
