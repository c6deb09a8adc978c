import FlowVocabulary
import Foundation
import Journal
import Testing

@Suite("Journal history")
struct JournalHistoryTests {
    /// Three runs: x takes 1, 3, 2 s; y 10, 20 s then is cancelled; z is only ever quarantined.
    private func journalWithHistory(_ dir: TemporaryDirectory) async throws -> JournalReader {
        let writer = try JournalWriter(path: dir.journalPath)
        let plan: [(String, [(String, JobOutcome, Double)])] = [
            ("r1", [("x", .passed, 1), ("y", .passed, 10), ("z", .quarantined, 99)]),
            ("r2", [("x", .failed, 3), ("y", .flaky, 20), ("z", .quarantined, 99)]),
            ("r3", [("x", .passed, 2), ("y", .cancelled, 500), ("z", .quarantined, 99)]),
        ]
        for (n, (run, jobs)) in plan.enumerated() {
            let offset = Double(n) * 1000
            try writer.submit([
                Fixture.run(run, at: offset), .jobsPlanned(runID: run, jobs: jobs.map { Fixture.job($0.0) }),
            ])
            for (job, outcome, duration) in jobs {
                try writer.submit(Fixture.finished(run, job, outcome, duration: duration, at: offset + duration))
            }
        }
        try writer.close()
        return try JournalReader(path: dir.journalPath)
    }

    @Test("median duration per job over past runs, and the median over all known jobs")
    func medians() async throws {
        let dir = try TemporaryDirectory()
        let reader = try await journalWithHistory(dir)
        let all = try reader.durationEstimates()
        #expect(all.perJob == ["x": 2, "y": 15])
        #expect(all.overall == 8.5)
        #expect(all.expected("x") == 2)
        #expect(all.expected("new") == 8.5)

        let recent = try reader.durationEstimates(recentRuns: 2)
        #expect(recent.perJob["x"] == 2.5)  // r3 (2) and r2 (3)
        let onlyX = try reader.durationEstimates(jobIDs: ["x"])
        #expect(onlyX.perJob == ["x": 2])
        #expect(onlyX.overall == 2)
    }

    @Test("an empty history has no estimates and falls back")
    func emptyHistory() throws {
        let dir = try TemporaryDirectory()
        try JournalWriter(path: dir.journalPath).close()
        let estimates = try JournalReader(path: dir.journalPath).durationEstimates()
        #expect(estimates.perJob.isEmpty)
        #expect(estimates.overall == nil)
        #expect(estimates.expected("a", fallback: 4) == 4)
    }

    @Test("flakiness counts outcomes per job across runs, newest first in a job's history")
    func flakiness() async throws {
        let dir = try TemporaryDirectory()
        let reader = try await journalWithHistory(dir)
        let stats = try reader.flakiness()
        #expect(stats["x"] == FlakinessStats(runs: 3, passed: 2, failed: 1, flaky: 0))
        #expect(stats["y"] == FlakinessStats(runs: 2, passed: 1, failed: 0, flaky: 1))
        #expect(stats["z"] == nil)
        #expect(try reader.history(job: "x").map(\.runID) == ["r3", "r2", "r1"])
    }
}
