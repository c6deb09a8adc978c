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

    static func run(quick: Bool) async throws {
        let server = try StaticFileServer(root: siteFolder)
        defer { server.stop() }
        let base = server.baseURL
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
        try await measureThroughput(base: base, quick: quick)
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

    static func measureThroughput(base: URL, quick: Bool) async throws {
        // 4. Throughput: `flowmatrix run` with 2 local workers (one browser each), beside Playwright with 2 processes.
        let jobs = quick ? 4 : 40
        let ours = try await flowmatrixRun(jobs: jobs, base: base)
        print(
            String(
                format:
                    "flowmatrix run, 2 local workers × 1 slot, %d jobs: %.2f s → %.2f jobs/s (whole command: coordinator, worker and browser start, report)",
                jobs, ours.seconds, Double(jobs) / ours.seconds))
        let oursTwoSlots = try await flowmatrixRun(jobs: jobs, base: base, slots: 2)
        print(
            String(
                format: "flowmatrix run, 2 local workers × 2 slots, %d jobs: %.2f s → %.2f jobs/s",
                jobs, oursTwoSlots.seconds, Double(jobs) / oursTwoSlots.seconds))
        if let playwright = try await playwrightRun(jobs: jobs, base: base) {
            print(
                String(
                    format:
                        "Playwright for Python, 2 processes, %d jobs: %.2f s → %.2f jobs/s (browser start %.0f ms, job median %.0f ms)",
                    jobs, playwright.seconds, Double(jobs) / playwright.seconds, playwright.launch * 1000,
                    playwright.jobMedian * 1000))
            print(
                String(
                    format:
                        "ratio flowmatrix/Playwright jobs/s: %.2f× with 1 slot per worker, %.2f× with 2 slots (target ≥ 2×)",
                    playwright.seconds / ours.seconds, playwright.seconds / oursTwoSlots.seconds))
        } else {
            print("Playwright for Python: not installed (pip install playwright), no comparison")
        }
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

    /// Runs `flowmatrix run` on a matrix of `jobs` copies of the scenario (two locales × a repetition axis).
    static func flowmatrixRun(jobs: Int, base: URL, slots: Int = 1) async throws -> (seconds: Double, Void) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let encoder = JSONEncoder()
        try encoder.encode(scenario).write(to: root.appendingPathComponent("corpus/bench-cart.json"))
        let reps = (1...max(1, jobs / 2)).map { "\"\($0)\"" }.joined(separator: ", ")
        let matrix = """
            {"name": "web-bench", "corpus": "corpus", "registry": "web",
             "policy": {"retries": 0, "timeout": 60, "seed": 1, "keep": "failures"},
             "axes": {"locale": ["en", "de"], "window": ["regular-square"], "rep": [\(reps)]}}
            """
        try Data(matrix.utf8).write(to: root.appendingPathComponent("m.json"))
        let process = Process()
        process.executableURL = ProcessFacts.flowmatrix
        process.arguments = [
            "run", "m.json", "--workers", "2", "--slots", String(slots), "--quiet", "--store", ".flowmatrix",
        ]
        process.currentDirectoryURL = root
        var environment = ProcessInfo.processInfo.environment
        environment["FLOWMATRIX_WEB_BASE_URL"] = base.absoluteString
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let t = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = seconds(ContinuousClock.now - t)
        guard process.terminationStatus == 0 else {
            throw CommandFailure(
                "flowmatrix run of the bench matrix exited \(process.terminationStatus)", exitCode: ExitCode.failures)
        }
        return (elapsed, ())
    }

    /// Runs the same scenario with Playwright for Python in 2 processes; nil when Playwright is not installed.
    static func playwrightRun(jobs: Int, base: URL) async throws -> (
        seconds: Double, launch: Double, jobMedian: Double
    )? {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-bench-pw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let script = root.appendingPathComponent("bench.py")
        try Data(playwrightScript.utf8).write(to: script)
        guard let executable = BrowserSettings().resolvedExecutable() else { return nil }
        let (status, data) = try ProcessFacts.runCapturing("/usr/bin/env", ["python3", script.path, base.absoluteString, executable, String(jobs)])
        guard status == 0,
            let result = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let seconds = result["seconds"] as? Double
        else {
            if status == 3 { return nil }
            throw CommandFailure(
                "the Playwright side failed (exit \(status)): \(String(decoding: data, as: UTF8.self))"
            )
        }
        return (seconds, result["launch"] as? Double ?? 0, result["jobMedian"] as? Double ?? 0)
    }

    static let playwrightScript = #"""
        import json, multiprocessing, os, statistics, sys, time
        try:
            from playwright.sync_api import sync_playwright, expect
        except ImportError:
            sys.exit(3)
        BASE, EXE, JOBS = sys.argv[1], sys.argv[2], int(sys.argv[3])
        T = lambda i: '[data-testid="%s"]' % i

        def scenario(page):
            page.goto(BASE + 'index.html', wait_until='load'); page.screenshot()
            page.locator(T('catalog.item.1')).wait_for(state='attached', timeout=10000); page.screenshot()
            page.locator(T('catalog.item.1.add')).click(); page.screenshot()
            page.locator(T('catalog.item.2.add')).click(); page.screenshot()
            expect(page.locator(T('header.cart-count'))).to_have_text('2'); page.screenshot()
            page.locator(T('header.cart')).click(); page.screenshot()
            page.locator(T('cart.panel')).wait_for(state='attached'); page.screenshot()
            page.locator(T('cart.line.1.plus')).click(); page.screenshot()
            expect(page.locator(T('cart.line.1.qty'))).to_have_text('2'); page.screenshot()
            page.locator(T('cart.close')).click(); page.screenshot()

        def worker(first, count, queue):
            t0 = time.perf_counter()
            with sync_playwright() as p:
                args = ['--no-sandbox'] if os.geteuid() == 0 else []
                browser = p.chromium.launch(executable_path=EXE, headless=True, args=args)
                launch = time.perf_counter() - t0
                walls = []
                for i in range(first, first + count):
                    t = time.perf_counter()
                    context = browser.new_context(locale=['en', 'de'][i % 2], viewport={'width': 744, 'height': 744})
                    scenario(context.new_page())
                    context.close()
                    walls.append(time.perf_counter() - t)
                browser.close()
            queue.put({'launch': launch, 'walls': walls})

        if __name__ == '__main__':
            queue = multiprocessing.Queue()
            half = JOBS // 2
            t = time.perf_counter()
            procs = [multiprocessing.Process(target=worker, args=(0, half, queue)),
                     multiprocessing.Process(target=worker, args=(half, JOBS - half, queue))]
            for p in procs: p.start()
            results = [queue.get() for _ in procs]
            for p in procs: p.join()
            seconds = time.perf_counter() - t
            walls = [w for r in results for w in r['walls']]
            print(json.dumps({'seconds': seconds, 'launch': statistics.median(r['launch'] for r in results),
                              'jobMedian': statistics.median(walls)}))
        """#
}
