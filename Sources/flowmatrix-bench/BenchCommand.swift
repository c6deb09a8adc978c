import FlowMatrixCLI
import Foundation

/// A benchmark suite run by `flowmatrix bench <name>`; it prints figures and ratios, never asserts time.
struct BenchSuite: Sendable {
    var name: String
    var overview: String
    /// Why the suite cannot run here (a helper executable it starts is missing), or nil. Peers it only compares
    /// with (python3, GNU parallel, Playwright) are not needs: the suite says "not installed" and goes on.
    var missing: @Sendable () -> String? = { nil }
    /// Runs the suite; `quick` shrinks the workload (used by tests to prove the suite works).
    var run: @Sendable (_ quick: Bool) async throws -> Void
}

/// `flowmatrix bench <suite>`: performance figures of a release build.
enum BenchCommand {
    /// Every suite. Add one by adding it here (one file per suite: `Bench+<Name>.swift`).
    static var suites: [BenchSuite] {
        [
            matrixSuite,
            reductionLimitSuite,
            WireBench.suite,
            DispatchBench.suite,
            DispatchBench.liveSuite,
            MakespanBench.suite,
            FloodBench.suite,
            CommandBench.suite,
            WorkerBench.suite,
            JournalBench.suite,
            ArtifactsBench.suite,
            IngestBench.suite,
            catalogSuite,
            ReportsBench.suite,
            ShardsBench.suite,
            webSuite,
            IsolateBench.suite,
        ]
    }

    static let spec = CommandSpec(
        name: "bench",
        overview: "Run a benchmark suite and print its figures (build with -c release).",
        usage: "bench [--quick] <suite> | all",
        arguments: [("<suite>", "One of the suites below, or 'all'.")],
        options: [("--quick", "A small workload, to check that the suite runs (figures are not meaningful).")],
        discussion: "SUITES:\n" + suites.map { suite in
            // The widest name sets the column; padding(toLength:) alone would cut longer names.
            let width = (suites.map(\.name.count).max() ?? 0) + 2
            return "  " + suite.name + String(repeating: " ", count: width - suite.name.count) + suite.overview
        }
            .joined(separator: "\n")
            + "\n'all' skips a suite whose helper executable is missing (test-worker, Chromium), saying why, and goes on."
            + "\nEXIT CODES: 0 done, 1 or 2 a suite failed, 2 the named suite's helper is missing, 64 usage error.",
        run: { args in
            let quick = args.flag("--quick")
            let names = try args.positionals()
            guard let name = names.first, names.count == 1 else { throw UsageError("name one suite, or 'all'") }
            let chosen = name == "all" ? suites : suites.filter { $0.name == name }
            guard !chosen.isEmpty else {
                throw UsageError("unknown suite '\(name)'; suites: \(suites.map(\.name).joined(separator: ", "))")
            }
            #if DEBUG
            print("note: this is a debug build; build with 'swift build -c release' for meaningful figures")
            #endif
            if name != "all", let reason = chosen[0].missing() {
                throw CommandFailure("bench \(name) cannot run: \(reason)", exitCode: ExitCode.ioError)
            }
            try await runAll(chosen, quick: quick)
            return ExitCode.success
        }
    )

    /// Runs `suites` in turn; one whose `missing` gives a reason is skipped with that reason (listed again at the end).
    static func runAll(_ suites: [BenchSuite], quick: Bool) async throws {
        var skipped: [String] = []
        for suite in suites {
            if let reason = suite.missing() {
                print("== bench \(suite.name): skipped: \(reason)")
                skipped.append(suite.name)
                continue
            }
            print("== bench \(suite.name): \(suite.overview)")
            try await suite.run(quick)
        }
        if !skipped.isEmpty {
            print("skipped \(skipped.count) suite(s) whose helpers are missing: \(skipped.joined(separator: ", "))")
        }
    }
}
