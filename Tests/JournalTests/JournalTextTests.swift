import Foundation
import Journal
import Testing

/// Stored text comes back whole: SQLite keeps a byte count, and the reader must use it.
@Suite("Journal text")
struct JournalTextTests {
    @Test("a failure message and a scenario title with an embedded NUL are read back past the NUL")
    func textPastNUL() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        var job = Fixture.job("a")
        job.scenarioTitle = "title\u{0}tail"
        let message = "expected 'Total'\u{0} but found \u{1B}]0;pwned\u{7}"
        try writer.submit([
            Fixture.run("r1"),
            .jobsPlanned(runID: "r1", jobs: [job]),
            .attemptCompleted(
                CompletedAttempt(
                    runID: "r1", jobID: "a", attempt: 1, worker: "w1", startedAt: Fixture.t0,
                    steps: [StepResult(index: 0, key: "assert:total", outcome: .failed, duration: 1, message: message)],
                    result: AttemptResult(outcome: .failed, finishedAt: Fixture.t0, duration: 1, failureStep: 0, message: message),
                    job: JobResult(outcome: .failed, attempts: 1, duration: 1, failureStep: 0, failureMessage: message,
                                   finishedAt: Fixture.t0))),
        ])
        try writer.flushSync()
        let reader = try JournalReader(path: dir.journalPath)
        let row = try #require(try reader.jobs(run: "r1").first)
        #expect(row.result?.failureMessage == message)
        #expect(row.job.scenarioTitle == "title\u{0}tail")
        #expect(try reader.steps(run: "r1", job: "a", attempt: 1).first?.message == message)
        try writer.close()
    }
}
