import Coordinator
import Foundation
import Journal
import RunControl
import Synchronization
import Testing

/// Ctrl-C while attempts run, then resume: the drain never spends a job's retry budget (issue 27 §5).
@Suite("Run controller: interrupt and resume", .timeLimit(.minutes(5)))
struct RunControllerDrainTests {
    @Test("attempts that fail while an interrupted run drains leave their jobs not run; resumed, they end flaky as uninterrupted")
    func drainKeepsRetries() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        // Two jobs (two locales) that fail their first attempt after 4 s of work, and pass their retry. The 4 s is the
        // window in which both are seen in flight: with 1 s, a machine loaded by the other suites has missed it.
        try fixture.scenario("slow-flaky", ["busy:4000", "flaky"])
        let request = try fixture.request(retries: 2)
        let serving = Mutex<ServingRun?>(nil)
        let controller = RunController(request) { event in
            if case .serving(let run) = event { serving.withLock { $0 = run } }
        }
        async let interrupted = controller.run()
        // Interrupt once both attempts run on the worker (2 slots): they fail during the drain.
        // Up to 90 s: in the parallel test run the worker process has taken over 30 s to start and take its jobs.
        try await Self.waitUntil("both jobs are in flight", timeout: .seconds(90)) {
            (serving.withLock { $0 }?.progress().inFlight ?? 0) == 2
        }
        controller.interrupt()
        let first = try await interrupted
        #expect(first.status == .interrupted)
        #expect(first.progress.count(.failed) == 0, "the drain must not fail a job that has retries left")
        #expect(first.notRun == 2)
        let reader = try JournalReader(path: request.store.journalPath)
        for row in try reader.jobs(run: first.runID) {
            #expect(row.result?.outcome == .notRun)
            // The failure stays as evidence.
            #expect(try reader.attempts(run: first.runID, job: row.job.jobID).map(\.result?.outcome) == [.failed])
        }

        var resume = try fixture.request(retries: 2)
        resume.matrixPath = nil
        resume.resume = first.runID
        let second = try await RunController(resume).run()
        #expect(second.status == .completed)
        // As uninterrupted: attempt 1 failed, attempt 2 (the first retry, the next seed) passed.
        #expect(second.progress.count(.flaky) == 2)
        for row in try reader.jobs(run: first.runID) {
            #expect(row.result?.outcome == .flaky)
            #expect(row.result?.attempts == 2)
            #expect(try reader.attempts(run: first.runID, job: row.job.jobID).map(\.result?.outcome) == [.failed, .passed])
        }
    }

    @Test("a job whose last retry failed before the coordinator died (its failing step journaled, not its result) ends failed on resume, with no further attempt")
    func exhaustedRetriesStayExhausted() async throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.scenario("fails", ["pass", "fail"])
        // A run journaled and stopped before any job ran.
        var request = try fixture.request(retries: 2)
        request.localWorkers = nil
        let holder = Mutex<RunController?>(nil)
        let controller = RunController(request) { event in
            if case .serving = event { holder.withLock { $0 }?.interrupt() }
        }
        holder.withLock { $0 = controller }
        let first = try await controller.run()
        #expect(first.status == .interrupted)
        let reader = try JournalReader(path: request.store.journalPath)
        let ids = try reader.jobs(run: first.runID).map(\.job.jobID)
        try #require(ids.count == 2)
        // What a coordinator killed at that moment leaves for job 0: attempts 1 and 2 failed, attempt 3 (its last
        // retry) with its failing step journaled and no result.
        let writer = try JournalWriter(path: request.store.journalPath)
        let at = Date()
        for n in 1...3 {
            try writer.submit(.attemptStarted(runID: first.runID, jobID: ids[0], attempt: n, worker: "w", at: at))
            try writer.submit(.stepRecorded(runID: first.runID, jobID: ids[0], attempt: n, step: StepResult(
                index: 1, key: "tap:fail", outcome: .failed, duration: 0.01, message: "failed on attempt \(n)")))
            if n < 3 {
                try writer.submit(.attemptFinished(runID: first.runID, jobID: ids[0], attempt: n, result: AttemptResult(
                    outcome: .failed, finishedAt: at, duration: 0.01, failureStep: 1, message: "failed on attempt \(n)")))
            }
        }
        try writer.close()

        var resume = try fixture.request(retries: 2)
        resume.matrixPath = nil
        resume.resume = first.runID
        let second = try await RunController(resume).run()
        #expect(second.status == .completed)
        #expect(second.progress.count(.failed) == 2)
        // Job 0 is failed with its three attempts, the last closed as failed at its failing step; none ran again.
        let settled = try #require(try reader.jobs(run: first.runID).first { $0.job.jobID == ids[0] })
        #expect(settled.result?.outcome == .failed)
        #expect(settled.result?.attempts == 3)
        #expect(settled.result?.failureStep == 1)
        #expect(settled.result?.failureMessage == "failed on attempt 3")
        #expect(try reader.attempts(run: first.runID, job: ids[0]).map(\.result?.outcome) == [.failed, .failed, .failed])
        // Job 1 ran as usual: three failed attempts of its own.
        #expect(try reader.attempts(run: first.runID, job: ids[1]).map(\.result?.outcome) == [.failed, .failed, .failed])
    }

    /// Waits for `condition`, checking it every 20 ms, for at most `timeout`.
    static func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out after \(timeout) waiting until \(what)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
