import FlowSpec
import Foundation

/// `flowmatrix validate PATH…`: every finding of scenario files and corpus folders, in one pass.
enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        overview: "Check scenario files, corpus folders and matrix files; report every finding.",
        usage: "validate [--json] <path> ...",
        arguments: [("<path>", "A scenario file (.json), a corpus folder, or a matrix file.")],
        options: [("--json", "Print findings as a JSON array of {file, code, path, line, column, message}.")],
        discussion: """
            Prints each finding as 'file:line:column: CODE message (at json-path)'. Rule codes are listed in
            docs/SCENARIOS.md (FS…) and docs/MATRIX.md (MX…).
            EXIT CODES: 0 no findings, 1 findings, 64 usage error.
            """,
        run: { args in
            let json = args.flag("--json")
            let paths = try args.positionals()
            guard !paths.isEmpty else { throw UsageError("missing <path>") }
            let findings = validate(paths: paths)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = try encoder.encode(findings)
                print(String(decoding: data, as: UTF8.self))
            } else {
                for finding in findings { print(finding.description) }
            }
            return findings.isEmpty ? ExitCode.success : ExitCode.failures
        }
    )

    /// Validates every path: scenario files and folders together as one corpus.
    static func validate(paths: [String]) -> [ValidationFinding] {
        let urls = paths.map { URL(fileURLWithPath: $0) }
        return ScenarioLoader.loadCorpus(paths: urls).findings
    }
}
