import FlowSpec
import FlowVocabulary
import Foundation
import Journal
import MatrixPlan
import RunControl

/// `flowmatrix runs` and `flowmatrix show`: what the journal holds.
enum RunsCommand {
    static let spec = CommandSpec(
        name: "runs",
        overview: "List the runs in the journal, newest first; delete old runs.",
        forms: ["", "delete (<run-id>... | --older-than <age> | --keep <n>) [--force] [--dry-run] [--store <dir>]"],
        options: [
            .store(),
            CommandOption("--limit", value: .integer("<n>", 1...10_000), help: "At most this many runs.",
                          default: .described("20")),
            CommandOption("--older-than", value: .text("<age>"),
                          help: "delete: runs started more than <age> ago: <n>d (days) or <n>h (hours), e.g. 30d."),
            CommandOption("--keep", value: .integer("<n>", 0...1_000_000),
                          help: "delete: keep the newest <n> runs, delete the rest (with --older-than: only older ones)."),
            CommandOption("--force", help: "delete: also delete runs still marked running (their coordinator may be alive)."),
            CommandOption("--dry-run", help: "delete: print what would be deleted, delete nothing."),
        ],
        subcommands: [("delete", "Delete runs (their jobs, attempts, steps, results and artifact references) and report folders.")],
        discussion: """
            'runs delete' works in one journal transaction, safely beside a live coordinator; a run still marked
            running is kept unless --force (finish it with 'flowmatrix run --resume <run-id>'). Blobs are not
            touched: run 'flowmatrix gc' afterwards to free those no remaining run references.
            EXIT CODES: 0 listed / deleted (or nothing matched); 1 a selected run was kept because it is still
            running; 2 no journal, journal error, or an unknown <run-id>; 64 usage error.
            """,
        run: { args in
            let store = RunStore(path: args.value("--store"))
            let limit = args.integer("--limit")
            let olderThan = args.value("--older-than")
            let keep = args.integer("--keep")
            let force = args.has("--force")
            let dryRun = args.has("--dry-run")
            var positional = args.positionals
            if positional.first == "delete" {
                positional.removeFirst()
                guard limit == nil else { throw UsageError("'--limit' lists runs; 'runs delete' does not take it") }
                let age = try olderThan.map(parseAge)
                guard !positional.isEmpty || age != nil || keep != nil else {
                    throw UsageError("'runs delete' needs run ids, --older-than <age> or --keep <n>")
                }
                guard positional.isEmpty || (age == nil && keep == nil) else {
                    throw UsageError("give run ids, or --older-than/--keep, not both")
                }
                try store.requireJournal()
                return try delete(store: store, ids: positional, olderThan: age, keep: keep, force: force, dryRun: dryRun)
            }
            guard olderThan == nil, keep == nil, !force, !dryRun else {
                throw UsageError("--older-than, --keep, --force and --dry-run belong to 'runs delete'")
            }
            if let first = positional.first { throw UsageError("unexpected argument '\(first)' (did you mean 'runs delete'?)") }
            try store.requireJournal()
            let reader = try JournalReader(path: store.journalPath)
            let runs = try reader.runs(limit: limit ?? 20)
            if runs.isEmpty { print("no runs yet") }
            for run in runs {
                let o = run.outcomes
                print("\(run.info.runID.terminalSafe)  \(run.status.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))  "
                      + "\(run.info.matrixName.terminalSafe)\(run.scaleOutNote)  \(run.jobCount) jobs: \(o[.passed] ?? 0) passed, \(o[.failed] ?? 0) failed, "
                      + "\(o[.flaky] ?? 0) flaky, \((o[.timedOut] ?? 0) + (o[.quarantined] ?? 0)) timed out/quarantined")
            }
            return ExitCode.success
        }
    )

    /// `<n>d` or `<n>h` as seconds.
    static func parseAge(_ text: String) throws -> TimeInterval {
        let unit = text.last
        guard let unit, unit == "d" || unit == "h", let n = Int(text.dropLast()), n >= 0, n <= 36_500 * 24 else {
            throw UsageError("'--older-than' takes <n>d (days) or <n>h (hours), e.g. 30d, not '\(text)'")
        }
        return TimeInterval(n) * (unit == "d" ? 86_400 : 3_600)
    }

    /// `runs delete`: selects the runs, deletes them in one journal transaction, removes their report folders.
    static func delete(store: RunStore, ids: [String], olderThan age: TimeInterval?, keep: Int?, force: Bool,
                       dryRun: Bool) throws -> Int32 {
        let reader = try JournalReader(path: store.journalPath)
        var selected: [String]
        if ids.isEmpty {
            let runs = try reader.runs(limit: Int(Int32.max))  // newest first
            let cutoff = age.map { Date().addingTimeInterval(-$0) }
            selected = runs.enumerated().filter { index, run in
                (keep.map { index >= $0 } ?? true) && (cutoff.map { run.info.startedAt < $0 } ?? true)
            }.map(\.element.info.runID)
        } else {
            selected = []
            for id in ids {
                guard let runID = try reader.resolveRunID(id) else {
                    throw CommandFailure("no run '\(id.terminalSafe)' in \(store.journalPath); nothing deleted")
                }
                selected.append(runID)
            }
        }
        if dryRun {
            for id in selected { print("would delete run \(id.terminalSafe)") }
            print("\(selected.count) run(s) would be deleted")
            return ExitCode.success
        }
        let result = try JournalPruner(path: store.journalPath).deleteRuns(selected, includingRunning: force)
        for id in result.deleted {
            let folder = store.runFolder(id)
            if FileManager.default.fileExists(atPath: folder.path) {
                do { try FileManager.default.removeItem(at: folder) } catch {
                    FlowMatrixCLI.writeError("warning: run \(id) deleted, but its folder \(folder.path) stays: \(FileErrorText.reason(error))\n")
                }
            }
        }
        for id in result.skippedRunning {
            FlowMatrixCLI.writeError("kept run \(id.terminalSafe): it is still marked running (finish it with 'flowmatrix run --resume \(id)', or pass --force)\n")
        }
        print("deleted \(result.deleted.count) run(s)" + (result.deleted.isEmpty ? "" : ": " + result.deleted.map(\.terminalSafe).joined(separator: ", "))
            + "; run 'flowmatrix gc' to free blobs no remaining run references")
        return result.skippedRunning.isEmpty ? ExitCode.success : ExitCode.failures
    }

    static let showSpec = CommandSpec(
        name: "show",
        overview: "Print a run's outcome per job.",
        forms: ["<run-id>"],
        arguments: [("<run-id>", "A run id from 'flowmatrix runs' (or 'last').")],
        options: [.store(), CommandOption("--failed", help: "Only jobs that did not pass.")],
        discussion: """
            Messages and names are printed with control characters (ESC, BEL, NUL, …) and bidirectional
            overrides written as \\u{XX}, so stored text cannot drive the terminal. The last line counts the
            jobs per outcome (jobs, as summary.json's counts and the report's; junit.xml counts test cases).
            EXIT CODES: as 'run' exited for the run: 0 no job failed, timed out or was quarantined (jobs that never
            ran in a completed run do not count), 1 some job did, or the run did not complete and jobs of it never
            ran; 2 no journal or no such run, 64 usage error.
            """,
        run: { args in
            let store = RunStore(path: args.value("--store"))
            let failedOnly = args.has("--failed")
            let ids = args.positionals
            guard ids.count == 1, let requested = ids.first else { throw UsageError("give one <run-id>") }
            try store.requireJournal()
            let reader = try JournalReader(path: store.journalPath)
            guard let runID = try reader.resolveRunID(requested), let run = try reader.run(runID) else {
                throw CommandFailure(requested == "last" ? "the journal has no runs" : "no run '\(requested)'")
            }
            let code = try show(reader, run: run, failedOnly: failedOnly) { print($0) }
            for line in IsolateCommand.isolationLines(store: store, runID: runID) { print(line) }
            return code
        }
    )

    /// `show`'s lines for `run`, one at a time to `emit`: a header, a line per job (with its failing step and, for a
    /// command job that did not pass, its tests that did not), and the jobs per outcome — the counts of
    /// `summary.json` and the report, in jobs (junit.xml counts test cases). Returns the exit code: ``RunVerdict``'s
    /// (as `run` and `merge` exit for the same run), and 1 for a run that did not complete with jobs that never ran.
    static func show(_ reader: JournalReader, run: RunSummary, failedOnly: Bool, emit: (String) -> Void) throws -> Int32 {
        let runID = run.info.runID
        emit("run \(runID) (\(run.status.rawValue)): \(run.info.matrixName.terminalSafe)\(run.scaleOutNote), \(run.jobCount) jobs")
        var counts: [JobOutcome: Int] = [:]
        for row in try reader.jobs(run: runID) {
            let outcome = row.result?.outcome.rawValue ?? row.state.rawValue
            counts[row.result?.outcome ?? .notRun, default: 0] += 1
            let passed = row.result?.outcome == .passed || row.result?.outcome == .flaky
            if failedOnly && passed { continue }
            var line = "\(row.job.jobID)  \(outcome.padding(toLength: 11, withPad: " ", startingAt: 0))  "
                + "\(row.job.scenarioID.terminalSafe) [\(row.job.configuration.terminalSafe)]"
            if let r = row.result, r.attempts > 1 { line += "  attempts: \(r.attempts)" }
            if let r = row.result, let step = r.failureStep {
                line += "\n    step \(step + 1): " + (r.failureMessage ?? "").terminalSafeLines(indent: "      ")
            } else if let r = row.result, let m = r.failureMessage {
                line += "\n    " + m.terminalSafeLines(indent: "      ")
            }
            if row.job.registry == CommandTemplate.registry, !(row.result?.outcome == .passed) {
                line += try testLines(reader, runID: runID, row: row)
            }
            emit(line)
        }
        let count = { (o: JobOutcome) in counts[o] ?? 0 }
        emit("jobs: \(count(.passed)) passed, \(count(.failed)) failed, \(count(.flaky)) flaky, \(count(.timedOut)) timed out, "
            + "\(count(.quarantined)) quarantined, \(count(.notRun) + count(.cancelled)) not run")
        // The exit rule of `run` and `merge` for a completed run (jobs that never ran — fail-fast, cancelled — do not
        // fail it); a run that did not complete is not green while jobs of it never ran.
        let verdict = RunVerdict.exitCode(strict: false, count: count)
        let unfinished = run.status != .completed && count(.notRun) + count(.cancelled) > 0
        return unfinished ? ExitCode.failures : verdict
    }

    /// A command job's tests that did not pass in some attempt, each with its outcome per attempt
    /// (`test:suite.test_a: failed, passed` is a test that was flaky) and, under it, its own assertion text from
    /// the last attempt it failed in.
    static func testLines(_ reader: JournalReader, runID: String, row: JobRow) throws -> String {
        let attempts = try reader.attempts(run: runID, job: row.job.jobID).map(\.attempt)
        var byTest: [(name: String, outcomes: [String], message: String?)] = []
        for (n, attempt) in attempts.enumerated() {
            let steps = try reader.steps(run: runID, job: row.job.jobID, attempt: attempt)
            for step in steps where CommandTemplate.isTestStep(step.key) {
                let failing = step.outcome != .passed && step.outcome != .skipped
                let i = byTest.firstIndex { $0.name == step.key } ?? {
                    byTest.append((step.key, Array(repeating: "-", count: n), nil))
                    return byTest.count - 1
                }()
                byTest[i].outcomes.append(step.outcome.rawValue)
                if failing, let message = step.message, !message.isEmpty { byTest[i].message = message }
            }
        }
        return byTest.filter { $0.outcomes.contains { $0 != "passed" && $0 != "skipped" && $0 != "-" } }.map { test in
            "\n    \(test.name.terminalSafe): \(test.outcomes.joined(separator: ", "))"
                + (test.message.map { "\n      " + Self.firstLines($0, 12).terminalSafeLines(indent: "      ") } ?? "")
        }.joined()
    }

    /// The first `count` lines of `text`, and how many more there are (a traceback can run to hundreds).
    static func firstLines(_ text: String, _ count: Int) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > count else { return text }
        return lines.prefix(count).joined(separator: "\n") + "\n… \(lines.count - count) more line(s) in the report"
    }
}
