import FlowVocabulary
import Foundation
import Journal
import Testing

/// The `visualVerdict` record (docs/VISUAL.md, "A visual change is a verdict"): a passed attempt and its passed or
/// flaky job become failed with the verdict's step and message; anything not passing is left as it is.
@Suite("Journal visual verdicts")
struct JournalVisualVerdictTests {
    private func verdict(_ job: String, attempt: Int) -> JournalRecord {
        .visualVerdict(VisualVerdict(runID: "r1", jobID: job, attempt: attempt, failureStep: 1,
                                     message: "MX053 visual change: step 2"))
    }

    @Test("a passed job and a flaky job fail with the verdict; a failed job keeps its own failure; counts follow")
    func verdictsFailPassingJobs() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: ["p", "f", "x"].map(Fixture.job))])
        try writer.submit(Fixture.attempt("r1", "p", 1) + [Fixture.finished("r1", "p", .passed, duration: 1)])
        try writer.submit(Fixture.attempt("r1", "f", 1, outcome: .failed) + Fixture.attempt("r1", "f", 2)
            + [Fixture.finished("r1", "f", .flaky, duration: 1, attempts: 2)])
        try writer.submit(Fixture.attempt("r1", "x", 1, outcome: .failed)
            + [.jobFinished(runID: "r1", jobID: "x", result: JobResult(outcome: .failed, attempts: 1, duration: 1,
                                                                       failureStep: 0, failureMessage: "its own",
                                                                       finishedAt: Fixture.t0))])
        try writer.submit([verdict("p", attempt: 1), verdict("f", attempt: 2), verdict("x", attempt: 1)])
        try writer.flushSync()
        #expect(writer.statistics.recordsRejected == 0)
        // Applying the same verdicts again changes nothing (a resumed run compares again).
        try writer.submit([verdict("p", attempt: 1), verdict("f", attempt: 2)])
        try writer.flushSync()
        try writer.close()

        let reader = try JournalReader(path: dir.journalPath)
        let rows = Dictionary(uniqueKeysWithValues: try reader.jobs(run: "r1").map { ($0.job.jobID, $0) })
        #expect(rows["p"]?.result?.outcome == .failed)
        #expect(rows["p"]?.result?.failureStep == 1)
        #expect(rows["p"]?.result?.failureMessage == "MX053 visual change: step 2")
        #expect(rows["f"]?.result?.outcome == .failed)
        #expect(rows["f"]?.result?.attempts == 2)
        #expect(rows["x"]?.result?.failureMessage == "its own")
        #expect(try reader.attempts(run: "r1", job: "p").map(\.result?.outcome) == [.failed])
        #expect(try reader.attempts(run: "r1", job: "p").first?.result?.message == "MX053 visual change: step 2")
        #expect(try reader.attempts(run: "r1", job: "f").map(\.result?.outcome) == [.failed, .failed])
        #expect(try reader.attempts(run: "r1", job: "x").first?.result?.message == nil)
        let run = try #require(try reader.run("r1"))
        #expect(run.outcomes[.failed] == 3 && (run.outcomes[.passed] ?? 0) == 0 && (run.outcomes[.flaky] ?? 0) == 0)
    }
}
