import CatalogApp
import FlowMatrixCLI
import FlowSpec
import FlowVocabulary
import Foundation

extension BenchCommand {
    /// `flowmatrix bench catalog`: wall time of headless Catalog jobs, and edge vs lte wall time.
    static let catalogSuite = BenchSuite(
        name: "catalog",
        overview: "Headless Catalog jobs: wall time per 10-step job; edge vs lte wall-time ratio.",
        run: { quick in try await CatalogBench.run(quick: quick) }
    )
}

/// The Catalog bench: runs real corpus scenarios (cut to 10 steps) on fresh registries, one job at a time.
enum CatalogBench {
    /// The corpus folder: `Workers/Catalog/Scenarios` under the current directory, else beside this source file.
    static var corpusFolder: URL {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent("Workers/Catalog/Scenarios")
        if FileManager.default.fileExists(atPath: here.path) { return here }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Workers/Catalog/Scenarios")
    }

    static func run(quick: Bool) async throws {
        let load = ScenarioLoader.loadCorpus(paths: [corpusFolder])
        guard load.isClean else {
            throw CommandFailure(
                "the Catalog corpus has findings:\n\(ScenarioLoadError(findings: load.findings))",
                exitCode: ExitCode.failures)
        }
        // Every scenario with at least 10 steps, cut to exactly 10.
        let jobs = load.scenarios.map(\.scenario).filter { $0.steps.count >= 10 }.map { s in
            Scenario(id: s.id, title: s.title, tags: s.tags, steps: Array(s.steps.prefix(10)))
        }
        guard !jobs.isEmpty else { throw CommandFailure("no scenario has 10 steps", exitCode: ExitCode.failures) }
        let rounds = quick ? 2 : 200
        let baseline = ["locale": "en", "direction": "ltr", "orientation": "portrait", "window": "full-window"]

        // Warm up (formatters, tables, first-use costs).
        var warmup = Figures()
        try await measure(jobs, round: 0, configuration: baseline.merging(["network": "lte"]) { $1 }, into: &warmup)

        // lte and edge alternate job by job, so both see the same machine (the CPU may be shared).
        var lte = Figures(), edge = Figures()
        for round in 0..<rounds {
            try await measure(jobs, round: round, configuration: baseline.merging(["network": "lte"]) { $1 }, into: &lte)
            try await measure(jobs, round: round, configuration: baseline.merging(["network": "edge"]) { $1 }, into: &edge)
        }
        var rtl = Figures()
        for round in 0..<max(1, rounds / 4) {
            try await measure(
                jobs, round: round,
                configuration: ["locale": "ar", "direction": "auto", "window": "narrow-portrait", "network": "3g"],
                into: &rtl)
        }
        print("scenarios cut to 10 steps: \(jobs.count) (\(jobs.map(\.id).joined(separator: ", ")))")
        print(lte.line(label: "lte (en, ltr, full-window)"))
        print(edge.line(label: "edge (en, ltr, full-window)"))
        print(rtl.line(label: "3g (ar, rtl, narrow-portrait)"))
        let ratio = edge.meanWall / max(lte.meanWall, 1e-9)
        let medianRatio = edge.percentile(0.5) / max(lte.percentile(0.5), 1e-9)
        let cpuRatio = edge.cpu / max(lte.cpu, 1e-9)
        print(
            String(
                format: "edge/lte wall-time ratio: %.3f mean, %.3f median, CPU %.3f (target <= 1.1); "
                    + "simulated time edge/lte: %.1fx",
                ratio, medianRatio, cpuRatio, edge.meanSimulated / max(lte.meanSimulated, 1e-9)))
        print(
            String(
                format:
                    "wall time per 10-step job: %.3f ms mean, %.3f ms median; CPU %.3f ms per job (target <= 2 ms on one core)",
                lte.meanWall * 1000, lte.percentile(0.5) * 1000, lte.cpu / Double(max(1, lte.jobs)) * 1000))
        let audits = try await auditTimes(jobs, rounds: quick ? 1 : 20)
        print(
            String(
                format: "accessibility audit per step (CatalogAudit on the surface after each step, %d audits): "
                    + "median %.1f µs, p99 %.1f µs (target <= 30 ms)",
                audits.count, percentile(audits, 0.5) * 1e6, percentile(audits, 0.99) * 1e6))
    }

    /// The time of `assert page accessible`'s work (`CatalogAudit.findings` on the current surface) after every step
    /// of every job, in the dark appearance (which has findings to describe), in seconds.
    static func auditTimes(_ jobs: [Scenario], rounds: Int) async throws -> [Double] {
        let clock = ContinuousClock()
        var times: [Double] = []
        let configuration = ["locale": "en", "window": "full-window", "network": "lte", "appearance": "dark"]
        for round in 0..<rounds {
            for job in jobs {
                let registry = try CatalogWorkerKit.makeRegistry(configuration: configuration, seed: UInt64(round))
                for step in job.steps {
                    do { try await registry.execute(step) } catch { break }
                    let surface = await registry.engine.surface()
                    let start = clock.now
                    let findings = CatalogAudit.findings(surface, locale: registry.conditions.locale)
                    times.append((clock.now - start).milliseconds / 1000)
                    if findings.count < 0 { print(findings) }  // keeps the work from being optimised away
                }
            }
        }
        return times
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }

    struct Figures {
        var jobs = 0
        var passed = 0
        var walls: [Double] = []
        var simulated: [Double] = []
        /// Process CPU seconds (user + system) over the whole measurement.
        var cpu = 0.0

        var meanWall: Double { walls.reduce(0, +) / Double(max(1, walls.count)) }
        var meanSimulated: Double { simulated.reduce(0, +) / Double(max(1, simulated.count)) }

        func percentile(_ p: Double) -> Double {
            let sorted = walls.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
        }

        func line(label: String) -> String {
            String(
                format:
                    "%@: %d jobs (%d passed), wall per job mean %.3f ms, p50 %.3f ms, p99 %.3f ms; CPU per job %.3f ms; simulated per job %.2f s",
                label, jobs, passed, meanWall * 1000, percentile(0.5) * 1000, percentile(0.99) * 1000,
                cpu / Double(max(1, jobs)) * 1000, meanSimulated)
        }
    }

    /// Runs every job once on a fresh registry (seed = round), one after the other, adding to `figures`.
    static func measure(_ jobs: [Scenario], round: Int, configuration: [String: String], into figures: inout Figures)
        async throws
    {
        let clock = ContinuousClock()
        for job in jobs {
            let cpuStart = processCPUSeconds()
            let start = clock.now
            let registry = try CatalogWorkerKit.makeRegistry(configuration: configuration, seed: UInt64(round))
            let result = await AsyncScenarioRunner(registry: registry).run(job)
            let wall = clock.now - start
            figures.cpu += processCPUSeconds() - cpuStart
            figures.jobs += 1
            if result.passed { figures.passed += 1 }
            figures.walls.append(wall.milliseconds / 1000)
            figures.simulated.append(result.duration.milliseconds / 1000)
        }
    }

    /// User plus system CPU time of this process, in seconds.
    static func processCPUSeconds() -> Double { ProcessFacts.cpuSeconds(children: false) }
}
