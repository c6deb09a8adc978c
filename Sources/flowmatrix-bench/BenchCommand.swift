import FlowMatrixCLI
import FlowVocabulary
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
            FleetBench.suite,
            CommandBench.suite,
            WorkerBench.suite,
            JournalBench.suite,
            ArtifactsBench.suite,
            IngestBench.suite,
            catalogSuite,
            ReportsBench.suite,
            MillionBench.suite,
            ShardsBench.suite,
            webSuite,
            WebBench.recordingSuite,
            IsolateBench.suite,
            VisualBench.suite,
        ]
    }

    static let spec = CommandSpec(
        name: "bench",
        overview: "Run a benchmark suite and print its figures (build with -c release).",
        forms: ["<suite>", "all [--quick]"],
        arguments: [("<suite>", "One of the suites below, or 'all'.")],
        options: [
            CommandOption("--quick", help: "A small workload, to check that the suite runs (figures are not meaningful)."),
            CommandOption("--workers", value: .text("<n,n…>"),
                          help: "bench fleet: the fleet sizes to simulate (default 100,1000,2000,5000,10000)."),
            CommandOption("--baseline", value: .text("<path>"),
                          help: "bench million: also run this flowmatrix binary, alternated A B B A (medians)."),
        ],
        discussion: "SUITES:\n" + suites.map { suite in
            // The widest name sets the column; padding(toLength:) alone would cut longer names.
            let width = (suites.map(\.name.count).max() ?? 0) + 2
            return "  " + suite.name + String(repeating: " ", count: width - suite.name.count) + suite.overview
        }
            .joined(separator: "\n")
            + "\n'all' skips a suite whose helper executable is missing (test-worker, Chromium), saying why, and goes on."
            + "\nEXIT CODES: 0 done, 1 or 2 a suite failed, 2 the named suite's helper is missing, 64 usage error.",
        run: { args in
            let quick = args.has("--quick")
            if let sizes = args.value("--workers") {
                let parsed = sizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 100_000 }) else {
                    throw UsageError("'--workers' takes fleet sizes from 1 to 100000 separated by commas, not '\(sizes)'")
                }
                FleetBench.requestedSizes.withLock { $0 = parsed.compactMap { $0 } }
            }
            let baseline = args.value("--baseline")
            let names = args.positionals
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
            if let baseline, !FileManager.default.isExecutableFile(atPath: baseline) {
                throw UsageError("--baseline '\(baseline)' is not an executable file")
            }
            try await MillionBench.$baseline.withValue(baseline) { try await runAll(chosen, quick: quick) }
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
