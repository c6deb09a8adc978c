import DevTools
import FlowMatrixCLI
import FlowSpec
import Foundation
import WebRegistry

extension WebBench {
    /// The accessibility audit's cost per step (`assert page accessible`; target ≤ 30 ms on the sample pages): the
    /// audit alone, repeated on the shop's catalog and on its open cart, in the bench's configuration.
    static func measureAuditCost(in browser: Browser, settings: WebSettings, quick: Bool) async throws {
        let registry = try await WebRegistry.open(in: browser, configuration: configuration, seed: 1, settings: settings)
        let steps = [
            Step(verb: .open, target: "index.html"), Step(verb: .wait, target: "catalog.item.1", arg: "10"),
        ]
        for step in steps { try await registry.execute(step) }
        let catalog = try await timeAudits(registry, count: quick ? 10 : 30)
        for step in [Step(verb: .tap, target: "catalog.item.1.add"), Step(verb: .tap, target: "header.cart"),
                     Step(verb: .wait, target: "cart.total", arg: "5")] {
            try await registry.execute(step)
        }
        let cart = try await timeAudits(registry, count: quick ? 10 : 30)
        // What one page round trip costs here (`Runtime.evaluate` of `1`): the floor under any per-step check.
        var trips: [Double] = []
        for _ in 0..<(quick ? 10 : 30) {
            let t = ContinuousClock.now
            _ = try await registry.page.send("Runtime.evaluate", ["expression": "1", "returnByValue": true])
            trips.append(seconds(ContinuousClock.now - t))
        }
        try await registry.page.dispose()
        print(String(format: "page round trip (Runtime.evaluate of 1): median %.1f ms", median(trips) * 1000))
        for (page, times) in [("catalog", catalog), ("open cart", cart)] {
            let sorted = times.sorted()
            let p90 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))]
            print(String(format: "audit per step (%@): median %.1f ms, p90 %.1f ms of %d (target ≤ 30 ms)",
                         page, median(times) * 1000, p90 * 1000, times.count))
        }
    }

    private static func timeAudits(_ registry: WebRegistry, count: Int) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<count {
            let t = ContinuousClock.now
            let findings = try await registry.audit()
            times.append(seconds(ContinuousClock.now - t))
            guard findings.isEmpty else {
                throw CommandFailure("the sample shop has audit findings in the bench's configuration: \(findings)",
                                     exitCode: ExitCode.failures)
            }
        }
        return times
    }
}
