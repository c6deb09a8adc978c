import FlowSpec
import Foundation
import MatrixPlan

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

    /// Validates every path: matrix files each with their corpus, scenario files and folders together as one corpus.
    ///
    /// A path is a matrix file when it is a regular file whose JSON is an object with an `axes` member.
    static func validate(paths: [String]) -> [ValidationFinding] {
        var findings: [ValidationFinding] = []
        var scenarioURLs: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            if isMatrixFile(url) {
                findings += MatrixPlanner.validate(matrixAt: url).1
            } else {
                scenarioURLs.append(url)
            }
        }
        if !scenarioURLs.isEmpty { findings += ScenarioLoader.loadCorpus(paths: scenarioURLs).findings }
        return findings.sortedForDisplay()
    }

    /// True when `url` is a file holding a JSON object with an `axes` member (or, when the JSON is malformed,
    /// whose text contains `"axes"`, so its syntax error is reported as MX001).
    static func isMatrixFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = try? Data(contentsOf: url)
        else { return false }
        guard let root = try? JSONParser.parse(Array(data)) else {
            return String(decoding: data, as: UTF8.self).contains("\"axes\"")
        }
        return MatrixFile.looksLikeMatrix(root)
    }
}
