import DevTools
import FlowSpec
import Foundation
import RunConditions

/// `assert page accessible`: the accessibility audit of the page as it is when the step runs (docs/ACCESSIBILITY.md).
/// Names (AX001) come from Chromium's accessibility tree (`Accessibility.getFullAXTree`); contrast, target size,
/// language and clipping from the page (`AuditScript`). Findings fail the step with their rule codes.
extension WebRegistry {
    /// The roles (as Chromium's accessibility tree names them) of elements a user operates: each needs a name.
    static let interactiveRoles: Set<String> = [
        "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "switch", "slider", "spinbutton",
        "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "listbox", "PopUpButton", "ToggleButton",
    ]

    /// Runs the audit; the findings, empty when the page passes.
    public func audit() async throws -> [AuditFinding] {
        guard pageOpened else { throw StepError.failed("no page is open: start the scenario with `open`") }
        let started = ContinuousClock.now
        defer { WebTimings.record("audit", ContinuousClock.now - started) }
        let options: JSONValue = [
            "attr": .string(settings.identifierAttribute),
            "language": .string(String(conditions.locale.split(separator: "-").first ?? "en").lowercased()),
            "dir": .string(conditions.direction.isRightToLeft ? "rtl" : "ltr"),
        ]
        async let unnamed = WebTimings.measure("audit: accessibility tree") { try await unnamedControls() }
        let page = try await WebTimings.measure("audit: page script") {
            try await evaluate("(\(AuditScript.source))(\(options.serialized))")
        }
        var findings = try await unnamed
        for item in page["findings"]?.array ?? [] {
            guard let code = item["code"]?.string, let rule = AuditRule(rawValue: code) else { continue }
            findings.append(
                AuditFinding(rule: rule, element: item["id"]?.string ?? "?", detail: item["detail"]?.string ?? ""))
        }
        return findings
    }

    /// AX001: interactive nodes of the accessibility tree (not ignored) whose computed name is empty. The whole tree
    /// in one command: cheaper for the browser than one `Accessibility.queryAXTree` per role (each computes every
    /// node's name again).
    private func unnamedControls() async throws -> [AuditFinding] {
        let tree = try await page.send("Accessibility.getFullAXTree", [:], timeout: settings.pageTimeout)
        var findings: [AuditFinding] = []
        for node in tree["nodes"]?.array ?? [] where node["ignored"]?.bool != true {
            guard let role = node["role"]?["value"]?.string, Self.interactiveRoles.contains(role) else { continue }
            let name = node["name"]?["value"]?.string ?? ""
            guard name.allSatisfy(\.isWhitespace), let backend = node["backendDOMNodeId"]?.int else { continue }
            let element = try await label(backendNode: backend)
            findings.append(
                AuditFinding(rule: .unnamed, element: element, detail: "is a \(role) with no accessible name"))
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
