@testable import FlowMatrixCLI
import FlowMatrixTestKit
import Foundation
import Journal
import RunControl
import Testing

/// `run --repeat N`: every job N times with N seeds; pass and flake rates per job and per axis value.
@Suite("Stability mode", .serialized, .timeLimit(.minutes(2)))
struct StabilityModeTests {
    @Test("--repeat 12: outcomes, counts and rates are exactly what the seeded generator predicts; JUnit names repetitions")
    func repeatMatchesPrediction() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("coin", ["chance:40"])
        try ws.scenario("solid", ["pass"])
        let matrix = try ws.matrix(locales: ["en", "de"])
        let (_, output) = try await ws.run(["run", matrix, "--workers", "2", "--repeat", "12"], label: "run")
        let runID = try #require(try ws.latestRunID())
        let rows = try JournalReader(path: ws.journalPath).jobs(run: runID)
        #expect(rows.count == 4 * 12)
        // Each repetition is a job with its own id and so its own seed (the matrix seed is 7).
        var predictedFailures: [String: Int] = [:]
        for row in rows {
            let seed = RunDefinitionBuilder.jobSeed(7, row.job.jobID)
            let fails = row.job.scenarioID == "coin" && TestRegistry.chanceFails(seed: seed, percent: 40)
            #expect(row.result?.outcome == (fails ? .failed : .passed), "\(row.job.configuration)")
            if fails { predictedFailures[row.job.configuration.split(separator: ",").first { $0.hasPrefix("locale=") }.map(String.init) ?? "", default: 0] += 1 }
        }
        let data = try Data(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)/stability.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["repetitions"] as? Int == 12)
        let values = try #require(json["axisValues"] as? [[String: Any]])
        for locale in ["en", "de"] {
            let entry = try #require(values.first { $0["key"] as? String == "locale=\(locale)" })
            let failed = predictedFailures["locale=\(locale)"] ?? 0
            #expect(entry["failed"] as? Int == failed)
            #expect(entry["repetitions"] as? Int == 24)
            #expect(abs((entry["flakeRate"] as? Double ?? -1) - Double(failed) / 24) < 1e-9)
        }
        let jobs = try #require(json["jobs"] as? [[String: Any]])
        #expect(jobs.first { ($0["key"] as? String)?.hasPrefix("solid") == true }?["failed"] as? Int == 0)
        #expect(output.contains("stability over 12 repetitions"), "\(output)")
        let junit = try String(contentsOf: ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)/junit.xml"), encoding: .utf8)
        #expect(junit.contains("repetition=12"))
    }

    @Test("flake rates in summary.json, the report's pivot and stability section, and diff between two seeds")
    func flakeRatesInReportsAndDiff() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        try ws.scenario("coin", ["chance:40"])
        try ws.scenario("solid", ["pass"])
        let matrix = try ws.matrix(locales: ["en", "de"])
        var runs: [String] = []
        var predicted: [[String: Int]] = []
        for seed: UInt64 in [7, 8] {
            let (_, output) = try await ws.run(["run", matrix, "--workers", "2", "--repeat", "10", "--seed", String(seed)],
                                               label: "run-\(seed)")
            #expect(output.contains("stability over 10 repetitions"), "\(output)")
            let runID = try #require(try ws.latestRunID())
            runs.append(runID)
            // Failed repetitions per `scenario [base configuration]`, from the seeded generator.
            var failed: [String: Int] = [:]
            for row in try JournalReader(path: ws.journalPath).jobs(run: runID) {
                let base = row.job.configuration.split(separator: ",").filter { !$0.hasPrefix("repetition=") }.joined(separator: ",")
                let fails = row.job.scenarioID == "coin"
                    && TestRegistry.chanceFails(seed: RunDefinitionBuilder.jobSeed(seed, row.job.jobID), percent: 40)
                failed["\(row.job.scenarioID) [\(base)]", default: 0] += fails ? 1 : 0
            }
            predicted.append(failed)

            let folder = ws.root.appendingPathComponent(".flowmatrix/runs/\(runID)")
            let summary = try #require(try JSONSerialization.jsonObject(
                with: Data(contentsOf: folder.appendingPathComponent("summary.json"))) as? [String: Any])
            let stability = try #require(summary["stability"] as? [String: Any])
            #expect(stability["repetitions"] as? Int == 10)
            let jobs = try #require(stability["jobs"] as? [[String: Any]])
            #expect(jobs.count == 4)
            // Flaky: failed some repetitions but not all; the others failed none or all of them.
            #expect(stability["flakyJobs"] as? Int == failed.values.filter { $0 > 0 && $0 < 10 }.count)
            #expect(stability["failedEveryJobs"] as? Int == failed.values.filter { $0 == 10 }.count)
            for job in jobs {
                let key = try #require(job["key"] as? String)
                #expect(job["failed"] as? Int == failed[key], "\(key)")
                #expect(abs((job["flakeRate"] as? Double ?? -1) - Double(failed[key] ?? -1) / 10) < 1e-9)
            }
            let html = try String(contentsOf: folder.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(html.contains("id=\"stability\""))
            #expect(html.contains("Flake rate per axis value"))
            // The pivot counts repetitions of configurations: the repetition axis is not one of its axes.
            #expect(!html.contains("data-axis=\"repetition\""))
            #expect(html.contains("data-axis=\"locale\""))
            if failed.values.contains(where: { $0 > 0 }) { #expect(html.contains("Flaky mostly with scenario=coin")) }
        }
        // diff: exactly the jobs whose predicted failed count rose (or fell) between the seeds.
        let (status, text) = try await ws.run(["diff", runs[0], runs[1], "--json"], label: "diff")
        let data = try Data(contentsOf: ws.root.appendingPathComponent("diff.out"))
        let diff = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(text)")
        let rose = Set(((diff["flakeRateRose"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String })
        let fell = Set(((diff["flakeRateFell"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String })
        let keys = Set(predicted[0].keys)
        #expect(rose == keys.filter { predicted[1][$0, default: 0] > predicted[0][$0, default: 0] })
        #expect(fell == keys.filter { predicted[1][$0, default: 0] < predicted[0][$0, default: 0] })
        #expect((diff["hasRegressions"] as? Bool) == (status == 1))
        if !rose.isEmpty { #expect(status == 1) }
        // The same run against itself: no flake rate moved.
        let (_, same) = try await ws.run(["diff", runs[1], runs[1]], label: "diff-same")
        #expect(!same.contains("FLAKE RATE"), "\(same)")
    }
}
