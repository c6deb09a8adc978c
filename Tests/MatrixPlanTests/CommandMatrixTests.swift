import FlowSpec
import Foundation
@testable import MatrixPlan
import Synchronization
import Testing

@Suite("a matrix's command: placeholders, items, job identity")
struct CommandMatrixTests {
    static func parse(_ command: String, axes: String = #"{"locale": ["en", "ar"], "window": ["390x844"]}"#,
                      extra: String = "") -> (MatrixFile?, [ValidationFinding]) {
        MatrixFile.parse(Array(#"{"name": "c", "command": \#(command), "axes": \#(axes)\#(extra)}"#.utf8), file: "c.json")
    }

    @Test("known placeholders pass: built-in and custom axes, window size, job identity, device mapping, item")
    func knownPlaceholders() throws {
        let (matrix, findings) = Self.parse(#"""
            {"argv": ["run", "--lang={locale}", "{window.width}x{window.height}", "{theme}", "{job.id}", "{attempt}",
                      "{seed}", "{output}/junit.xml", "{item}", "{device.testLanguage}", "{device.launchArguments}", "{{literal}}"],
             "env": {"THEME": "{theme}"}, "cwd": "{output}", "results": ["{output}/*.xml"], "items": ["a", "b"]}
            """#, axes: #"{"locale": ["en", "ar"], "window": ["390x844"], "theme": ["light", "dark"]}"#)
        #expect(findings.isEmpty, "\(findings)")
        let command = try #require(matrix?.command)
        #expect(command.items == ["a", "b"])
        #expect(command.name == "run")
        #expect(matrix?.registry == CommandTemplate.registry)
    }

    @Test("an unknown placeholder is MX027 at validate time, with a did-you-mean hint")
    func unknownPlaceholder() {
        let (matrix, findings) = Self.parse(#"{"argv": ["run", "{locle}", "{window.depth}"]}"#)
        #expect(matrix == nil)
        #expect(findings.count == 2)
        #expect(findings.allSatisfy { $0.code == "MX027" })
        #expect(findings.first?.message.contains("did you mean '{locale}'") == true)
        #expect(findings.first?.path == "$.command.argv[1]")
    }

    @Test("placeholders that need something the matrix lacks are MX027", arguments: [
        #"{"argv": ["run", "{item}"]}"#,                                   // no items
        #"{"argv": ["run", "--args={device.launchArguments}"]}"#,           // a list placeholder not alone
        #"{"argv": ["run", "{locale"]}"#,                                   // unbalanced brace
        #"{"argv": ["run"], "env": {"X": "{nope}"}}"#,                      // in the environment
    ])
    func needsSomething(_ command: String) {
        let (_, findings) = Self.parse(command)
        #expect(findings.map(\.code) == ["MX027"], "\(findings)")
    }

    @Test("{window.width} needs a window axis")
    func windowNeedsAxis() {
        let (_, findings) = Self.parse(#"{"argv": ["run", "{window.width}"]}"#, axes: #"{"locale": ["en"]}"#)
        #expect(findings.map(\.code) == ["MX027"])
    }

    @Test("a malformed command is MX028", arguments: [
        #"{"argv": []}"#, #"{"argv": "pytest -q"}"#, #"{"argv": ["a", "b"], "shell": true}"#,
        #"{"argv": ["a"], "items": []}"#, #"{"argv": ["a"], "items": ["x", "x"]}"#, #"{"argv": ["a"], "timeout": 0}"#,
    ])
    func malformed(_ command: String) {
        let (_, findings) = Self.parse(command)
        #expect(findings.map(\.code).contains("MX028"), "\(findings)")
    }

    @Test("a shell command is one script, only when asked for")
    func shell() throws {
        let (matrix, findings) = Self.parse(#"{"argv": "echo {locale} | tr a-z A-Z", "shell": true}"#)
        #expect(findings.isEmpty)
        #expect(matrix?.command?.shell == true)
    }

    @Test("jobs are items × configurations under the command registry; ids are stable and sensitive")
    func jobs() throws {
        let matrix = try Fixtures.matrix(#"""
            {"name": "c", "command": {"argv": ["pytest", "{item}"], "items": ["t/a.py", "t/b.py", "t/c.py"]},
             "axes": {"locale": ["en", "ar"], "window": ["390x844", "1024x768"]}}
            """#)
        let plan = matrix.plan(scenarios: [])
        #expect(plan.jobs.count == 12)
        #expect(Set(plan.jobs.map(\.id)).count == 12)
        #expect(plan.jobs.allSatisfy { $0.registry == CommandTemplate.registry })
        #expect(plan.jobs.first?.scenario.id == "pytest[t/a.py]")
        // The same template, item and configuration give the same id in another plan.
        let again = try Fixtures.matrix(#"""
            {"name": "renamed", "command": {"argv": ["pytest", "{item}"], "items": ["t/c.py", "t/a.py"]},
             "axes": {"locale": ["ar", "en"], "window": ["1024x768", "390x844"]}}
            """#)
        #expect(Set(again.plan(scenarios: []).jobs.map(\.id)).isSubset(of: Set(plan.jobs.map(\.id))))
        // A different template changes every id.
        let changed = try Fixtures.matrix(#"""
            {"name": "c", "command": {"argv": ["pytest", "-x", "{item}"], "items": ["t/a.py", "t/b.py", "t/c.py"]},
             "axes": {"locale": ["en", "ar"], "window": ["390x844", "1024x768"]}}
            """#)
        #expect(Set(changed.plan(scenarios: []).jobs.map(\.id)).isDisjoint(with: Set(plan.jobs.map(\.id))))
    }

    @Test("a command beside a corpus adds its jobs to the scenario jobs")
    func besideCorpus() throws {
        let scenario = Scenario(id: "s", title: "S", steps: [Step(verb: .open, target: "home")])
        let matrix = try Fixtures.matrix(#"""
            {"name": "c", "corpus": "x", "registry": "catalog", "command": {"argv": ["true"]}, "axes": {"locale": ["en", "ar"]}}
            """#)
        let plan = matrix.plan(scenarios: [(scenario, "s.json")])
        #expect(plan.jobs.map(\.registry).sorted() == ["catalog", "catalog", "command", "command"])
    }

    @Test("items printed by a command at plan time become jobs; its output is part of the plan")
    func itemsCommand() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-items-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("m.json")
        try Data(#"""
            {"name": "c", "command": {"argv": ["run", "{item}"], "items": {"command": ["list-tests", "--all"]},
             "cwd": "/srv/app"}, "axes": {"locale": ["en"]}}
            """#.utf8).write(to: url)
        var settings = PlanSettings()
        let runner = RecordedItemsRunner(output: ItemsCommandOutput(status: 0, standardOutput: Array("a\nb\n\na\n".utf8)))
        settings.itemsCommandRunner = runner
        let (plan, findings) = MatrixPlanner.load(matrixAt: url, settings: settings)
        #expect(findings.isEmpty, "\(findings)")
        #expect(plan?.jobs.map(\.scenario.title) == ["a", "b"])
        #expect(runner.calls.withLock { $0 } == [RecordedItemsRunner.Call(argv: ["list-tests", "--all"], workingDirectory: "/srv/app")])
        settings.itemsCommandRunner = RecordedItemsRunner(
            output: ItemsCommandOutput(status: 3, standardOutput: [], standardError: Array("broken\n".utf8)))
        let (failed, problems) = MatrixPlanner.load(matrixAt: url, settings: settings)
        #expect(failed == nil)
        #expect(problems.map(\.code) == ["MX029"])
        #expect(problems.first?.message.contains("status 3: broken") == true)
    }

    @Test("without a runner, planning runs no command: an items command is MX029, said plainly")
    func itemsCommandWithoutRunner() throws {
        let matrix = try Fixtures.brokenMatrix("MX029")
        let (plan, problems) = MatrixPlanner.load(matrixAt: matrix)
        #expect(plan == nil)
        #expect(problems.map(\.code) == ["MX029"])
        #expect(problems.first?.message.contains("was not run") == true)
    }

    @Test("the step argument carries the template with the item, canonically")
    func canonical() {
        let template = CommandTemplate(argv: ["pytest", "{item}"], environment: ["B": "2", "A": "1"], results: ["r.xml"])
        #expect(template.canonicalJSON(item: "t.py")
            == #"{"argv":["pytest","{item}"],"env":{"A":"1","B":"2"},"item":"t.py","name":"pytest","results":["r.xml"]}"#)
    }
}

/// An `ItemsCommandRunner` answering from memory and recording what it was asked to run.
final class RecordedItemsRunner: ItemsCommandRunner {
    struct Call: Hashable {
        var argv: [String]
        var workingDirectory: String?
    }

    let output: ItemsCommandOutput
    let calls = Mutex<[Call]>([])

    init(output: ItemsCommandOutput) { self.output = output }

    func run(_ argv: [String], workingDirectory: String?) throws -> ItemsCommandOutput {
        calls.withLock { $0.append(Call(argv: argv, workingDirectory: workingDirectory)) }
        return output
    }
}
