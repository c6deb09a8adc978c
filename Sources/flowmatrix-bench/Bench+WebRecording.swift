import DevTools
import FlowMatrixCLI
import FlowSpec
import FlowVocabulary
import Foundation
import Synchronization
import WebRegistry

extension WebBench {
    /// `flowmatrix bench web-recording`: only the recording comparison of `bench web` (section 3b), for tuning it.
    static let recordingSuite = BenchSuite(
        name: "web-recording",
        overview: "Real Chromium: the screencast's cost per 10-step job (policy.recording on vs off), as in bench web.",
        missing: BenchCommand.webSuite.missing,
        run: { quick in
            let server = try StaticFileServer(root: siteFolder)
            defer { server.stop() }
            let shared = SharedBrowser()
            let browser = try await shared.browser()
            defer { browser.close() }
            try await measureRecordingCost(in: browser, settings: WebSettings(baseURL: server.baseURL), quick: quick)
            if WebTimings.enabled { print("where the time went (FLOWMATRIX_WEB_TIMING=1):\n\(WebTimings.report())") }
        }
    )

    /// The screencast's cost (`policy.recording`): the 10-step job with a screenshot per step, recording off and on, in
    /// pairs whose order alternates (off-on, on-off, …) so that a machine whose load drifts charges both sides alike.
    /// Prints both medians, the overhead (target ≤ 15 %), the frames and their bytes per job, and (on Linux) the CPU
    /// time per job of this process and the browser's processes together: what a loaded machine inflates least.
    static func measureRecordingCost(in browser: Browser, settings: WebSettings, quick: Bool) async throws {
        var recorded = settings
        recorded.recording = true
        var off: [Double] = [], on: [Double] = [], cpuOff: [Double] = [], cpuOn: [Double] = []
        var frames = 0, frameBytes = 0
        let pairs = Int(ProcessInfo.processInfo.environment["FLOWMATRIX_WEB_BENCH_PAIRS"] ?? "") ?? (quick ? 2 : 20)
        for pair in 0..<pairs {
            for recording in pair % 2 == 0 ? [false, true] : [true, false] {
                let cpuBefore = jobCPUSeconds(browser: browser.process.pid)
                let (wall, count, bytes) = try await recordedJob(in: browser, settings: recording ? recorded : settings)
                let cpu = jobCPUSeconds(browser: browser.process.pid).map { after in cpuBefore.map { after - $0 } ?? 0 }
                if recording {
                    on.append(wall)
                    if let cpu { cpuOn.append(cpu) }
                    frames += count
                    frameBytes += bytes
                } else {
                    off.append(wall)
                    if let cpu { cpuOff.append(cpu) }
                }
            }
        }
        let jobs = Double(on.count)
        print(
            String(
                format: "recording (screencast) on vs off, %d alternating pairs of 10-step jobs: %+.1f %% per job "
                    + "(median %.0f vs %.0f ms; mean %+.1f %%; target ≤ 15 %%); %.1f frames, %.1f KB of JPEG per job",
                on.count, (median(on) / median(off) - 1) * 100, median(on) * 1000, median(off) * 1000,
                (on.reduce(0, +) / off.reduce(0, +) - 1) * 100, Double(frames) / jobs, Double(frameBytes) / jobs / 1000))
        if !cpuOn.isEmpty, !cpuOff.isEmpty {
            print(
                String(
                    format: "  CPU per job (this process and the browser's): %+.1f %% (median %.0f vs %.0f ms)",
                    (median(cpuOn) / median(cpuOff) - 1) * 100, median(cpuOn) * 1000, median(cpuOff) * 1000))
        }
    }

    /// CPU seconds so far of this process and of the browser's process group (its pid leads it); nil off Linux.
    static func jobCPUSeconds(browser group: pid_t) -> Double? {
        #if os(Linux)
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            var total = ProcessFacts.cpuSeconds(children: false)
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.first?.isNumber == true {
                guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                // After `pid (comm)`: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 12, Int32(fields[2]) == group, let user = Double(fields[11]),
                    let system = Double(fields[12])
                else { continue }
                total += (user + system) / ticks
            }
            return total
        #else
            return nil
        #endif
    }

    /// One 10-step job (evidence after every step, as a worker takes it); its wall time, frames and frame bytes. The
    /// frames are decoded after the clock stops: a worker decodes them only for the attempts the keep policy keeps.
    private static func recordedJob(in browser: Browser, settings: WebSettings) async throws -> (Double, Int, Int) {
        let t = ContinuousClock.now
        let registry = try await WebRegistry.open(in: browser, configuration: configuration, seed: 1, settings: settings)
        let frames = Mutex<[StepAttachment]>([])
        let runner = AsyncScenarioRunner(
            registry: registry,
            onStep: { record in
                let evidence = await registry.evidence(afterStep: record.index, step: scenario.steps[record.index])
                let cast = evidence.filter { $0.name.hasPrefix("screencast-") }
                frames.withLock { $0 += cast }
            })
        let result = await runner.run(scenario)
        guard result.passed else {
            throw CommandFailure("the bench scenario failed: \(result.outcome)", exitCode: ExitCode.failures)
        }
        try await registry.page.dispose()
        let wall = seconds(ContinuousClock.now - t)
        let taken = frames.withLock { $0 }
        return (wall, taken.count, taken.reduce(0) { $0 + $1.bytes.count })
    }
}
