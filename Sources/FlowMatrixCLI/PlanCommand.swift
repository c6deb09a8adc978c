import FlowSpec
import FlowVocabulary
import Foundation
import MatrixPlan
import RunConditions

/// `flowmatrix plan MATRIX`: the configurations and jobs a matrix expands to, with counts at each stage.
enum PlanCommand {
    static let spec = CommandSpec(
        name: "plan",
        overview: "Expand a matrix file into configurations and jobs, and show the counts at each stage.",
        forms: ["<matrix>"],
        arguments: [("<matrix>", "A matrix file (JSON), e.g. Matrices/nightly.json.")],
        options: [
            CommandOption("--json", help: "Print {\"configurations\": [...], \"jobs\": [...], \"counts\": {...}} (values as strings)."),
            CommandOption("--explain", value: .text("<query>"), help: "Say why a job (id), a configuration ('#n' or "
                + "'axis=value,…') exists, or why an assignment was dropped."),
            CommandOption("--device-args", help: "Print each configuration's XCUIApplication launch arguments and "
                + "xcodebuild flags and simulator settings (see docs/RUN-CONDITIONS.md)."),
            .maxJobs("The job limit: a plan with more jobs is finding MX025."),
        ],
        discussion: """
            The stages are: cartesian, after exclude, after include, after constraints, after reduction,
            scenarios selected, jobs. See docs/MATRIX.md for the format and the rule codes.
            A plan over the job limit (MX025) or a reduction too large to build (MX026) is refused before
            anything is listed.
            EXIT CODES: 0 planned, 1 the matrix or its corpus has findings (MX025/MX026 included), 2 unreadable
            file, 4 --explain cannot answer (the query names no job, configuration, axis or value of the plan),
            64 usage error.
            """,
        run: { args in
            let json = args.has("--json")
            let deviceArgs = args.has("--device-args")
            let explain = args.value("--explain")
            let settings = args.planSettings
            guard let path = try args.positionals(atMost: 1).first else { throw UsageError("missing <matrix>") }
            let url = URL(fileURLWithPath: path)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw CommandFailure("no matrix file at '\(path)'", exitCode: ExitCode.ioError)
            }
            let (plan, findings) = MatrixPlanner.load(matrixAt: url, settings: settings)
            guard let plan else {
                for finding in findings { FlowMatrixCLI.writeError(finding.description.terminalSafe + "\n") }
                FlowMatrixCLI.writeError("Error: '\(path)' has \(findings.count) finding\(findings.count == 1 ? "" : "s"); nothing planned\n")
                return ExitCode.failures
            }
            // Warnings (MX030) stop nothing; said on stderr, so the plan on stdout stays as it is.
            for warning in plan.matrix.warnings { FlowMatrixCLI.writeError(warning.description.terminalSafe + "\n") }
            if let explain {
                let (text, answered) = plan.explanation(explain)
                guard answered else {
                    FlowMatrixCLI.writeError("Error: cannot explain: \(text.terminalSafe)\n")
                    return ExitCode.unanswered
                }
                print(TerminalText.escaped(text, keepingNewlines: true))
                return ExitCode.success
            }
            if deviceArgs {
                for (index, configuration) in plan.configurations.enumerated() {
                    let device = DeviceArguments.for(configuration)
                    print("#\(index + 1) \(configuration.canonicalString.terminalSafe)")
                    print("  launch arguments: \(device.launchArguments.joined(separator: " "))")
                    print("  xcodebuild:       \(device.xcodebuildFlags.joined(separator: " "))")
                    print("  orientation \(device.orientation), window \(device.windowSize)")
                    for command in device.simulatorCommands { print("  simulator:        \(command)") }
                }
                return ExitCode.success
            }
            if json {
                print(plan.json())
                return ExitCode.success
            }
            print("matrix '\(plan.matrix.name.terminalSafe)' (\(plan.matrix.file.terminalSafe)) on \(plan.matrix.registries.count > 1 ? "registries" : "registry") "
                + plan.matrix.registries.map { "'\($0.terminalSafe)'" }.joined(separator: ", "))
            let width = plan.countLines.map(\.0.count).max() ?? 0
            for (name, value) in plan.countLines {
                print("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
            }
            for note in plan.notes { print("note: \(note)") }
            print("")
            print(TerminalText.escaped(plan.table(), keepingNewlines: true), terminator: "")
            return ExitCode.success
        }
    )
}
