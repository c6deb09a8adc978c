import FlowVocabulary

/// One `<testcase>` of a JUnit XML file.
public struct JUnitCase: Sendable, Hashable {
    /// The enclosing `<testsuite name>`.
    public var suite: String
    public var classname: String
    public var name: String
    /// Seconds (`time`), 0 when absent.
    public var time: Double
    /// `passed`, `failed` (`<failure>`), `errored` (`<error>`) or `skipped`.
    public var outcome: StepOutcome
    /// The `<failure>` / `<error>` / `<skipped>` message attribute, else its text (first lines).
    public var message: String?

    /// `classname.name` (pytest: `tests.test_format.test_total`), or the name alone.
    public var qualifiedName: String { classname.isEmpty ? name : classname + "." + name }
}

/// A file that is not JUnit XML: where and why.
public struct JUnitError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    public var description: String { "line \(line): \(message)" }
}

/// A small, dependency-free reader of JUnit XML as pytest (`--junitxml`), Playwright's `junit` reporter and
/// `xcodebuild`'s converters (xcpretty, xcresultparser, trainer) write it: `<testsuites>` or `<testsuite>` roots,
/// `<testcase>` with `<failure>`, `<error>` or `<skipped>`. Elements it does not know (`properties`, `system-out`)
/// are skipped; malformed XML (unclosed or mismatched tags, a bad attribute, no root) is a `JUnitError`.
public enum JUnitParser {
    public static func parse(_ bytes: [UInt8]) throws(JUnitError) -> [JUnitCase] {
        var lexer = XMLLexer(String(decoding: bytes, as: UTF8.self))
        var open: [String] = []
        var suites: [String] = []
        var cases: [JUnitCase] = []
        var current: JUnitCase?
        var detail: (outcome: StepOutcome, text: String)?
        var sawRoot = false
        while let token = try lexer.next() {
            switch token {
            case .start(let name, let attributes, let selfClosing):
                if open.isEmpty {
                    guard name == "testsuites" || name == "testsuite" else {
                        throw JUnitError(message: "the root element is <\(name)>, not <testsuites> or <testsuite>", line: lexer.line)
                    }
                    guard !sawRoot else { throw JUnitError(message: "a second root element <\(name)>", line: lexer.line) }
                    sawRoot = true
                }
                switch name {
                case "testsuite": suites.append(attributes["name"] ?? "")
                case "testcase":
                    current = JUnitCase(suite: suites.last ?? "", classname: attributes["classname"] ?? attributes["class"] ?? "",
                                        name: attributes["name"] ?? "", time: Double(attributes["time"] ?? "") ?? 0,
                                        outcome: .passed, message: nil)
                case "failure", "error", "skipped":
                    let outcome: StepOutcome = name == "failure" ? .failed : name == "error" ? .errored : .skipped
                    // The first problem decides (a failure then an error stays a failure).
                    if current?.outcome == .passed {
                        current?.outcome = outcome
                        current?.message = attributes["message"].flatMap { $0.isEmpty ? nil : $0 }
                    }
                    if current != nil { detail = (outcome, "") }
                default: break
                }
                if selfClosing { try close(name) } else { open.append(name) }
            case .end(let name):
                guard open.last == name else {
                    throw JUnitError(message: "</\(name)> closes <\(open.last ?? "nothing")>", line: lexer.line)
                }
                open.removeLast()
                try close(name)
            case .text(let text):
                if detail != nil { detail?.text += text }
            }
        }
        guard sawRoot else { throw JUnitError(message: "no <testsuites> or <testsuite> element", line: lexer.line) }
        guard open.isEmpty else { throw JUnitError(message: "<\(open.last ?? "")> is never closed", line: lexer.line) }
        return cases

        func close(_ name: String) throws(JUnitError) {
            switch name {
            case "testsuite": _ = suites.popLast()
            case "testcase":
                if let c = current { cases.append(c) }
                current = nil
            case "failure", "error", "skipped":
                if let d = detail, current?.message == nil, current?.outcome == d.outcome {
                    let lines = d.text.split(separator: "\n", omittingEmptySubsequences: true).prefix(8)
                    let text = lines.joined(separator: "\n").trimmingSpacesAndNewlines
                    current?.message = text.isEmpty ? nil : text
                }
                detail = nil
            default: break
            }
        }
    }
}

extension String {
    var trimmingSpacesAndNewlines: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
