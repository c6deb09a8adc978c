import FlowVocabulary
import Foundation
import Journal
import Reports
import RunControl

/// `flowmatrix diff RUN_A RUN_B`: what changed between two runs, by job id.
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        overview: "Compare two runs by job id: new failures, fixed, newly flaky, slower, added, removed.",
        forms: ["<run-a> <run-b>"],
        arguments: [
            ("<run-a>", "The base run (e.g. last night's)."),
            ("<run-b>", "The run to compare with it ('last' for the most recent run)."),
        ],
        options: [
            CommandOption("--json", help: "Print the diff as JSON (categories of job entries, plus hasRegressions)."),
            CommandOption("--threshold", value: .text("<percent>"),
                          help: "A job slower by more than this counts as a duration regression.", default: .value("20%")),
            CommandOption("--min-delta", value: .text("<seconds>"), help: "… and by at least this many seconds.",
                          default: .value("0.1")),
            .store("The store directory with journal.sqlite."),
        ],
        discussion: """
            Categories: new failures, newly flaky, duration regressions, still failing, fixed, no longer flaky,
            other outcome changes, added and removed jobs (docs/REPORTS.md).
            Runs of different matrices (the journal's matrix names differ) are compared only on the jobs both have:
            a warning says so first, and the jobs of one run only are counted there, not listed as added, removed
            or new failures (--json: "differentMatrices").
            EXIT CODES: 0 no regressions, 1 regressions (new failures, newly flaky jobs or duration regressions),
            2 unknown run or unreadable journal, 64 usage error.
            """,
        run: { args in
            let json = args.has("--json")
            let store = args.value("--store") ?? ".flowmatrix"
            let threshold = try parsePercent(args.value("--threshold") ?? "20%")
            let minimumDelta = try parseSeconds(args.value("--min-delta") ?? "0.1")
            let positionals = try args.positionals(atMost: 2)
            guard positionals.count == 2 else { throw UsageError("name two runs: <run-a> <run-b>") }
            let reader = try StoreAccess.reader(store: URL(fileURLWithPath: store))
            let base = try StoreAccess.resolveRun(positionals[0], reader: reader)
            let head = try StoreAccess.resolveRun(positionals[1], reader: reader)
            var diff: RunDiff
            do {
                diff = try RunDiff.compute(reader: reader, base: base, head: head, durationThreshold: threshold,
                                           minimumDelta: minimumDelta)
                // Steps whose picture changed against its visual baseline only in head (docs/VISUAL.md).
                diff.addVisualChanges(runsFolder: URL(fileURLWithPath: store).appendingPathComponent("runs"))
            } catch let error as ReportError {
                throw CommandFailure(error.message, exitCode: ExitCode.ioError)
            } catch let error as JournalError {
                throw CommandFailure(error.userText, exitCode: ExitCode.ioError)
            }
            if json {
                print(String(decoding: diff.json(), as: UTF8.self))
            } else {
                print(TerminalText.escaped(diff.text, keepingNewlines: true), terminator: "")
                // What `flowmatrix isolate` confirmed about either run (docs/ISOLATE.md).
                for run in [base, head] {
                    for line in IsolateCommand.isolationLines(store: RunStore(path: store), runID: run) { print(line) }
                }
            }
            return diff.hasRegressions ? ExitCode.failures : ExitCode.success
        }
    )

    /// `20%` or `20` → 0.2.
    static func parsePercent(_ text: String) throws -> Double {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let value = Double(number), value.isFinite, value >= 0 else {
            throw UsageError("'--threshold' takes a percentage such as 20% or 20, not '\(text)'")
        }
        return value / 100
    }

    static func parseSeconds(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw UsageError("'--min-delta' takes seconds such as 0.1, not '\(text)'")
        }
        return value
    }
}
