import FlowVocabulary
import Foundation
import Journal
import Testing

/// Which attempts a resumed run counts as failed (issue 27 §5): an attempt whose failure reached the journal is a
/// failed attempt, whether or not its result did; an attempt the stop cut short is not; a job the drain left with
/// a retry due runs again.
@Suite("Journal resume: failed attempts")
struct JournalResumeFailuresTests {
    static func step(_ index: Int, _ outcome: StepOutcome, _ message: String? = nil) -> StepResult {
        StepResult(index: index, key: "tap:s\(index)", outcome: outcome, duration: 0.1, message: message)
    }

    static func started(_ job: String, _ n: Int, steps: [StepResult]) -> [JournalRecord] {
        [.attemptStarted(runID: "r1", jobID: job, attempt: n, worker: "w1", at: Fixture.t0)]
            + steps.map { .stepRecorded(runID: "r1", jobID: job, attempt: n, step: $0) }
    }

    static func ended(_ job: String, _ n: Int, _ outcome: JobOutcome, message: String? = nil) -> JournalRecord {
        .attemptFinished(runID: "r1", jobID: job, attempt: n,
                         result: AttemptResult(outcome: outcome, finishedAt: Fixture.t0, duration: 1, message: message))
    }

    /// A journal left by a coordinator that died (written and flushed, never closed).
    static func crashedJournal(_ dir: TemporaryDirectory, _ records: [JournalRecord],
                               jobs: [String] = ["a", "b", "c", "d", "e", "f"]) async throws -> JournalWriter {
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: jobs.map(Fixture.job))])
        try writer.submit(records)
        try await writer.flush()
        #expect(writer.takeRejections().isEmpty)
        return writer
    }

    @Test("a failing step journaled without its result is a failed attempt, on the first resume and on every later one")
    func failingStepWithoutResult() async throws {
        let dir = try TemporaryDirectory()
        var records: [JournalRecord] = []
        // a: its failing step reached the journal, its result did not.
        records += Self.started("a", 1, steps: [Self.step(0, .passed), Self.step(1, .failed, "assertion failed")])
        // b: a step that timed out, no result.
        records += Self.started("b", 1, steps: [Self.step(0, .timedOut, "timed out after 2 s")])
        // c: only passed steps, no result: cut short, not failed.
        records += Self.started("c", 1, steps: [Self.step(0, .passed)])
        // d: the machinery failed (journaled `failed`, the attempt is lost): not a failure of the job.
        records += Self.started("d", 1, steps: [Self.step(0, .failed, "infrastructure fault: the device went away")])
        // e: failed once for real, then its retry's failing step reached the journal without its result.
        records += Self.started("e", 1, steps: [Self.step(0, .failed)]) + [Self.ended("e", 1, .failed)]
        records += Self.started("e", 2, steps: [Self.step(0, .failed, #"a message with "o":"passed" in it"#)])
        // f: a message that quotes a failing step's text is no failure (the encoder escapes its quotes).
        records += Self.started("f", 1, steps: [Self.step(0, .passed, #"{"o":"failed"}"#)])
        // g: a command's test that errored (journaled `errored` since schema 4), no result: a failed attempt too.
        records += Self.started("g", 1, steps: [Self.step(0, .passed), Self.step(1, .errored, "failed on setup")])
        let crashed = try await Self.crashedJournal(dir, records, jobs: ["a", "b", "c", "d", "e", "f", "g"])
        let reader = try JournalReader(path: dir.journalPath)

        let first = try reader.resumeState(run: "r1")
        #expect(first.done.isEmpty)
        #expect(first.pending == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(first.nextAttempt == ["a": 2, "b": 2, "c": 2, "d": 2, "e": 3, "f": 2, "g": 2])
        #expect(first.failures == ["a": 1, "b": 1, "e": 2, "g": 1])

        // The resumed coordinator closes the open attempts: failed where a step failed, else superseded cancelled.
        let resumed = try JournalWriter(path: dir.journalPath)
        try resumed.submit(.runResumed(runID: "r1", at: Fixture.t0.addingTimeInterval(60)))
        try await resumed.flush()
        #expect(resumed.takeRejections().isEmpty)
        let a = try reader.attempts(run: "r1", job: "a")
        #expect(a.first?.result?.outcome == .failed)
        #expect(a.first?.result?.superseded == false)
        #expect(a.first?.result?.message?.contains("a step failed") == true)
        let c = try reader.attempts(run: "r1", job: "c")
        #expect(c.first?.result?.outcome == .cancelled)
        #expect(c.first?.result?.superseded == true)
        let d = try reader.attempts(run: "r1", job: "d")
        #expect(d.first?.result?.outcome == .cancelled)
        #expect(try reader.attempts(run: "r1", job: "g").first?.result?.outcome == .failed)

        // Killed again before anything else: the second resume counts the same failures (the 1-in-2,000 job of
        // issue 27 lost its failure here, closed as cancelled by the first resume).
        let second = try reader.resumeState(run: "r1")
        #expect(second.failures == first.failures)
        #expect(second.nextAttempt == first.nextAttempt)
        try resumed.close()
        withExtendedLifetime(crashed) {}
    }

    @Test("cancelled (aborted or lost) and taken-back attempts never count; an old journal's stopped failing attempt does")
    func cancelledAttempts() async throws {
        let dir = try TemporaryDirectory()
        var records: [JournalRecord] = []
        // a: aborted (Ctrl-C twice) while running: cancelled, no failing step → its job runs again, no retry spent.
        records += Self.started("a", 1, steps: [Self.step(0, .passed)]) + [Self.ended("a", 1, .cancelled)]
        records += [Fixture.finished("r1", "a", .cancelled, duration: 1)]
        // b: aborted after its failing step was journaled, before its result: cancelled by the user, not counted
        // (an attempt lost with its worker after a failing step is journaled `cancelled` too, and a live coordinator
        // never counts a lost attempt).
        records += Self.started("b", 1, steps: [Self.step(0, .failed)]) + [Self.ended("b", 1, .cancelled)]
        records += [Fixture.finished("r1", "b", .cancelled, duration: 1)]
        // c: lost with its worker, then taken back (revoked) by an idle worker: neither uses a retry.
        // (The journal says `cancelled` and `notRun` for such attempts, as the coordinator writes them.)
        records += Self.started("c", 1, steps: [Self.step(0, .failed)])
            + [Self.ended("c", 1, .cancelled, message: "the worker was lost while running this attempt")]
        records += Self.started("c", 2, steps: [])
            + [Self.ended("c", 2, .notRun, message: "taken back before it started, to run on a worker with a free slot")]
        // d: an old journal's stop left a failing attempt superseded `cancelled`: still a failed attempt.
        records += Self.started("d", 1, steps: [Self.step(0, .failed)])
        records += [.attemptFinished(runID: "r1", jobID: "d", attempt: 1, result: AttemptResult(
            outcome: .cancelled, finishedAt: Fixture.t0, duration: 0,
            message: "the coordinator stopped before the result arrived", superseded: true))]
        let crashed = try await Self.crashedJournal(dir, records)
        let state = try JournalReader(path: dir.journalPath).resumeState(run: "r1")
        #expect(state.done.isEmpty)
        #expect(state.pending == ["a", "b", "c", "d", "e", "f"])
        #expect(state.failures == ["d": 1])
        #expect(state.nextAttempt == ["a": 2, "b": 2, "c": 3, "d": 2, "e": 1, "f": 1])
        withExtendedLifetime(crashed) {}
    }

    @Test("a job that failed while the interrupted run drained, retry due, runs again after its failure; final jobs stay")
    func failedDuringDrain() async throws {
        let dir = try TemporaryDirectory()
        var records: [JournalRecord] = []
        // a: its attempt failed during the drain with a retry due: `notRun`, the failure kept as evidence.
        records += Self.started("a", 1, steps: [Self.step(0, .failed)]) + [Self.ended("a", 1, .failed)]
        records += [.jobFinished(runID: "r1", jobID: "a", result: JobResult(
            outcome: .notRun, attempts: 1, duration: 1,
            failureMessage: "its attempt failed while the interrupted run drained", finishedAt: Fixture.t0))]
        // b: failed on its last attempt: failed for good.
        records += Self.started("b", 1, steps: [Self.step(0, .failed)]) + [Self.ended("b", 1, .failed)]
        records += [Fixture.finished("r1", "b", .failed, duration: 1)]
        // c: flaky; d: queued at Ctrl-C (notRun, never started); e, f: passed.
        records += Self.started("c", 1, steps: [Self.step(0, .failed)]) + [Self.ended("c", 1, .failed)]
        records += Self.started("c", 2, steps: [Self.step(0, .passed)]) + [Self.ended("c", 2, .passed)]
        records += [Fixture.finished("r1", "c", .flaky, duration: 1, attempts: 2)]
        records += [Fixture.finished("r1", "d", .notRun, duration: 0, attempts: 0)]
        for job in ["e", "f"] {
            records += Self.started(job, 1, steps: [Self.step(0, .passed)]) + [Self.ended(job, 1, .passed)]
            records += [Fixture.finished("r1", job, .passed, duration: 1)]
        }
        let crashed = try await Self.crashedJournal(dir, records)
        let state = try JournalReader(path: dir.journalPath).resumeState(run: "r1")
        #expect(state.done == ["b": .failed, "c": .flaky, "e": .passed, "f": .passed])
        #expect(state.pending == ["a", "d"])
        // Attempt numbers continue after the journaled ones (a new attempt 1 of `a` would collide with its row).
        #expect(state.nextAttempt == ["a": 2, "d": 1])
        #expect(state.failures == ["a": 1])
        withExtendedLifetime(crashed) {}
    }

    @Test("jobs whose failed attempts used up their retries are settled failed, with their last failure, before and after the resume closes it")
    func exhaustedRetries() async throws {
        let dir = try TemporaryDirectory()
        var records: [JournalRecord] = []
        // a: two failed attempts, then the last one's failing step without its result (retries 2: all used up).
        records += Self.started("a", 1, steps: [Self.step(0, .failed, "one")]) + [Self.ended("a", 1, .failed, message: "one")]
        records += Self.started("a", 2, steps: [Self.step(0, .failed, "two")]) + [Self.ended("a", 2, .failed, message: "two")]
        records += Self.started("a", 3, steps: [Self.step(0, .passed), Self.step(1, .failed, "three")])
        // b: three failed results, the job's result lost: used up too; its last result says it timed out.
        for n in 1...3 {
            records += Self.started("b", n, steps: [Self.step(0, .timedOut, "slow \(n)")])
            records += [.attemptFinished(runID: "r1", jobID: "b", attempt: n, result: AttemptResult(
                outcome: n == 3 ? .timedOut : .failed, finishedAt: Fixture.t0, duration: Double(n), failureStep: 0,
                message: "slow \(n)"))]
        }
        // c: one failure, retries left.
        records += Self.started("c", 1, steps: [Self.step(0, .failed)]) + [Self.ended("c", 1, .failed)]
        let crashed = try await Self.crashedJournal(dir, records)
        let reader = try JournalReader(path: dir.journalPath)
        var state = try reader.resumeState(run: "r1")
        #expect(state.failures == ["a": 3, "b": 3, "c": 1])
        #expect(state.settleExhausted(retries: 2) == ["a", "b"])
        #expect(state.done == ["a": .failed, "b": .failed])
        #expect(state.pending == ["c", "d", "e", "f"])
        #expect(state.failures == ["c": 1])
        var more = try reader.resumeState(run: "r1")
        #expect(more.settleExhausted(retries: 3) == [], "a resume with more retries runs them")

        let a = PriorFailure(attempt: 3, outcome: .failed, duration: nil, failureStep: 1, message: "three")
        let b = PriorFailure(attempt: 3, outcome: .timedOut, duration: 3, failureStep: 0, message: "slow 3")
        #expect(try reader.lastFailure(run: "r1", job: "a") == a)
        #expect(try reader.lastFailure(run: "r1", job: "b") == b)
        #expect(try reader.lastFailure(run: "r1", job: "d") == nil)
        // Once the resumed coordinator closed the open attempt as failed, the same last failure.
        let resumed = try JournalWriter(path: dir.journalPath)
        try resumed.submit(.runResumed(runID: "r1", at: Fixture.t0.addingTimeInterval(60)))
        try await resumed.flush()
        #expect(try reader.lastFailure(run: "r1", job: "a") == a)
        try resumed.close()
        withExtendedLifetime(crashed) {}
    }
}
