import FlowMatrixCLI
import Foundation
import MatrixPlan

extension BenchCommand {
    /// `flowmatrix bench reduction-limit`: how long pairwise generation takes as its estimated work grows, so the
    /// MX026 limit (`CoveringArray.Settings.maximumWork`) can be set from measured figures; and that a space far
    /// above the limit (100 axes × 100 values) is refused at once.
    static let reductionLimitSuite = BenchSuite(
        name: "reduction-limit",
        overview: "Pairwise generation time against its estimated work (the MX026 limit); 100×100 refused.",
        run: { quick in
            let limit = CoveringArray.Settings().maximumWork
            print("-- pairwise, no constraints, seed 0, uniform v^k: estimated work (value checks) vs time; limit "
                + String(format: "%.2g", limit))
            // Up to the limit (20^40 ≈ 5.0·10^8) and one set above it (20^50 ≈ 7.8·10^8).
            let sets: [(values: Int, axes: Int)] = quick ? [(5, 10)] : [(10, 30), (20, 30), (20, 40), (20, 50)]
            let clock = ContinuousClock()
            for (v, k) in sets {
                let levels = Array(repeating: v, count: k)
                let work = CoveringArray.estimatedWork(levels: levels, strength: 2)
                var settings = CoveringArray.Settings()
                settings.maximumWork = .infinity  // measure past the limit too
                var rows = 0
                let cpuBefore = DispatchBench.cpuSeconds(children: false)
                let elapsed = clock.measure {
                    rows = (try? CoveringArray.generate(levels: levels, strength: 2, seed: 0, settings: settings))?.count ?? -1
                }
                let cpu = DispatchBench.cpuSeconds(children: false) - cpuBefore
                let verdict = work > limit ? "refused by MX026" : "accepted"
                print("  " + "\(v)^\(k)".padding(toLength: 8, withPad: " ", startingAt: 0)
                    + String(format: "work %.2g  %6d rows  %7.2f s wall  %7.2f s CPU  %.2g checks/CPU-s  (%@)",
                             work, rows, seconds(elapsed), cpu, work / max(cpu, 1e-9), verdict))
                if seconds(elapsed) > 60 { print("  (stopping: over 60 s)"); break }
            }
            let huge = Array(repeating: 100, count: 100)
            var refusal = ""
            let refused = clock.measure {
                do { _ = try CoveringArray.generate(levels: huge, strength: 2, seed: 0) } catch { refusal = "\(error)" }
            }
            print(String(format: "  100^100  work %.2g: %@ in %.4f s", CoveringArray.estimatedWork(levels: huge, strength: 2),
                         refusal, seconds(refused)))
        }
    )
}
