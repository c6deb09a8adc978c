import Artifacts
import Foundation
import Journal
import Reports

/// `flowmatrix bench reports`: reading a large run from the journal and writing its reports and a diff.
enum ReportsBench {
    static var suite: BenchSuite {
        BenchSuite(name: "reports", overview: "Load a large run, pivot it, write report.html / junit.xml / summary.json, diff two runs.") { quick in
            try run(scenarios: quick ? 10 : 100, variety: false)
            // A nightly of 100,000 jobs (1,042 scenarios × 96 configurations), with failures, flaky and timed-out jobs.
            if !quick { try run(scenarios: 1042, variety: true) }
        }
    }

    /// - Parameter variety: adds flaky (1 in 97) and timed-out (1 in 211) jobs to the failures.
    private static func run(scenarios: Int, variety: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowmatrix-bench-reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try BlobStore(root: directory, syncToDisk: false)
        let writer = try JournalWriter(path: directory.appendingPathComponent("journal.sqlite").path)
        let png = try ArtifactSink().attach(name: "wireframe.png", mediaType: "image/png",
                                            bytes: [UInt8](repeating: 0x42, count: 20_000), step: 2)
        try store.store(png)
        let start = Date(timeIntervalSince1970: 1_795_900_000)
        var jobCount = 0
        for (n, runID) in ["bench-a", "bench-b"].enumerated() {
            let at = start.addingTimeInterval(Double(n) * 86_400)
            var jobs: [PlannedJob] = []
            for s in 0..<scenarios {
                for locale in ["en", "de", "fr", "ja", "ar", "he", "pt-BR", "zh-Hans"] {
                    for direction in ["auto", "pseudo-double"] {
                        for window in ["narrow-portrait", "full-window", "short-wide"] {
                            for network in ["lte", "3g"] {
                                let config = "direction=\(direction),locale=\(locale),network=\(network),window=\(window)"
                                let json = #"{"direction":"\#(direction)","locale":"\#(locale)","network":"\#(network)","window":"\#(window)"}"#
                                jobs.append(PlannedJob(jobID: "s\(s)-\(config)", scenarioID: "s\(s)", scenarioTitle: "Scenario \(s)",
                                                       configuration: config, configurationJSON: json, registry: "catalog"))
                            }
                        }
                    }
                }
            }
            jobCount = jobs.count
            var records: [JournalRecord] = [
                .runStarted(RunInfo(runID: runID, matrixName: "bench", matrixPath: "bench.json", seed: 1, startedAt: at)),
                .jobsPlanned(runID: runID, jobs: jobs),
            ]
            for (i, job) in jobs.enumerated() {
                let fails = (job.configuration.contains("pseudo-double") && job.configuration.contains("narrow") && i % 3 == n)
                let flaky = variety && !fails && i % 97 == 5
                let timesOut = variety && !fails && !flaky && i % 211 == 7
                let attempts = fails || flaky ? 2 : 1
                for a in 1...attempts {
                    let failsNow = fails || (flaky && a == 1)
                    records.append(.attemptStarted(runID: runID, jobID: job.jobID, attempt: a, worker: "w\(i % 8)", at: at))
                    for step in 0..<6 {
                        let outcome: StepOutcome = failsNow && step == 2 ? .failed : timesOut && step == 5 ? .timedOut : .passed
                        records.append(.stepRecorded(runID: runID, jobID: job.jobID, attempt: a, step: StepResult(
                            index: step, key: "step \(step)", outcome: outcome, duration: 0.05,
                            message: outcome == .passed ? nil : "clipped")))
                    }
                    if failsNow {
                        records.append(.artifactStored(runID: runID, jobID: job.jobID, attempt: a, artifact: ArtifactReference(
                            stepIndex: 2, name: png.name, mediaType: png.mediaType, sha256: png.sha256,
                            compressedSize: png.compressedSize, rawSize: png.rawSize)))
                    }
                    let outcome: JobOutcome = failsNow ? .failed : timesOut ? .timedOut : .passed
                    let step = failsNow ? 2 : timesOut ? 5 : nil
                    records.append(.attemptFinished(runID: runID, jobID: job.jobID, attempt: a, result: AttemptResult(
                        outcome: outcome, finishedAt: at, duration: 0.3, failureStep: step,
                        message: step == nil ? nil : "clipped")))
                }
                let outcome: JobOutcome = fails ? .failed : flaky ? .flaky : timesOut ? .timedOut : .passed
                let step = fails ? 2 : timesOut ? 5 : nil
                records.append(.jobFinished(runID: runID, jobID: job.jobID, result: JobResult(
                    outcome: outcome, attempts: attempts, duration: 0.3, failureStep: step,
                    failureMessage: step == nil ? nil : "clipped", finishedAt: at.addingTimeInterval(Double(i) * 0.01))))
            }
            records.append(.runFinished(runID: runID, status: .completed, at: at.addingTimeInterval(600)))
            try writer.submit(records)
        }
        try writer.close()
        let reader = try JournalReader(path: directory.appendingPathComponent("journal.sqlite").path)
        func timed<T>(_ label: String, _ body: () throws -> T) throws -> T {
            let clock = ContinuousClock()
            var result: T?
            let elapsed = try clock.measure { result = try body() }
            let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            print("  \(label.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%9.1f ms", ms))"
                  + "  (\(String(format: "%.0f", Double(jobCount) / max(ms / 1000, 1e-9))) jobs/s)")
            // `body` ran, so `result` holds its value.
            guard let result else { throw CommandFailure("bench step '\(label)' produced nothing") }
            return result
        }
        print("  \(jobCount) jobs per run, 2 runs (\(scenarios) scenarios)")
        _ = try timed("JournalReader.attemptsWithSteps") { try reader.attemptsWithSteps(run: "bench-b") }
        let report = try timed("RunReport.load") { try RunReport.load(runID: "bench-b", reader: reader) }
        let pivot = try timed("AxisPivot.compute") { AxisPivot.compute(report) }
        print("  patterns: \(pivot.headline)")
        _ = try timed("JUnitReport.xml") { JUnitReport.xml(report) }
        let files = try timed("ReportWriter.write (all files)") {
            try ReportWriter.write(runID: "bench-b", reader: reader, blobsRoot: directory,
                                   into: directory.appendingPathComponent("runs/bench-b"), baseline: "bench-a")
        }
        for timing in files.timings {
            print("    \(timing.phase.padding(toLength: 28, withPad: " ", startingAt: 0)) \(String(format: "%9.1f ms", timing.seconds * 1000))")
        }
        let diff = try timed("RunDiff.compute") { try RunDiff.compute(reader: reader, base: "bench-a", head: "bench-b") }
        print("  diff: \(diff.summaryLine)")
        for url in [files.html, files.junit, files.summary] {
            let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            print("  \(url.lastPathComponent.padding(toLength: 30, withPad: " ", startingAt: 0)) \(size / 1024) KiB")
        }
        print("  artifacts extracted: \(files.artifacts.count)")
    }
}
