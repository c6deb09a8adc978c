extension Scenario {
    /// Reads a scenario from a parsed document, reporting every finding instead of stopping at the first.
    ///
    /// - Returns: the scenario when the document has the shape of one (even with rule findings), and every
    ///   finding; the scenario is nil only when its structure is too broken to build.
    public static func validated(from root: JSONNode, file: String) -> (scenario: Scenario?, findings: [ValidationFinding]) {
        var findings: [ValidationFinding] = []
        func report(_ rule: ScenarioRule, _ path: String, _ node: SourcePosition?, _ message: String) {
            findings.append(ValidationFinding(file: file, code: rule.code, path: path, position: node, message: message))
        }
        guard let members = root.members else {
            report(.wrongType, "$", root.position, "a scenario file must hold a JSON object, not \(root.kindName)")
            return (nil, findings)
        }
        for duplicate in root.duplicateMembers(path: "$") {
            report(.duplicateMember, duplicate.path, duplicate.position,
                   "member '\(duplicate.key)' appears more than once in this object; keep one (JSON does not say which wins)")
        }
        let known: Set<String> = ["id", "title", "actor", "preconditions", "tags", "steps"]
        for member in members where !known.contains(member.key) {
            let hint = member.key == "step" ? " (did you mean 'steps'?)" : ""
            report(.unknownField, "$.\(member.key)", member.keyPosition,
                   "unknown member '\(member.key)'\(hint); a scenario has id, title, actor, preconditions, tags, steps")
        }

        func requiredString(_ key: String) -> String? {
            guard let node = root[key] else {
                report(.missingField, "$", root.position, "missing required member '\(key)'")
                return nil
            }
            guard let s = node.string else {
                report(.wrongType, "$.\(key)", node.position, "'\(key)' must be a string, not \(node.kindName)")
                return nil
            }
            if s.trimmingSpaces.isEmpty {
                report(.emptyIdentity, "$.\(key)", node.position, "'\(key)' is empty; give the scenario a non-empty \(key)")
            }
            return s
        }
        func stringList(_ key: String) -> [String] {
            guard let node = root[key], !node.isNull else { return [] }
            guard let items = node.array else {
                report(.wrongType, "$.\(key)", node.position, "'\(key)' must be an array of strings, not \(node.kindName)")
                return []
            }
            var out: [String] = []
            for (i, item) in items.enumerated() {
                if let s = item.string { out.append(s) } else {
                    report(.wrongType, "$.\(key)[\(i)]", item.position, "'\(key)' entries must be strings, not \(item.kindName)")
                }
            }
            return out
        }

        let id = requiredString("id")
        let title = requiredString("title")
        var actor: String?
        if let node = root["actor"], !node.isNull {
            if let s = node.string { actor = s } else {
                report(.wrongType, "$.actor", node.position, "'actor' must be a string, not \(node.kindName)")
            }
        }
        let preconditions = stringList("preconditions")
        let tags = stringList("tags")

        let steps = validateSteps(root, report: report)
        guard let id, let title, let steps else { return (nil, findings) }
        let scenario = Scenario(id: id, title: title, actor: actor, preconditions: preconditions, tags: tags, steps: steps)
        return (scenario, findings)
    }

    /// The steps, or nil when a step (or the list) is too broken to build.
    private static func validateSteps(
        _ root: JSONNode, report: (ScenarioRule, String, SourcePosition?, String) -> Void
    ) -> [Step]? {
        guard let stepsNode = root["steps"] else {
            report(.missingField, "$", root.position, "missing required member 'steps'")
            return nil
        }
        guard let items = stepsNode.array else {
            report(.wrongType, "$.steps", stepsNode.position, "'steps' must be an array of steps, not \(stepsNode.kindName)")
            return nil
        }
        if items.isEmpty {
            report(.noSteps, "$.steps", stepsNode.position, "the scenario has no steps; add at least one step")
        }
        var steps: [Step] = []
        var stepsUsable = true
        for (index, item) in items.enumerated() {
            if let step = validateStep(item, index: index, report: report) { steps.append(step) } else {
                stepsUsable = false
            }
        }
        return stepsUsable ? steps : nil
    }

    private static func validateStep(
        _ node: JSONNode, index: Int,
        report: (ScenarioRule, String, SourcePosition?, String) -> Void
    ) -> Step? {
        let path = "$.steps[\(index)]"
        let label = "step \(index + 1)"
        guard let members = node.members else {
            report(.wrongType, path, node.position, "\(label) must be an object {verb, target, arg?}, not \(node.kindName)")
            return nil
        }
        for member in members where !["verb", "target", "arg"].contains(member.key) {
            report(.unknownField, "\(path).\(member.key)", member.keyPosition,
                   "\(label) has unknown member '\(member.key)'; a step has verb, target and arg")
        }
        var verb: Verb?
        if let v = node["verb"] {
            if let text = v.string {
                verb = Verb(rawValue: text)
                if verb == nil {
                    let list = Verb.allCases.map(\.rawValue).joined(separator: ", ")
                    report(.unknownVerb, "\(path).verb", v.position, "\(label) has unknown verb '\(text)'; use one of \(list)")
                }
            } else {
                report(.wrongType, "\(path).verb", v.position, "\(label)'s verb must be a string, not \(v.kindName)")
            }
        } else {
            report(.missingField, path, node.position, "\(label) has no 'verb'")
        }
        var target: String?
        if let t = node["target"] {
            if let text = t.string {
                target = text
                if text.trimmingSpaces.isEmpty {
                    report(.emptyTarget, "\(path).target", t.position, "\(label) has an empty target; name the element or resource it acts on")
                }
            } else {
                report(.wrongType, "\(path).target", t.position, "\(label)'s target must be a string, not \(t.kindName)")
            }
        } else {
            report(.missingField, path, node.position, "\(label) has no 'target'")
        }
        var arg: String?
        var argPosition = node.position
        if let a = node["arg"], a.isNull {
            argPosition = a.position
            report(.wrongType, "\(path).arg", a.position,
                   "\(label)'s arg is null; leave 'arg' out for the default, or write a string such as \"5\"")
        } else if let a = node["arg"] {
            argPosition = a.position
            if let text = a.string { arg = text } else if let text = a.scalarText {
                report(.wrongType, "\(path).arg", a.position,
                       "\(label)'s arg must be a string: write \"\(text)\" in quotes")
                arg = text
            } else {
                report(.wrongType, "\(path).arg", a.position, "\(label)'s arg must be a string, not \(a.kindName)")
            }
        }
        guard let verb, let target else { return nil }
        let step = Step(verb: verb, target: target, arg: arg)
        validateArgument(of: step, label: label, path: path, argPosition: argPosition, report: report)
        return step
    }

    /// The rules on a step's `arg` that depend on its verb.
    private static func validateArgument(
        of step: Step, label: String, path: String, argPosition: SourcePosition,
        report: (ScenarioRule, String, SourcePosition?, String) -> Void
    ) {
        let argPath = "\(path).arg"
        let arg = step.arg
        switch step.verb {
        case .swipe:
            if let arg, !arg.trimmingSpaces.isEmpty {
                if SwipeDirection(rawValue: arg.trimmingSpaces) == nil {
                    report(.unknownSwipeDirection, argPath, argPosition,
                           "\(label) swipes '\(arg)'; the direction must be up, down, left or right")
                }
            } else {
                report(.swipeWithoutDirection, path, argPosition, "\(label) is a swipe with no direction; set arg to up, down, left or right")
            }
        case .rotate:
            if let arg, !arg.trimmingSpaces.isEmpty {
                if DeviceOrientation(rawValue: arg.trimmingSpaces) == nil {
                    report(.unknownOrientation, argPath, argPosition,
                           "\(label) rotates to '\(arg)'; the orientation must be portrait or landscape")
                }
            } else {
                report(.rotateWithoutOrientation, path, argPosition, "\(label) is a rotate with no orientation; set arg to portrait or landscape")
            }
        case .type:
            if arg == nil || arg == "" {
                report(.typeWithoutText, path, argPosition, "\(label) types no text; set arg to the text to type")
            }
        case .wait:
            if case .failure(let problem) = StepArguments.waitTimeout(step) {
                reportTimeout(problem, label: label, verb: "wait", path: argPath, position: argPosition, report: report)
            }
        case .assert:
            if case .failure(let problem) = StepArguments.assertion(step) {
                reportTimeout(problem, label: label, verb: "assert", path: argPath, position: argPosition, report: report)
            }
        case .open, .tap, .request, .ambient:
            break
        }
    }

    private static func reportTimeout(
        _ problem: StepArguments.TimeoutProblem, label: String, verb: String, path: String, position: SourcePosition,
        report: (ScenarioRule, String, SourcePosition?, String) -> Void
    ) {
        switch problem {
        case .notNumeric(let text):
            report(.nonNumericTimeout, path, position,
                   "\(label) is a \(verb) whose timeout '\(text)' is not a decimal number of seconds; write e.g. \"5\" or \"0.5\"")
        case .notPositive(let text):
            report(.nonPositiveTimeout, path, position,
                   "\(label) is a \(verb) with timeout \(text); a timeout must be more than zero seconds")
        case .outOfRange(let text):
            let limit = Int(StepArguments.maximumTimeoutSeconds)
            report(.numberOutOfRange, path, position,
                   "\(label) is a \(verb) with timeout \(text) seconds; a timeout is at most \(limit) seconds (one day)")
        }
    }
}
