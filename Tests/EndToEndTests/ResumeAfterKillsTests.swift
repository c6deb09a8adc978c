import FlowVocabulary
import Foundation
import Journal
import Testing

/// The coordinator killed (SIGKILL) several times mid-run and resumed: the run ends with exactly the outcomes of an
/// uninterrupted one, flaky jobs included (their failed attempts count across the restarts). The jobs fail at
/// random from their attempt's seed (`chance`), which depends on the count of earlier failed attempts, not on
/// attempt numbers that attempts lost with a killed coordinator use up.
@Suite("Resume after several coordinator kills", .serialized, .timeLimit(.minutes(4)))
struct ResumeAfterKillsTests {
    @Test("three kills at random points, three resumes: outcomes equal the uninterrupted run's, flaky stays flaky")
    func severalKills() async throws {
        let ws = try E2EWorkspace()
        defer { ws.cleanUp() }
        for i in 0..<5 { try ws.scenario("flaky-\(i)", ["busy:120", "chance:60"]) }
        for i in 0..<2 { try ws.scenario("pass-\(i)", ["busy:80", "pass"]) }
        try ws.scenario("fails", ["busy:80", "fail"])
        let matrix = try ws.matrix(locales: ["en", "de"], retries: 2)
        let (refStatus, refOutput) = try await ws.run(["run", matrix, "--workers", "2", "--store", "reference"],
                                                      label: "reference")
        #expect(refStatus == 1, "\(refOutput)")
        let refReader = try JournalReader(path: ws.root.appendingPathComponent("reference/journal.sqlite").path)
        let refRun = try #require(try refReader.latestRunID())
        var reference: [String: JobOutcome] = [:]
        for row in try refReader.jobs(run: refRun) { reference[row.job.jobID] = row.result?.outcome }
        // With 60 % failures and 2 retries, the seed-determined mix has flaky, passed and failed jobs.
        #expect(reference.values.contains(.flaky), "\(reference)")

        try Data("kills-token-0123456789abcdef".utf8).write(to: ws.root.appendingPathComponent("token"))
        var generator = SystemRandomNumberGenerator()
        // Kill points: ascending counts of finished jobs, chosen at random each run of the test.
        var thresholds = (0..<3).map { _ in Int.random(in: 1...13, using: &generator) }.sorted()
        for i in 1..<thresholds.count where thresholds[i] <= thresholds[i - 1] { thresholds[i] = thresholds[i - 1] + 1 }
        var runID: String?
        // The first coordinator listens on a port the kernel picks; every resumed one takes that port, which the
        // worker keeps reconnecting to.
        var port = 0
        var worker: Process?
        for (round, threshold) in thresholds.enumerated() {
            let args = runID.map { ["serve", "--resume", $0] } ?? ["serve", matrix]
            let serve: Process
            (serve, port) = try await ws.startServe(args + ["--token-file", "token"], port: port, label: "serve\(round)")
            if worker == nil {
                worker = try ws.startTestWorker(["--connect", "127.0.0.1:\(port)", "--token-file", "token", "--slots", "1"],
                                      label: "worker")
            }
            try await waitUntil("\(threshold) jobs are final", timeout: .seconds(60)) { ws.finishedJobs() >= threshold }
            await ws.kill9(serve)
            runID = try ws.latestRunID()
        }
        let id = try #require(runID)
        let last = try ws.start(["serve", "--resume", id, "--listen", "127.0.0.1:\(port)", "--token-file", "token"],
                                label: "serve-final")
        try await ws.waitForExit(last, timeout: .seconds(120))
        #expect(last.terminationStatus == 1, "\(ws.output("serve-final"))")
        let resumed = try ws.outcomes(run: id)
        let differing = reference.keys.sorted().filter { resumed[$0] != reference[$0] }
            .map { "\($0): \(reference[$0].map(\.rawValue) ?? "-") vs \(resumed[$0].map(\.rawValue) ?? "-")" }
        #expect(differing.isEmpty, "kills after \(thresholds) finished jobs: \(differing)")
        #expect(worker?.isRunning == true)
    }
}
