import DevTools
import FlowSpec
import Foundation
import RunConditions

/// `assert page accessible`: the accessibility audit of the page as it is when the step runs (docs/ACCESSIBILITY.md).
/// Contrast, target size, language and clipping come from the page (`AuditScript`); names (AX001) from Chromium's
/// accessibility engine: the same page script lists the controls whose computed name (`Element.computedName`, the
/// engine's name computation, kept live by `Accessibility.enable`) is blank, and each of those is confirmed in the
/// accessibility tree (`Accessibility.getPartialAXTree`: its role, whether it is ignored, its name). A page whose
/// controls all have names costs one page round trip. Where the engine's names are not exposed to the page, or a
/// custom element may hold a closed shadow root, the whole tree is read (`Accessibility.getFullAXTree`), as
/// `audit(fullTree: true)` always does: the reference the fast path is tested against. Findings fail the step with
/// their rule codes.
extension WebRegistry {
    /// The roles (as Chromium's accessibility tree names them) of elements a user operates: each needs a name.
    static let interactiveRoles: Set<String> = [
        "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "switch", "slider", "spinbutton",
        "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "listbox", "PopUpButton", "ToggleButton",
    ]

    /// Runs the audit; the findings, empty when the page passes.
    public func audit(names: AuditNameSource = .automatic) async throws -> [AuditFinding] {
        guard pageOpened else { throw StepError.failed("no page is open: start the scenario with `open`") }
        let started = ContinuousClock.now
        defer { WebTimings.record("audit", ContinuousClock.now - started) }
        let inPage = names == .fullTree ? false : try await prepareComputedNames()
        let options: JSONValue = [
            "attr": .string(settings.identifierAttribute),
            "language": .string(String(conditions.locale.split(separator: "-").first ?? "en").lowercased()),
            "dir": .string(conditions.direction.isRightToLeft ? "rtl" : "ltr"),
            "names": .bool(inPage), "roles": .array(Self.interactiveRoles.sorted().map(JSONValue.string)),
        ]
        async let tree: [AuditFinding]? = inPage ? nil : WebTimings.measure("audit: accessibility tree") {
            try await unnamedControls()
        }
        let page = try await WebTimings.measure("audit: page script") {
            try await evaluate("(\(AuditScript.source))(\(options.serialized))")
        }
        if let elapsed = page["elapsed"]?.double {  // the script's own time, without the round trip
            WebTimings.record("audit: inside the page", .microseconds(Int64(elapsed * 1000)))
        }
        var findings: [AuditFinding]
        if let whole = try await tree {
            findings = whole
        } else if let labels = page["unnamed"]?.array {
            findings = try await WebTimings.measure("audit: confirm unnamed") {
                try await confirmUnnamed(labels.map { $0.string ?? "?" })
            }
        } else if names == .page {
            throw StepError.failed("the page cannot read its controls' names (no computedName, or a closed shadow root)")
        } else {
            findings = try await WebTimings.measure("audit: accessibility tree") { try await unnamedControls() }
        }
        for item in page["findings"]?.array ?? [] {
            guard let code = item["code"]?.string, let rule = AuditRule(rawValue: code) else { continue }
            findings.append(
                AuditFinding(rule: rule, element: item["id"]?.string ?? "?", detail: item["detail"]?.string ?? ""))
        }
        return findings
    }

    /// Whether the page can read names from the accessibility engine: on the registry's first audit, turns the
    /// page's accessibility on (`Accessibility.enable`; the engine then keeps its tree up to date, on this document
    /// and the next ones) and attaches it to the current document (`getRootAXNode`), so `computedName` reads the live
    /// tree instead of building one per call.
    private func prepareComputedNames() async throws -> Bool {
        if let computedNames { return computedNames }
        let exposed = try await evaluate("'computedName' in Element.prototype && 'computedRole' in Element.prototype")
        let ready = exposed.bool == true
        if ready {
            try await WebTimings.measure("audit: enable accessibility") {
                _ = try await page.send("Accessibility.enable", [:], timeout: settings.pageTimeout)
                _ = try await page.send("Accessibility.getRootAXNode", [:], timeout: settings.pageTimeout)
            }
        }
        computedNames = ready
        return ready
    }

    /// AX001 for the page's candidates (the controls whose computed name is blank, kept by the page script in its
    /// order, labelled by `labels`): those the accessibility tree shows, not ignored, with an interactive role and a
    /// blank name — what `unnamedControls` finds in the whole tree.
    private func confirmUnnamed(_ labels: [String]) async throws -> [AuditFinding] {
        guard !labels.isEmpty else { return [] }
        let group = "flowmatrix-audit"
        let list = try await page.send(
            "Runtime.evaluate",
            ["expression": "globalThis[Symbol.for('flowmatrix.audit.unnamed')]", "objectGroup": .string(group)],
            timeout: settings.pageTimeout)
        defer {
            page.connection.sendIgnoringReply("Runtime.releaseObjectGroup", ["objectGroup": .string(group)], session: page.sessionID)
        }
        guard let listID = list["result"]?["objectId"]?.string else { return [] }
        let properties = try await page.send(
            "Runtime.getProperties", ["objectId": .string(listID), "ownProperties": true], timeout: settings.pageTimeout)
        var elements: [(index: Int, objectID: String)] = []
        for property in properties["result"]?.array ?? [] {
            guard let index = property["name"]?.string.flatMap({ Int($0) }), index < labels.count,
                let id = property["value"]?["objectId"]?.string
            else { continue }
            elements.append((index, id))
        }
        let timeout = settings.pageTimeout
        let page = page
        let nodes = try await withThrowingTaskGroup(of: (Int, JSONValue?).self) { group in
            for element in elements {
                group.addTask {
                    do {
                        let r = try await page.send(
                            "Accessibility.getPartialAXTree",
                            ["objectId": .string(element.objectID), "fetchRelatives": false], timeout: timeout)
                        return (element.index, r["nodes"]?.array?.first)
                    } catch let error as DevToolsError where error.code == .commandFailed {
                        return (element.index, nil)  // not in the tree (not rendered): not in the whole tree either
                    }
                }
            }
            var out: [Int: JSONValue] = [:]
            for try await (index, node) in group { if let node { out[index] = node } }
            return out
        }
        return nodes.sorted { $0.key < $1.key }.compactMap { index, node in
            Self.unnamedFinding(node).map { AuditFinding(rule: .unnamed, element: labels[index], detail: $0) }
        }
    }

    /// The detail of AX001 for an accessibility node that is shown, interactive and has a blank name; else nil.
    static func unnamedFinding(_ node: JSONValue) -> String? {
        guard node["ignored"]?.bool != true, let role = node["role"]?["value"]?.string, interactiveRoles.contains(role)
        else { return nil }
        let name = node["name"]?["value"]?.string ?? ""
        return name.allSatisfy(\.isWhitespace) ? "is a \(role) with no accessible name" : nil
    }

    /// AX001 from the whole tree: interactive nodes of the accessibility tree (not ignored) whose computed name is
    /// blank. The whole tree in one command: cheaper for the browser than one `Accessibility.queryAXTree` per role
    /// (each computes every node's name again).
    private func unnamedControls() async throws -> [AuditFinding] {
        let tree = try await page.send("Accessibility.getFullAXTree", [:], timeout: settings.pageTimeout)
        var findings: [AuditFinding] = []
        for node in tree["nodes"]?.array ?? [] {
            guard let detail = Self.unnamedFinding(node), let backend = node["backendDOMNodeId"]?.int else { continue }
            let element = try await label(backendNode: backend)
            findings.append(AuditFinding(rule: .unnamed, element: element, detail: detail))
        }
        return findings
    }

    /// The identifier of the DOM node behind an accessibility node (or its tag inside the nearest identified one).
    private func label(backendNode: Int) async throws -> String {
        let resolved = try await page.send(
            "DOM.resolveNode", ["backendNodeId": .number(Double(backendNode))], timeout: settings.pageTimeout)
        guard let object = resolved["object"]?["objectId"]?.string else { return "node \(backendNode)" }
        let function = """
            function (attr) { const own = this.getAttribute && this.getAttribute(attr); if (own) return own;
            const holder = this.parentElement && this.parentElement.closest('[' + attr + ']');
            const tag = this.nodeName.toLowerCase() + (typeof this.className === 'string' && this.className.trim()
              ? '.' + this.className.trim().split(/\\s+/)[0] : '');
            return holder ? tag + ' in ' + holder.getAttribute(attr) : tag; }
            """
        let r = try await page.send(
            "Runtime.callFunctionOn",
            [
                "objectId": .string(object), "functionDeclaration": .string(function),
                "arguments": [["value": .string(settings.identifierAttribute)]], "returnByValue": true,
            ], timeout: settings.pageTimeout)
        return r["result"]?["value"]?.string ?? "node \(backendNode)"
    }

    /// `assert page accessible[;…]`: the audit, then any other clauses of the step.
    /// - Returns: the assertion without its `accessible` clause.
    func auditing(_ step: Step, _ assertion: StepArguments.Assertion) async throws -> StepArguments.Assertion {
        guard assertion.expectations.contains(AuditRule.clause) else { return assertion }
        guard step.target == AuditRule.pageTarget else {
            throw StepError.invalidArgument(
                "`accessible` audits the whole page: write `assert page accessible`, not `assert \(step.target)`")
        }
        let findings = try await audit()
        guard findings.isEmpty else { throw StepError.assertionFailed(AuditFinding.failureMessage(findings)) }
        var rest = assertion
        rest.expectations.removeAll { $0 == AuditRule.clause }
        return rest
    }
}

/// Where the web audit reads AX001's names.
public enum AuditNameSource: Sendable {
    /// From the page, confirmed in the tree; the whole tree where the page cannot tell (the default).
    case automatic
    /// From the page only: the audit throws where the page cannot tell (for tests of the fast path).
    case page
    /// From the whole accessibility tree (slower; the reference the fast path is tested against).
    case fullTree
}

