import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `flowmatrix bench …`: the benchmark suites live in the `flowmatrix-bench` executable (so the shipped CLI links no
/// benchmark or test code); this command runs it from beside `flowmatrix` with the same arguments.
enum BenchLauncher {
    static let spec = CommandSpec(
        name: "bench",
        overview: "Run a benchmark suite and print its figures (build with -c release).",
        forms: ["[--quick] <suite> | all"],
        discussion: "Runs the flowmatrix-bench executable built beside flowmatrix ('swift build' builds it); "
            + "'flowmatrix bench --help' lists its suites.",
        forwardsArguments: true,
        run: { args in
            let bench = ProcessFacts.flowmatrix.deletingLastPathComponent().appendingPathComponent("flowmatrix-bench")
            guard FileManager.default.isExecutableFile(atPath: bench.path) else {
                throw CommandFailure("the benchmarks are in flowmatrix-bench, which is not built beside "
                    + "\(ProcessFacts.flowmatrix.path): build it with 'swift build -c release' (every product) or "
                    + "'swift build -c release --product flowmatrix-bench'")
            }
            let rest = args.positionals
            let argv = [bench.path] + rest
            // The suites print and time themselves; replace this process so signals and output go straight to them.
            var cArgs = argv.map { strdup($0) } + [nil]
            defer { for p in cArgs { free(p) } }
            execv(bench.path, &cArgs)
            throw CommandFailure("cannot start \(bench.path): \(String(cString: strerror(errno)))")
        }
    )
}
