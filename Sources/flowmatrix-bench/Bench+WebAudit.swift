import DevTools
import FlowMatrixCLI
import FlowSpec
import Foundation
import WebRegistry

extension WebBench {
    /// The accessibility audit's cost per step (`assert page accessible`; target ≤ 30 ms on the sample pages): the
    /// audit alone, repeated on the shop's catalog and on its open cart, in the bench's configuration; beside it the
    /// same audit reading names from the whole accessibility tree (the path the fast one replaced).
    static func measureAuditCost(in browser: Browser, settings: WebSettings, quick: Bool) async throws {
        let registry = try await WebRegistry.open(in: browser, configuration: configuration, seed: 1, settings: settings)
        let steps = [
            Step(verb: .open, target: "index.html"), Step(verb: .wait, target: "catalog.item.1", arg: "10"),
        ]
        for step in steps { try await registry.execute(step) }
        let count = quick ? 10 : 30
        let catalog = try await timeAudits(registry, count: count)
        let catalogTree = try await timeAudits(registry, count: count, names: .fullTree)
        for step in [Step(verb: .tap, target: "catalog.item.1.add"), Step(verb: .tap, target: "header.cart"),
                     Step(verb: .wait, target: "cart.total", arg: "5")] {
            try await registry.execute(step)
        }
        let cart = try await timeAudits(registry, count: count)
        let cartTree = try await timeAudits(registry, count: count, names: .fullTree)
        // What one page round trip costs here (`Runtime.evaluate` of `1`): the floor under any per-step check.
        var trips: [Double] = []
        for _ in 0..<(quick ? 10 : 30) {
            let t = ContinuousClock.now
            _ = try await registry.page.send("Runtime.evaluate", ["expression": "1", "returnByValue": true])
            trips.append(seconds(ContinuousClock.now - t))
        }
        try await registry.page.dispose()
        print(String(format: "page round trip (Runtime.evaluate of 1): median %.1f ms", median(trips) * 1000))
        for (page, times, tree) in [("catalog", catalog, catalogTree), ("open cart", cart, cartTree)] {
            print(String(format: "audit per step (%@): median %.1f ms, p95 %.1f ms of %d (target ≤ 30 ms); names from the whole tree instead: median %.1f ms, p95 %.1f ms",
                         page, median(times) * 1000, percentile(times, 0.95) * 1000, times.count,
                         median(tree) * 1000, percentile(tree, 0.95) * 1000))
        }
    }

    static func percentile(_ xs: [Double], _ p: Double) -> Double {
        let sorted = xs.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    private static func timeAudits(
        _ registry: WebRegistry, count: Int, names: AuditNameSource = .automatic
    ) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<count {
            let t = ContinuousClock.now
            let findings = try await registry.audit(names: names)
            times.append(seconds(ContinuousClock.now - t))
            guard findings.isEmpty else {
                throw CommandFailure("the sample shop has audit findings in the bench's configuration: \(findings)",
                                     exitCode: ExitCode.failures)
            }
        }
        return times
    }
}
