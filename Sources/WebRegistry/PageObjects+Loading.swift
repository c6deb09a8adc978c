import DevTools
import FlowSpec
import Foundation
import RunConditions

/// The rule codes of page-object files (docs/SCENARIOS.md lists them with the scenario rules).
public enum PageObjectRule: String, Sendable, CaseIterable {
    /// A page-object file cannot be read, is not JSON, or a member has the wrong type or is missing.
    case malformed = "FS027"
    /// A locator names no kind, several kinds, an unknown kind, or an empty value.
    case badLocator = "FS028"
    /// Two page objects declare the same identifier or screen, or `app.json` names something that is not there (a
    /// fixture or string-table file, an interruption's element).
    case inconsistent = "FS029"
}

/// Why a folder of page objects cannot be used: every finding at once.
public struct PageObjectError: Error, Sendable, CustomStringConvertible {
    public var findings: [ValidationFinding]
    public var description: String { findings.map(\.description).joined(separator: "\n") }
}

extension PageObjects {
    /// Reads every `*.json` file of `folder`: `app.json` for the app, any other for one screen.
    /// - Throws: `PageObjectError` with every finding (FS027–FS029) when a file is unusable.
    public static func load(folder: URL) throws -> PageObjects {
        var loader = Loader(folder: folder)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            loader.finding(.malformed, folder.lastPathComponent, "$", "cannot read the page-object folder "
                + "\(folder.path)")
            throw PageObjectError(findings: loader.findings)
        }
        if names.isEmpty {
            loader.finding(.malformed, folder.lastPathComponent, "$", "the page-object folder \(folder.path) has no "
                + "*.json file")
        }
        for name in names { loader.read(name) }
        loader.checkConsistency()
        guard loader.findings.isEmpty else { throw PageObjectError(findings: loader.findings) }
        return loader.objects
    }

    /// Reads the string tables of `url`: a JSON document `{"base": "en", "tables": {"en": {key: text}, …}}`, or a
    /// script that assigns that one JSON literal (`window.CatalogStrings = {…};`), so the page can load the same
    /// file.
    public static func stringTables(at url: URL) throws -> StringTables {
        var text = try String(contentsOf: url, encoding: .utf8)
        if let brace = text.firstIndex(of: "{"), let last = text.lastIndex(of: "}") {
            text = String(text[brace...last])
        }
        let json = try JSONValue.parse(Array(text.utf8))
        guard let base = json["base"]?.string, let tables = json["tables"]?.object else {
            throw PageObjectError(findings: [
                ValidationFinding(
                    file: url.lastPathComponent, code: PageObjectRule.malformed.rawValue, path: "$", position: nil,
                    message: "a string-table file needs \"base\" (a locale tag) and \"tables\""
                        + " (locale → key → text)")
            ])
        }
        var out: [String: [String: String]] = [:]
        for (tag, table) in tables { out[tag] = table.object?.compactMapValues(\.string) ?? [:] }
        return StringTables(base: base, tables: out)
    }

    struct Loader {
        let folder: URL
        var objects = PageObjects()
        var findings: [ValidationFinding] = []
        /// Where each screen and identifier was declared (for duplicates).
        var declared: [String: String] = [:]

        init(folder: URL) { self.folder = folder }

        mutating func finding(_ rule: PageObjectRule, _ file: String, _ path: String, _ message: String) {
            findings.append(
                ValidationFinding(file: file, code: rule.rawValue, path: path, position: nil, message: message))
        }

        mutating func read(_ name: String) {
            let json: JSONValue
            do {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                json = try JSONValue.parse(Array(data))
            } catch {
                return finding(.malformed, name, "$", "not a readable JSON file: \(error)")
            }
            guard json.object != nil else { return finding(.malformed, name, "$", "a page object is a JSON object") }
            if name == "app.json" { readApp(json, name) } else { readScreen(json, name) }
        }

        mutating func readScreen(_ json: JSONValue, _ file: String) {
            guard let screen = json["screen"]?.string, !screen.isEmpty else {
                return finding(.malformed, file, "$.screen", "a screen's page object names its screen (\"screen\": "
                    + "\"cart\")")
            }
            guard let url = json["url"]?.string else {
                return finding(.malformed, file, "$.url", "a screen's page object gives the URL that opens it "
                    + "(\"url\": \"index.html#cart\")")
            }
            if let other = declared["screen " + screen] {
                finding(.inconsistent, file, "$.screen", "screen '\(screen)' is declared twice (also in \(other))")
            }
            declared["screen " + screen] = file
            guard let members = json["elements"]?.object else {
                return finding(.malformed, file, "$.elements", "\"elements\" maps each identifier to its locator ({} "
                    + "for its test id)")
            }
            var elements: [Element] = []
            for (id, value) in members.sorted(by: { $0.key < $1.key }) {
                let path = "$.elements[\"\(id)\"]"
                if let other = declared[id] {
                    finding(.inconsistent, file, path, "'\(id)' is declared twice (also in \(other)): one screen "
                        + "owns an identifier")
                }
                declared[id] = file
                guard let locator = readLocator(value, file, path) else { continue }
                elements.append(Element(pattern: id, screen: screen, locator: locator.1 ? nil : locator.0))
            }
            objects.add(screen: Screen(name: screen, url: url), elements: elements)
        }

        /// The locator and whether it is the default (the test id equal to the identifier).
        mutating func readLocator(_ value: JSONValue, _ file: String, _ path: String) -> (Locator, Bool)? {
            guard let o = value.object else {
                finding(.badLocator, file, path, "a locator is an object: {} (test id), {\"testId\"}, {\"role\", "
                    + "\"name\"}, {\"label\"} or {\"css\"}")
                return nil
            }
            let kinds = ["testId", "role", "label", "css"].filter { o[$0] != nil }
            let unknown = o.keys.filter { !["testId", "role", "name", "label", "css"].contains($0) }.sorted()
            if !unknown.isEmpty {
                finding(.badLocator, file, path, "unknown locator member "
                    + "\(unknown.joined(separator: ", ")) (testId, role + "
                    + "name, label, css)")
                return nil
            }
            if kinds.isEmpty && o["name"] == nil { return (.testID(""), true) }
            guard kinds.count == 1, let kind = kinds.first, let text = o[kind]?.string, !text.isEmpty else {
                finding(.badLocator, file, path, "a locator has exactly one non-empty kind: testId, role (with "
                    + "name), label or css")
                return nil
            }
            switch kind {
            case "testId": return (.testID(text), false)
            case "label": return (.label(text), false)
            case "css": return (.css(text), false)
            default:
                guard let name = o["name"]?.string, !name.isEmpty else {
                    finding(.badLocator, file, path, "a role locator needs the accessible name too (\"name\": \"Add "
                        + "to Cart\")")
                    return nil
                }
                return (.role(text, name: name), false)
            }
        }

        mutating func readApp(_ json: JSONValue, _ file: String) {
            var strings: StringTables?
            if let path = json["strings"]?.string {
                do { strings = try PageObjects.stringTables(at: folder.appendingPathComponent(path)) } catch {
                    finding(.inconsistent, file, "$.strings", "cannot read the string tables \(path): \(error)")
                }
            }
            var requests: [String: Request] = [:]
            for (target, value) in json["requests"]?.object ?? [:] {
                let path = "$.requests[\"\(target)\"]"
                guard let url = value["url"]?.string, let responses = value["responses"]?.object else {
                    finding(.malformed, file, path, "a request names the \"url\" the app requests and its "
                        + "\"responses\" per argument")
                    continue
                }
                var bodies: [String: String] = [:]
                for (arg, response) in responses {
                    bodies[arg] = readResponse(response, file, path + ".responses.\(arg)")
                }
                requests[target] = Request(url: url, responses: bodies)
            }
            let events = json["events"]?.array?.compactMap(\.string) ?? []
            var interruptions: [Interruption] = []
            for (i, value) in (json["interruptions"]?.array ?? []).enumerated() {
                guard let name = value["name"]?.string, let element = value["element"]?.string,
                    let dismiss = value["dismiss"]?.string
                else {
                    finding(.malformed, file, "$.interruptions[\(i)]", "an interruption has \"name\", \"element\" "
                        + "and \"dismiss\"")
                    continue
                }
                interruptions.append(Interruption(name: name, element: element, dismiss: dismiss))
            }
            objects.add(requests: requests, events: events, interruptions: interruptions, strings: strings)
        }

        /// A response as the `request` verb's argument: a string as it is, `{"file": …}` the file's text (with an
        /// optional `status`), any other object as JSON.
        mutating func readResponse(_ value: JSONValue, _ file: String, _ path: String) -> String? {
            if let text = value.string { return text }
            guard let name = value["file"]?.string else { return value.serialized }
            do {
                let body = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                guard let status = value["status"] else { return body }
                return JSONValue.object(["status": status, "body": .string(body)]).serialized
            } catch {
                finding(.inconsistent, file, path, "cannot read the fixture file \(name)")
                return nil
            }
        }

        mutating func checkConsistency() {
            for i in objects.interruptions {
                for id in [i.element, i.dismiss] where objects.locator(for: id) == nil {
                    finding(.inconsistent, "app.json", "$.interruptions", "interruption '\(i.name)' names '\(id)', "
                        + "which no screen declares")
                }
            }
        }
    }
}
