import Foundation
import Journal

/// `flowmatrix runs` and `flowmatrix show`: what the journal holds.
enum RunsCommand {
    static let spec = CommandSpec(
        name: "runs",
        overview: "List the runs in the journal, newest first.",
        usage: "runs [--store <dir>] [--limit <n>]",
        options: [("--store <dir>", "The store (default: .flowmatrix)."), ("--limit <n>", "At most this many runs (default 20).")],
        run: { args in
            let store = StoreLayout(try args.option("--store"))
            let limit = try args.intOption("--limit", in: 1...10_000) ?? 20
            try args.finish()
            try store.requireJournal()
            let reader = try JournalReader(path: store.journalPath)
            let runs = try reader.runs(limit: limit)
            if runs.isEmpty { print("no runs yet") }
            for run in runs {
                let o = run.outcomes
                print("\(run.info.runID)  \(run.status.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))  "
                      + "\(run.info.matrixName.terminalSafe)  \(run.jobCount) jobs: \(o[.passed] ?? 0) passed, \(o[.failed] ?? 0) failed, "
                      + "\(o[.flaky] ?? 0) flaky, \((o[.timedOut] ?? 0) + (o[.quarantined] ?? 0)) timed out/quarantined")
            }
            return ExitCode.success
        }
    )

    static let showSpec = CommandSpec(
        name: "show",
        overview: "Print a run's outcome per job.",
        usage: "show <run-id> [--store <dir>] [--failed]",
        arguments: [("<run-id>", "A run id from 'flowmatrix runs' (or 'last').")],
        options: [("--store <dir>", "The store (default: .flowmatrix)."), ("--failed", "Only jobs that did not pass.")],
        discussion: "EXIT CODES: 0 every job passed, 1 some job did not, 2 no such run.",
        run: { args in
            let store = StoreLayout(try args.option("--store"))
            let failedOnly = args.flag("--failed")
            let ids = try args.positionals()
            guard ids.count == 1, var runID = ids.first else { throw UsageError("give one <run-id>") }
            try store.requireJournal()
            let reader = try JournalReader(path: store.journalPath)
            if runID == "last" {
                guard let last = try reader.latestRunID() else { throw CommandFailure("the journal has no runs") }
                runID = last
            }
            guard let run = try reader.run(runID) else { throw CommandFailure("no run '\(runID)'") }
            print("run \(runID) (\(run.status.rawValue)): \(run.info.matrixName.terminalSafe), \(run.jobCount) jobs")
            var allPassed = true
            for row in try reader.jobs(run: runID) {
                let outcome = row.result?.outcome.rawValue ?? row.state.rawValue
                let passed = row.result?.outcome == .passed || row.result?.outcome == .flaky
                if !passed { allPassed = false }
                if failedOnly && passed { continue }
                var line = "\(row.job.jobID)  \(outcome.padding(toLength: 11, withPad: " ", startingAt: 0))  "
                    + "\(row.job.scenarioID.terminalSafe) [\(row.job.configuration.terminalSafe)]"
                if let r = row.result, r.attempts > 1 { line += "  attempts: \(r.attempts)" }
                if let r = row.result, let step = r.failureStep { line += "\n    step \(step): \((r.failureMessage ?? "").terminalSafe)" } else if
                    let r = row.result, let m = r.failureMessage { line += "\n    \(m.terminalSafe)" }
                print(line)
            }
            return allPassed ? ExitCode.success : ExitCode.failures
        }
    )
}
