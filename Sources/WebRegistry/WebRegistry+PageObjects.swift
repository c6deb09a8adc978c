import DevTools
import FlowSpec
import Foundation

/// How the registry resolves a step through its page objects (`WebSettings.pageObjects`): element targets become
/// locators, `open` targets URLs, `request` targets fixtures, `key=` clauses strings; without page objects a target
/// is a test id and a `request` target a URL.
extension WebRegistry {
    /// The locator the page's script finds `target` with: its page-object locator, or the test id itself.
    nonisolated func locator(_ target: String) -> JSONValue {
        guard let objects = settings.pageObjects, let locator = objects.locator(for: target) else {
            return .string(target)
        }
        if case .testID(let id) = locator, id == target { return .string(target) }
        return locator.json(named: target)
    }

    /// How messages name `target`: its selector, or its name and locator.
    nonisolated func selector(_ target: String) -> String {
        switch settings.pageObjects?.locator(for: target) {
        case nil: "[\(settings.identifierAttribute)=\"\(target)\"]"
        case .testID(let id)?: "[\(settings.identifierAttribute)=\"\(id)\"]"
        case .role(let role, let name)?: "\(target) (role \(role) \"\(name)\")"
        case .label(let label)?: "\(target) (label \"\(label)\")"
        case .css(let css)?: "\(target) (css \(css))"
        }
    }

    /// `key=K`: the element shows the string of key `K` in the job's locale (from the page objects' string tables),
    /// its pseudolocalized form when the job pseudolocalizes.
    func keyCondition(_ id: String?, key: String) throws -> JSONValue {
        guard let tables = settings.pageObjects?.strings else {
            throw StepError.invalidArgument(
                "key=\(key) needs string tables: name them in the page objects' app.json (\"strings\")")
        }
        let resolved = tables.resolve(key, locale: conditions.locale)
        guard resolved.table != nil else {
            throw StepError.invalidArgument("key=\(key): no string table has the key '\(key)'")
        }
        guard case .object(var members) = condition(id, "text") else { return condition(id, "text") }
        members["value"] = .string(resolved.text)
        return .object(members)
    }

    /// The URL a `request` step serves and the response it serves (the `request` verb's argument form): the page
    /// objects' fixture for its target and argument (`default` when it has none), else the target and argument as
    /// they are.
    func requestFixture(_ step: Step) throws -> (path: String, argument: String?) {
        guard let objects = settings.pageObjects else { return (step.target, step.arg) }
        guard let request = objects.requests[step.target] else { throw StepError.unknownStep(step) }
        let name = step.arg ?? "default"
        guard let response = request.responses[name] else {
            let known = request.responses.keys.sorted().joined(separator: ", ")
            throw StepError.invalidArgument("request \(step.target) has no fixture '\(name)' (\(known))")
        }
        return (request.url, response)
    }

    /// The page objects' in-page interruptions, for the page's script.
    nonisolated var interruptionsJSON: JSONValue {
        .array(
            (settings.pageObjects?.interruptions ?? []).map { i in
                ["name": .string(i.name), "element": locator(i.element), "dismiss": locator(i.dismiss)]
            })
    }
}
