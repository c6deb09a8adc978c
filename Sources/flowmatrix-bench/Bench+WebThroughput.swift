import DevTools
import FlowMatrixCLI
import Foundation
import WebRegistry

/// Section 4 of `bench web` (`WebBench`): jobs/s of `flowmatrix run` with 2 local workers (one browser each) beside Playwright for
/// Python with 2 processes, same Chromium, same scenario, a screenshot after every step, a fresh context per job.
/// `FLOWMATRIX_WEB_BENCH_ROUNDS=N` repeats the three runs N times in turn (one sitting) and prints every round's ratio.
/// Every run prints where a job's time went, ours in Playwright's parts (`WorkerTimings`, from the workers' own
/// timings) beside Playwright's; with `FLOWMATRIX_WEB_TIMING=1` also ours phase by phase.
enum WebThroughputBench {
    static func measureThroughput(base: URL, quick: Bool) async throws {
        let jobs = quick ? 4 : 40
        let rounds = max(1, Int(ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_BENCH_ROUNDS"] ?? "") ?? 1)
        var ratios: [(one: Double, two: Double)] = []
        for round in 1...rounds {
            if rounds > 1 { print("round \(round) of \(rounds) (\(loadAverage())):") }
            let ours = try await flowmatrixRun(jobs: jobs, base: base)
            print(
                String(
                    format:
                        "flowmatrix run, 2 local workers × 1 slot, %d jobs: %.2f s → %.2f jobs/s (whole command: coordinator, worker and browser start, report)",
                    jobs, ours.seconds, Double(jobs) / ours.seconds))
            if !ours.timings.isEmpty {
                print("  per job, flowmatrix (mean): \(ours.timings.summary)")
                if WebTimings.enabled { print("  its phases (FLOWMATRIX_WEB_TIMING=1):\n\(ours.timings.detail)") }
            }
            let oursTwoSlots = try await flowmatrixRun(jobs: jobs, base: base, slots: 2)
            print(
                String(
                    format: "flowmatrix run, 2 local workers × 2 slots, %d jobs: %.2f s → %.2f jobs/s",
                    jobs, oursTwoSlots.seconds, Double(jobs) / oursTwoSlots.seconds))
            if !oursTwoSlots.timings.isEmpty { print("  per job, flowmatrix (mean): \(oursTwoSlots.timings.summary)") }
            guard let playwright = try await playwrightRun(jobs: jobs, base: base) else {
                print("Playwright for Python: not installed (pip install playwright), no comparison")
                return
            }
            print(
                String(
                    format:
                        "Playwright for Python, 2 processes, %d jobs: %.2f s → %.2f jobs/s (browser start %.0f ms, job median %.0f ms)",
                    jobs, playwright.seconds, Double(jobs) / playwright.seconds, playwright.launch * 1000,
                    playwright.jobMedian * 1000))
            if !playwright.breakdown.isEmpty { print("  per job, Playwright (mean): \(playwright.breakdown)") }
            ratios.append((playwright.seconds / ours.seconds, playwright.seconds / oursTwoSlots.seconds))
            print(
                String(
                    format:
                        "ratio flowmatrix/Playwright jobs/s: %.2f× with 1 slot per worker, %.2f× with 2 slots (target ≥ 2.5×)",
                    ratios[ratios.count - 1].one, ratios[ratios.count - 1].two))
        }
        if rounds > 1 {
            let one = ratios.map(\.one), two = ratios.map(\.two)
            print(
                String(
                    format: "%d rounds: ratio %.2f–%.2f× with 1 slot, %.2f–%.2f× with 2 slots (%@ at the end)",
                    rounds, one.min() ?? 0, one.max() ?? 0, two.min() ?? 0, two.max() ?? 0, loadAverage()))
        }
    }

    /// `load average 1.20 2.30 3.40` (`getloadavg`, on Linux and macOS).
    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        guard getloadavg(&loads, 3) == 3 else { return "load unknown" }
        return String(format: "load average %.2f %.2f %.2f", loads[0], loads[1], loads[2])
    }

    /// Runs `flowmatrix run` on a matrix of `jobs` copies of the scenario (two locales × a repetition axis), and
    /// returns its wall time and the workers' timings summed, per job.
    static func flowmatrixRun(jobs: Int, base: URL, slots: Int = 1) async throws -> (
        seconds: Double, timings: WorkerTimings
    ) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let encoder = JSONEncoder()
        try encoder.encode(WebBench.scenario).write(to: root.appendingPathComponent("corpus/bench-cart.json"))
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
        // The workers' own timings (a mutex and a clock read per phase: noise beside a step's milliseconds), each
        // worker's in a file of this folder as it stops (`WebTimings.write`).
        let timings = root.appendingPathComponent("timings")
        try FileManager.default.createDirectory(at: timings, withIntermediateDirectories: true)
        environment["FLOWMATRIX_WEB_TIMING"] = "1"
        environment["FLOWMATRIX_WEB_TIMING_DIR"] = timings.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let t = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = WebBench.seconds(ContinuousClock.now - t)
        guard process.terminationStatus == 0 else {
            throw CommandFailure(
                "flowmatrix run of the bench matrix exited \(process.terminationStatus)", exitCode: ExitCode.failures)
        }
        let files = (try? FileManager.default.contentsOfDirectory(at: timings, includingPropertiesForKeys: nil)) ?? []
        let text = files.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
        return (elapsed, WorkerTimings(parsing: text, jobs: jobs))
    }

    /// Runs the same scenario with Playwright for Python in 2 processes; nil when Playwright is not installed.
    static func playwrightRun(jobs: Int, base: URL) async throws -> (
        seconds: Double, launch: Double, jobMedian: Double, breakdown: String
    )? {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-bench-pw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let script = root.appendingPathComponent("bench.py")
        try Data(playwrightScript.utf8).write(to: script)
        guard let executable = BrowserSettings().resolvedExecutable() else { return nil }
        let (status, data) = try ProcessFacts.runCapturing(
            "/usr/bin/env", ["python3", script.path, base.absoluteString, executable, String(jobs)])
        guard status == 0,
            let result = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let seconds = result["seconds"] as? Double
        else {
            if status == 3 { return nil }
            throw CommandFailure(
                "the Playwright side failed (exit \(status)): \(String(decoding: data, as: UTF8.self))"
            )
        }
        let parts = (result["breakdown"] as? [String: Double] ?? [:]).sorted { $0.value > $1.value }
        let breakdown = parts.map { String(format: "%@ %.0f ms", $0.key, $0.value * 1000) }.joined(separator: ", ")
        return (seconds, result["launch"] as? Double ?? 0, result["jobMedian"] as? Double ?? 0, breakdown)
    }

    /// The Playwright side: the same 10 steps, a screenshot after each, a fresh context per job, 2 processes with a
    /// browser each; it times each job's context + page, navigation, screenshots, the other steps and the close.
    static let playwrightScript = #"""
        import json, multiprocessing, os, statistics, sys, time
        try:
            from playwright.sync_api import sync_playwright, expect
        except ImportError:
            sys.exit(3)
        BASE, EXE, JOBS = sys.argv[1], sys.argv[2], int(sys.argv[3])
        T = lambda i: '[data-testid="%s"]' % i
        PARTS = ['context + page', 'goto', 'screenshots', 'other steps', 'close']

        def scenario(page, spent):
            def shot():
                t = time.perf_counter(); page.screenshot(); spent['screenshots'] += time.perf_counter() - t
            t = time.perf_counter(); page.goto(BASE + 'index.html', wait_until='load'); spent['goto'] += time.perf_counter() - t
            shot()
            page.locator(T('catalog.item.1')).wait_for(state='attached', timeout=10000); shot()
            page.locator(T('catalog.item.1.add')).click(); shot()
            page.locator(T('catalog.item.2.add')).click(); shot()
            expect(page.locator(T('header.cart-count'))).to_have_text('2'); shot()
            page.locator(T('header.cart')).click(); shot()
            page.locator(T('cart.panel')).wait_for(state='attached'); shot()
            page.locator(T('cart.line.1.plus')).click(); shot()
            expect(page.locator(T('cart.line.1.qty'))).to_have_text('2'); shot()
            page.locator(T('cart.close')).click(); shot()

        def worker(first, count, queue):
            t0 = time.perf_counter()
            spent = dict((p, 0.0) for p in PARTS)
            with sync_playwright() as p:
                args = ['--no-sandbox'] if os.geteuid() == 0 else []
                browser = p.chromium.launch(executable_path=EXE, headless=True, args=args)
                launch = time.perf_counter() - t0
                walls = []
                for i in range(first, first + count):
                    t = time.perf_counter()
                    context = browser.new_context(locale=['en', 'de'][i % 2], viewport={'width': 744, 'height': 744})
                    page = context.new_page()
                    spent['context + page'] += time.perf_counter() - t
                    scenario(page, spent)
                    c = time.perf_counter(); context.close(); spent['close'] += time.perf_counter() - c
                    walls.append(time.perf_counter() - t)
                browser.close()
            spent['other steps'] = sum(walls) - sum(spent.values())
            queue.put({'launch': launch, 'walls': walls, 'spent': spent})

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
            breakdown = dict((p, sum(r['spent'][p] for r in results) / len(walls)) for p in PARTS)
            print(json.dumps({'seconds': seconds, 'launch': statistics.median(r['launch'] for r in results),
                              'jobMedian': statistics.median(walls), 'breakdown': breakdown}))
        """#
}
