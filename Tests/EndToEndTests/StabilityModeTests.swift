@testable import FlowMatrixCLI
import FlowMatrixTestKit
import Foundation
import Journal
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
            let seed = RunSession.jobSeed(7, row.job.jobID)
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
}
