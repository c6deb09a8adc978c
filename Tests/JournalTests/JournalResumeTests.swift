import Foundation
import Journal
import Testing

@Suite("Journal resume")
struct JournalResumeTests {
    @Test("after the coordinator dies, completed jobs stay completed and in-flight ones run again")
    func resumeAfterCrash() async throws {
        let dir = try TemporaryDirectory()
        // The "crashed" coordinator: writes and flushes, never closes.
        let crashed = try JournalWriter(path: dir.journalPath)
        var records: [JournalRecord] = [
            Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: ["a", "b", "c", "d", "e"].map(Fixture.job)),
        ]
        records += Fixture.attempt("r1", "a", 1) + [Fixture.finished("r1", "a", .passed, duration: 1)]
        records += Fixture.attempt("r1", "b", 1, outcome: .failed) + [Fixture.finished("r1", "b", .failed, duration: 1)]
        records += Array(Fixture.attempt("r1", "c", 1).prefix(3))  // started, two steps, no result
        records += Fixture.attempt("r1", "e", 1, outcome: .failed)  // failed, retry in flight
        records += [.attemptStarted(runID: "r1", jobID: "e", attempt: 2, worker: "w2", at: Fixture.t0)]
        try crashed.submit(records)
        try await crashed.flush()

        let reader = try JournalReader(path: dir.journalPath)
        let state = try reader.resumeState(run: "r1")
        #expect(state.done == ["a": .passed, "b": .failed])
        #expect(state.pending == ["c", "d", "e"])
        #expect(state.nextAttempt == ["c": 2, "d": 1, "e": 3])

        // The next coordinator resumes the run on the same file.
        let next = try JournalWriter(path: dir.journalPath)
        try next.submit(.runResumed(runID: "r1", at: Fixture.t0.addingTimeInterval(100)))
        try next.submit(
            Fixture.attempt("r1", "c", 2) + [Fixture.finished("r1", "c", .passed, duration: 1, attempts: 2)])
        try await next.flush()
        #expect(next.takeRejections().isEmpty)

        let c = try reader.attempts(run: "r1", job: "c")
        #expect(c.map(\.attempt) == [1, 2])
        #expect(c[0].result?.superseded == true)
        #expect(c[0].result?.outcome == .cancelled)
        #expect(c[1].result?.outcome == .passed)
        let jobs = Dictionary(uniqueKeysWithValues: try reader.jobs(run: "r1").map { ($0.job.jobID, $0) })
        #expect(jobs["e"]?.state == .queued)
        #expect(jobs["c"]?.state == .done)
        #expect(jobs["a"]?.result?.outcome == .passed)
        let after = try reader.resumeState(run: "r1")
        #expect(after.pending == ["d", "e"])
        #expect(after.done.count == 3)
        try next.close()
        withExtendedLifetime(crashed) {}
    }

    @Test("a late result of a superseded attempt is kept but flagged")
    func lateResult() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: [Fixture.job("a")])])
        try writer.submit(Fixture.attempt("r1", "a", 2))
        try writer.submit(
            .attemptFinished(
                runID: "r1", jobID: "a", attempt: 1,
                result: AttemptResult(
                    outcome: .failed, finishedAt: Fixture.t0, duration: 3, failureStep: 1, message: "late",
                    superseded: true)))
        try await writer.flush()
        let reader = try JournalReader(path: dir.journalPath)
        let attempts = try reader.attempts(run: "r1", job: "a")
        #expect(attempts.map(\.attempt) == [1, 2])
        #expect(attempts[0].result?.superseded == true)
        #expect(attempts[0].result?.failureStep == 1)
        #expect(attempts[1].result?.superseded == false)
        try writer.close()
    }

    @Test("resuming an unknown run is an error, not an empty state")
    func unknownRun() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.close()
        let reader = try JournalReader(path: dir.journalPath)
        #expect(throws: JournalError.self) { try reader.resumeState(run: "nope") }
        #expect(try reader.latestRunID() == nil)
    }
}
