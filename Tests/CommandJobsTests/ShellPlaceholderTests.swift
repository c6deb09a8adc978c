@testable import CommandJobs
import FlowSpec
import Foundation
import MatrixPlan
import Testing
import Worker

@Suite("shell commands get their placeholders as variables, never as script text")
struct ShellPlaceholderTests {
    /// A value that runs commands if it is ever pasted into a script, whatever the quotes around it.
    static let hostile = #"x; touch PWNED $(touch PWNED2) `touch PWNED3` ' " \ $HOME"#

    @Test("an axis value with shell syntax in it creates no file, and reaches the command as written, in any quoting")
    func noInjection() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let script = #"printf '%s|' {locale} "q:{locale}" 'r:{locale}' "$(printf '%s' {locale})" "`echo s`:{locale}"; printf '%s' "$FLOWMATRIX_LOCALE""#
        let run = await Attempt(CommandTemplate(argv: [script], shell: true, workingDirectory: folder.url.path),
                                configuration: ["locale": Self.hostile])
        #expect(run.error == nil, "\(run.message)")
        let made = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(made.isEmpty, "the value ran as script text: \(made)")
        let v = Self.hostile
        #expect(try run.text("stdout.log") == "\(v)|q:\(v)|r:\(v)|\(v)|s:\(v)|\(v)")
    }

    @Test("the script is rendered with references fitting each quoting; values go to the environment")
    func rendering() {
        let context = JobContext(jobID: "0123456789abcdef", attempt: 1, configuration: ["locale": "ar", "window.x": "1"],
                                 seed: 1, timeout: .seconds(1), scenario: Scenario(id: "s", title: "s", steps: []))
        let values = PlaceholderValues(context: context, item: nil, output: "/out")
        let (script, environment) = ShellScript.render(
            #"a {locale} "b {locale}" 'c {locale}' \'{locale} "$(d {locale} ")" {{x}})" {raw:locale} {job.id}"#, values: values)
        #expect(script == #"a "${FLOWMATRIX_LOCALE}" "b ${FLOWMATRIX_LOCALE}" 'c '"${FLOWMATRIX_LOCALE}"'' \'"${FLOWMATRIX_LOCALE}" "$(d "${FLOWMATRIX_LOCALE}" ")" {x})" ar "${FLOWMATRIX_JOB_ID}""#,
                "\(script)")
        #expect(environment == ["FLOWMATRIX_LOCALE": "ar", "FLOWMATRIX_JOB_ID": "0123456789abcdef"])
        #expect(Placeholder.variable("window.width") == "FLOWMATRIX_WINDOW_WIDTH")
        #expect(Placeholder.variable("device.testLanguage") == "FLOWMATRIX_DEVICE_TESTLANGUAGE")
    }

    @Test("{raw:name} pastes the value as script text, as the matrix asked")
    func rawPlaceholder() async throws {
        let folder = try ScratchFolder()
        defer { folder.cleanUp() }
        let run = await Attempt(CommandTemplate(argv: ["echo {raw:locale}"], shell: true, workingDirectory: folder.url.path),
                                configuration: ["locale": "x; touch PWNED"])
        #expect(run.error == nil, "\(run.message)")
        #expect(FileManager.default.fileExists(atPath: folder.path("PWNED")))
    }

    static func parse(_ command: String) -> (MatrixFile?, [ValidationFinding]) {
        MatrixFile.parse(Array(#"{"name": "m", "command": \#(command), "axes": {"locale": ["en"], "a-b": ["1"], "a_b": ["2"]}}"#.utf8),
                         file: "m.json")
    }

    @Test("validate warns MX030 for a raw placeholder in a shell script, and the matrix still plans")
    func rawWarning() throws {
        let (matrix, findings) = Self.parse(#"{"argv": ["echo {raw:locale} {locale}"], "shell": true}"#)
        #expect(findings.isEmpty, "\(findings)")
        let warnings = try #require(matrix).warnings
        #expect(warnings.map(\.code) == ["MX030"])
        #expect(warnings.first?.isWarning == true)
        #expect(warnings.first?.description.contains("m.json:1:") == true)
        #expect(warnings.first?.message.contains("'{raw:locale}' pastes the value into the shell script") == true)
        #expect(warnings.first?.message.contains("\"${FLOWMATRIX_LOCALE}\"") == true)
        #expect(try #require(Self.parse(#"{"argv": ["echo {locale}"], "shell": true}"#).0).warnings.isEmpty)
    }

    @Test("a raw placeholder outside a shell script is MX027; two placeholders sharing a variable are MX028")
    func rawElsewhereAndCollisions() {
        let (_, plain) = Self.parse(#"{"argv": ["echo", "{raw:locale}"]}"#)
        #expect(plain.map(\.code) == ["MX027"], "\(plain)")
        #expect(plain.first?.message.contains("only the script of a \"shell\": true command") == true)
        let (_, env) = Self.parse(#"{"argv": ["true {locale}"], "shell": true, "env": {"X": "{raw:locale}"}}"#)
        #expect(env.map(\.code) == ["MX027"], "\(env)")
        let (_, shared) = Self.parse(#"{"argv": ["echo {a-b} {a_b}"], "shell": true}"#)
        #expect(shared.map(\.code) == ["MX028"], "\(shared)")
        #expect(shared.first?.message.contains("would both reach the script as $FLOWMATRIX_A_B") == true)
    }
}
