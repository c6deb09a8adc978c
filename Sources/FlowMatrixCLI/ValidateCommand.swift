import FlowSpec
import FlowVocabulary
import Foundation
import MatrixPlan

/// `flowmatrix validate PATH…`: every finding of scenario files and corpus folders, in one pass.
enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        overview: "Check scenario files, corpus folders and matrix files; report every finding.",
        forms: ["<path> ..."],
        arguments: [("<path>", "A scenario file (.json), a corpus folder, or a matrix file.")],
        options: [
            CommandOption("--json", help: "Print findings as a JSON array of {file, code, path, line, column, message[, warning]}."),
            .maxJobs("The job limit matrices are checked against (MX025)."),
            CommandOption("--worker-executable", value: .text("<p>"), help: "Check scenarios against the registry "
                + "manifests this worker publishes ('<p> --list-registries --json', 10 s at most) instead of the built-in ones."),
        ],
        discussion: """
            Prints each finding as 'file:line:column: CODE message (at json-path)', then what was checked:
            'N scenario files, M matrices: K findings' (to stderr with --json). A corpus folder with no
            scenario file is FS020. A matrix's selected scenarios are checked against its registry's manifest
            (built in: catalog, web, noop, command): a step it does not wire is FS021, an unknown assert clause
            FS022. Rule codes are listed in docs/SCENARIOS.md (FS…) and docs/MATRIX.md (MX…).
            A warning ('file:line:column: warning: CODE …', "warning": true in JSON) stops nothing.
            EXIT CODES: 0 no findings (or warnings only), 1 findings, 64 usage error.
            """,
        run: { args in
            let json = args.has("--json")
            var settings = args.planSettings
            if let worker = args.value("--worker-executable") {
                settings.registryManifests = try await PublishedRegistries.manifests(workerExecutable: worker)
            }
            let paths = args.positionals
            guard !paths.isEmpty else { throw UsageError("missing <path>") }
            let result = validate(paths: paths, settings: settings)
            let findings = result.findings
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = try encoder.encode(findings)
                print(String(decoding: data, as: UTF8.self))
                FlowMatrixCLI.writeError(result.summary + "\n")
            } else {
                for finding in findings { print(finding.description.terminalSafe) }
                print(result.summary)
            }
            return findings.allSatisfy(\.isWarning) ? ExitCode.success : ExitCode.failures
        }
    )

    /// What `validate` checked and found.
    struct Result {
        var findings: [ValidationFinding] = []
        /// Scenario files read (resolved paths): a file named directly and through a matrix counts once.
        var scenarioPaths = Set<String>()
        var matrices = 0
        var scenarioFiles: Int { scenarioPaths.count }

        /// `N scenario files, M matrices: K findings`.
        var summary: String {
            func count(_ n: Int, _ noun: String, _ plural: String) -> String { "\(n) \(n == 1 ? noun : plural)" }
            let warnings = findings.filter(\.isWarning).count
            return "checked " + count(scenarioFiles, "scenario file", "scenario files") + ", "
                + count(matrices, "matrix", "matrices") + ": " + count(findings.count - warnings, "finding", "findings")
                + (warnings == 0 ? "" : ", " + count(warnings, "warning", "warnings"))
        }
    }

    /// Validates every path: matrix files each with their corpus, scenario files and folders together as one corpus.
    ///
    /// A path is a matrix file when it is a regular file whose JSON is an object with an `axes` member.
    static func validate(paths: [String], settings: PlanSettings = PlanSettings()) -> Result {
        var result = Result()
        var scenarioURLs: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            if isMatrixFile(url) {
                let check = MatrixPlanner.check(matrixAt: url, settings: settings)
                result.findings += check.findings + check.warnings
                result.scenarioPaths.formUnion(check.scenarioFiles)
                result.matrices += 1
            } else {
                scenarioURLs.append(url)
            }
        }
        if !scenarioURLs.isEmpty {
            let corpus = ScenarioLoader.loadCorpus(paths: scenarioURLs)
            result.findings += corpus.findings
            result.scenarioPaths.formUnion(corpus.files)
        }
        result.findings = result.findings.sortedForDisplay()
        return result
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
