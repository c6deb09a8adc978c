import DevTools
import FlowMatrixCLI
import FlowSpec
import Foundation
import Synchronization
import WebRegistry

extension BenchCommand {
    /// `flowmatrix bench web`: the web registry in real Chromium, beside Playwright for Python when installed.
    static let webSuite = BenchSuite(
        name: "web",
        overview: "Real Chromium: browser start, per-job overhead, a 10-step job, jobs/s with 2 workers vs Playwright.",
        missing: {
            BrowserSettings().resolvedExecutable() == nil
                ? "no Chromium found (install Debian's chromium, or set FLOWMATRIX_CHROMIUM)" : nil
        },
        run: { quick in try await WebBench.run(quick: quick) }
    )
}

/// The web bench. Both sides run the same 10-step scenario on the sample shop (Workers/Web/site, served once by
/// this process), take a PNG screenshot after every step, give every job a fresh browser context, and use two
/// processes with one browser each.
enum WebBench {
    static var siteFolder: URL {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            "Workers/Web/site")
        if FileManager.default.fileExists(atPath: here.path) { return here }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Workers/Web/site")
    }

    /// The 10 steps, as FlowSpec (here) and as Playwright calls (`playwrightSteps`).
    static let scenario = Scenario(
        id: "bench-cart", title: "Add two lamps and change a quantity",
        steps: [
            Step(verb: .open, target: "index.html"),
            Step(verb: .wait, target: "catalog.item.1", arg: "10"),
            Step(verb: .tap, target: "catalog.item.1.add"),
            Step(verb: .tap, target: "catalog.item.2.add"),
            Step(verb: .assert, target: "header.cart-count", arg: "text=2"),
            Step(verb: .tap, target: "header.cart"),
            Step(verb: .wait, target: "cart.panel"),
            Step(verb: .tap, target: "cart.line.1.plus"),
            Step(verb: .assert, target: "cart.line.1.qty", arg: "text=2"),
            Step(verb: .tap, target: "cart.close"),
        ])

    /// `FLOWMATRIX_WEB_BENCH=audit` or `=throughput` runs that section alone (the other figures take minutes).
    static let only = ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_BENCH"].flatMap { $0.isEmpty ? nil : $0 }

    static func run(quick: Bool) async throws {
        let server = try StaticFileServer(root: siteFolder)
        defer { server.stop() }
        let base = server.baseURL
        if only == "throughput" { return try await WebThroughputBench.measureThroughput(base: base, quick: quick) }
        if only == "audit" {
            let browser = try await SharedBrowser().browser()
            defer { browser.close() }
            try await measureAuditCost(in: browser, settings: WebSettings(baseURL: base), quick: quick)
            if WebTimings.enabled { print("where the audit's time went (FLOWMATRIX_WEB_TIMING=1):\n\(WebTimings.report())") }
            return
        }
        try await measureBrowserStart(quick: quick)
        let shared = SharedBrowser()
        let browser = try await shared.browser()
        defer { browser.close() }
        let settings = WebSettings(baseURL: base)
        try await measureJobOverhead(in: browser, settings: settings, quick: quick)
        try await measureTenStepJobs(in: browser, settings: settings, quick: quick)
        try await measureRecordingCost(in: browser, settings: settings, quick: quick)
        try await measureAuditCost(in: browser, settings: settings, quick: quick)
        if WebTimings.enabled {
            print("where the time of sections 2 and 3 went (FLOWMATRIX_WEB_TIMING=1):\n\(WebTimings.report())")
        }
        try await WebThroughputBench.measureThroughput(base: base, quick: quick)
    }

    static let configuration = ["locale": "en", "window": "regular-square"]

    static func measureBrowserStart(quick: Bool) async throws {
        // 1. Browser start: launch until the first answer, then close.
        var starts: [Double] = []
        for _ in 0..<(quick ? 1 : 5) {
            let t = ContinuousClock.now
            let browser = try await Browser.launch()
            starts.append(seconds(ContinuousClock.now - t))
            browser.close()
        }
        print(
            String(
                format: "browser start (spawn → first DevTools answer): median %.0f ms of %d", median(starts) * 1000,
                starts.count))
    }

    static func measureJobOverhead(in browser: Browser, settings: WebSettings, quick: Bool) async throws {
        // 2. Per-job overhead: a fresh context with the configuration applied, then its disposal.
        var overheads: [Double] = []
        for _ in 0..<(quick ? 2 : 30) {
            let t = ContinuousClock.now
            let registry = try await WebRegistry.open(
                in: browser, configuration: configuration, seed: 1, settings: settings)
            try await registry.page.dispose()
            overheads.append(seconds(ContinuousClock.now - t))
        }
        print(
            String(
                format: "per-job overhead (context + emulation + teardown): median %.1f ms of %d",
                median(overheads) * 1000, overheads.count))
    }

    /// Returns the median wall time of a job.
    @discardableResult
    static func measureTenStepJobs(in browser: Browser, settings: WebSettings, quick: Bool) async throws -> Double {
        // 3. One 10-step job with a screenshot (and DOM) after every step, one after the other.
        var walls: [Double] = []
        var screenshots = 0
        let frames = ScreenshotCounter()
        for _ in 0..<(quick ? 2 : 20) {
            let t = ContinuousClock.now
            let registry = try await WebRegistry.open(
                in: browser, configuration: configuration, seed: 1, settings: settings)
            let counter = ScreenshotCounter()
            let runner = AsyncScenarioRunner(
                registry: registry,
                onStep: { record in
                    let evidence = await registry.evidence(afterStep: record.index, step: scenario.steps[record.index])
                    counter.add(evidence.filter { $0.name == "screenshot.png" }.count)
                    frames.add(evidence.filter { $0.name.hasPrefix("screencast-") }.count)
                })
            let result = await runner.run(scenario)
            guard result.passed else {
                throw CommandFailure("the bench scenario failed: \(result.outcome)", exitCode: ExitCode.failures)
            }
            try await WebTimings.measure("job: teardown") { try await registry.page.dispose() }
            walls.append(seconds(ContinuousClock.now - t))
            screenshots += counter.count
        }
        print(
            String(
                format: "10-step job with a screenshot per step, recording %@: median %.0f ms, mean %.0f ms of %d (%d screenshots, %d frames)",
                settings.recording ? "on" : "off", median(walls) * 1000, walls.reduce(0, +) / Double(walls.count) * 1000,
                walls.count, screenshots, frames.count))
        return median(walls)
    }

    final class ScreenshotCounter: Sendable {
        private let value = Mutex(0)
        func add(_ n: Int) { value.withLock { $0 += n } }
        var count: Int { value.withLock { $0 } }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.isEmpty ? 0 : s[s.count / 2]
    }
}
