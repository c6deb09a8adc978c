import Foundation
import Testing

@testable import Journal

@Suite("Journal writer")
struct JournalWriterTests {
    @Test("records submitted while a transaction is blocked are committed together in one transaction")
    func groupCommit() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([
            Fixture.run("r1"),
            .jobsPlanned(runID: "r1", jobs: (0..<500).map { Fixture.job(String(format: "%04x", $0)) }),
        ])
        try writer.flushSync()
        let before = writer.statistics.transactionsCommitted

        // Another connection holds the write lock, so the writer cannot commit while we submit one by one.
        let blocker = try SQLiteConnection(path: dir.journalPath, readOnly: false)
        try blocker.execute("BEGIN EXCLUSIVE")
        for i in 0..<500 {
            try writer.submit(
                .attemptStarted(runID: "r1", jobID: String(format: "%04x", i), attempt: 1, worker: "w", at: Fixture.t0))
        }
        try blocker.execute("COMMIT")
        try writer.flushSync()

        let stats = writer.statistics
        #expect(stats.recordsApplied == 502)
        // The first submit may have been taken alone before the lock mattered; everything else is one batch.
        #expect(stats.transactionsCommitted - before <= 2)
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.jobs(run: "r1").allSatisfy { $0.state == .running })
        try writer.close()
    }

    @Test("many concurrent submitters: every record is committed, in far fewer transactions than submits")
    func concurrentSubmitters() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: (0..<400).map { Fixture.job("j\($0)") })])
        await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for j in stride(from: t, to: 400, by: 4) {
                        for record in Fixture.attempt("r1", "j\(j)", 1) { try writer.submit(record) }
                    }
                }
            }
        }
        try await writer.flush()
        let stats = writer.statistics
        #expect(stats.recordsSubmitted == 2 + 400 * 5)
        #expect(stats.recordsApplied == stats.recordsSubmitted)
        #expect(stats.transactionsCommitted <= stats.recordsSubmitted)
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.steps(run: "r1", job: "j399", attempt: 1).count == 3)
        try writer.close()
    }

    @Test("after flush, a fresh reader sees every record without the writer being closed")
    func durableAfterFlush() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit(
            [Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: [Fixture.job("a")])] + Fixture.attempt("r1", "a", 1))
        try writer.submit(
            .artifactStored(
                runID: "r1", jobID: "a", attempt: 1,
                artifact: ArtifactReference(
                    stepIndex: 2, name: "surface.json", mediaType: "application/json",
                    sha256: String(repeating: "ab", count: 32),
                    compressedSize: 10, rawSize: 40)))
        try await writer.flush()

        let reader = try JournalReader(path: dir.journalPath)
        let run = try #require(try reader.run("r1"))
        #expect(run.info.matrixName == "smoke")
        #expect(run.info.seed == 42)
        #expect(run.status == .running)
        #expect(run.jobCount == 1)
        let attempts = try reader.attempts(run: "r1", job: "a")
        #expect(attempts.count == 1)
        #expect(attempts.first?.result?.outcome == .passed)
        #expect(attempts.first?.worker == "w1")
        #expect(
            try reader.steps(run: "r1", job: "a", attempt: 1).map(\.key) == [
                "tap:button0", "tap:button1", "tap:button2",
            ])
        #expect(try reader.artifacts(run: "r1", job: "a").map(\.artifact.name) == ["surface.json"])
        #expect(try reader.artifacts(run: "r1", job: "a", attempt: 2).isEmpty)
        #expect(try reader.referencedBlobs() == [String(repeating: "ab", count: 32)])
        // The writer is still open (no close): what a crashed coordinator leaves behind is what the reader saw.
        withExtendedLifetime(writer) {}
    }

    @Test("a reader sees the writer's later commits")
    func readerSeesLaterWrites() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit(Fixture.run("r1"))
        try await writer.flush()
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.runs().map(\.status) == [.running])
        try writer.submit(.runFinished(runID: "r1", status: .completed, at: Fixture.t0.addingTimeInterval(9)))
        try await writer.flush()
        #expect(try reader.runs().map(\.status) == [.completed])
        #expect(try reader.run("r1")?.finishedAt == Fixture.t0.addingTimeInterval(9))
        try writer.close()
    }

    @Test("bad records are rejected one by one; every good row, old and new, is kept")
    func badInputKeepsRows() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit(
            [Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: [Fixture.job("a"), Fixture.job("b")])]
                + Fixture.attempt("r1", "a", 1))
        try await writer.flush()

        let good = StepResult(index: 5, key: "late-step", outcome: .passed, duration: 0.2)
        try writer.submit([
            .stepRecorded(runID: "r1", jobID: "zz", attempt: 1, step: good),  // unknown job
            .attemptStarted(runID: "nope", jobID: "a", attempt: 1, worker: "w", at: Fixture.t0),  // unknown run
            Fixture.finished("r1", "zz", .passed, duration: 1),  // unknown job
            Fixture.run("r1"),  // duplicate run
            .attemptStarted(runID: "r1", jobID: "a", attempt: 0, worker: "w", at: Fixture.t0),  // attempt numbers start at 1
            .artifactStored(
                runID: "r1", jobID: "a", attempt: 1,
                artifact: ArtifactReference(
                    stepIndex: 0, name: "x", mediaType: "text/plain", sha256: "short", compressedSize: 1, rawSize: 1)),  // bad hash
            .jobsPlanned(runID: "missing", jobs: [Fixture.job("c")]),  // unknown run
            .stepRecorded(runID: "r1", jobID: "a", attempt: 1, step: good),  // fine
            .attemptFinished(
                runID: "r1", jobID: "a", attempt: 1,  // duplicate result: ignored
                result: AttemptResult(outcome: .failed, finishedAt: Fixture.t0, duration: 9)),
            Fixture.finished("r1", "a", .passed, duration: 1),  // fine
        ])
        try await writer.flush()

        let rejections = writer.takeRejections()
        #expect(
            rejections.map(\.kind) == [
                "stepRecorded", "attemptStarted", "jobFinished", "runStarted", "attemptStarted",
                "artifactStored", "jobsPlanned",
            ])
        #expect(rejections.allSatisfy { !$0.error.message.isEmpty })
        #expect(writer.takeRejections().isEmpty)
        let stats = writer.statistics
        #expect(stats.recordsRejected == 7)
        #expect(stats.duplicatesIgnored == 1)

        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.runs().count == 1)
        #expect(try reader.jobs(run: "r1").map(\.job.jobID) == ["a", "b"])
        #expect(try reader.steps(run: "r1", job: "a", attempt: 1).map(\.index) == [0, 1, 2, 5])
        #expect(try reader.attempts(run: "r1", job: "a").first?.result?.outcome == .passed)
        #expect(try reader.jobs(run: "r1").first?.result?.outcome == .passed)
        try writer.close()
    }

    @Test("the same job id in two runs, records interleaved in one batch: each record lands in its own run")
    func sameJobInTwoRuns() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit([
            Fixture.run("r1"), Fixture.run("r2", at: 1),
            .jobsPlanned(runID: "r1", jobs: [Fixture.job("a"), Fixture.job("b"), Fixture.job("only-r1")]),
            .jobsPlanned(runID: "r2", jobs: [Fixture.job("a"), Fixture.job("b")]),
        ])
        try writer.flushSync()
        func completed(_ run: String, _ job: String, _ attempt: Int) -> JournalRecord {
            .attemptCompleted(
                CompletedAttempt(
                    runID: run, jobID: job, attempt: attempt, worker: "\(run)/\(job)", startedAt: Fixture.t0,
                    steps: [StepResult(index: 0, key: "\(run)/\(job)/\(attempt)", outcome: .passed, duration: 1)],
                    result: AttemptResult(outcome: .passed, finishedAt: Fixture.t0, duration: 1)))
        }
        try writer.submit(
            [completed("r1", "a", 1), completed("r2", "a", 1), completed("r2", "b", 1), completed("r1", "a", 2)]
                + Fixture.attempt("r1", "b", 1) + [completed("r2", "a", 2), completed("r2", "only-r1", 1)]
                + Fixture.attempt("r2", "b", 2)
                // Separate records of job a of both runs in one stretch: folded per run and job.
                + zip(Fixture.attempt("r1", "a", 3, duration: 1), Fixture.attempt("r2", "a", 3, duration: 2))
                .flatMap { [$0, $1] }
                + [Fixture.finished("r2", "a", .passed, duration: 1, attempts: 3)])
        try writer.flushSync()
        #expect(writer.takeRejections().map(\.kind) == ["attemptCompleted"])
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.attempts(run: "r1", job: "a").map(\.worker) == ["r1/a", "r1/a", "w1"])
        #expect(try reader.attempts(run: "r2", job: "a").map(\.worker) == ["r2/a", "r2/a", "w1"])
        #expect(try reader.attempts(run: "r1", job: "a").last?.result?.duration == 1)
        #expect(try reader.attempts(run: "r2", job: "a").last?.result?.duration == 2)
        #expect(try reader.jobs(run: "r1").first { $0.job.jobID == "a" }?.state == .running)
        #expect(try reader.jobs(run: "r2").first { $0.job.jobID == "a" }?.result?.attempts == 3)
        #expect(try reader.attempts(run: "r2", job: "b").map(\.worker) == ["r2/b", "w1"])
        #expect(try reader.attempts(run: "r1", job: "b").map(\.worker) == ["w1"])
        #expect(try reader.steps(run: "r2", job: "a", attempt: 2).map(\.key) == ["r2/a/2"])
        #expect(try reader.steps(run: "r1", job: "a", attempt: 2).map(\.key) == ["r1/a/2"])
        #expect(try reader.steps(run: "r2", job: "b", attempt: 2).count == 3)
        try writer.close()
    }

    @Test("a closed writer refuses new records with a misuse error")
    func closedWriter() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        try writer.submit(Fixture.run("r1"))
        try writer.close()
        try writer.close()
        let error = #expect(throws: JournalError.self) { try writer.submit(Fixture.run("r2")) }
        #expect(error?.code == 21)
        // What was submitted before close was committed.
        #expect(try JournalReader(path: dir.journalPath).latestRunID() == "r1")
    }

    @Test("runs are listed newest first and the latest run id serves --baseline last")
    func runListing() async throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        let ids = [
            RunID.make(at: Fixture.t0, suffix: 1), RunID.make(at: Fixture.t0.addingTimeInterval(3600), suffix: 0xab12),
            RunID.make(at: Fixture.t0.addingTimeInterval(60), suffix: 7),
        ]
        try writer.submit([Fixture.run(ids[0], at: 0), Fixture.run(ids[1], at: 3600), Fixture.run(ids[2], at: 60)])
        try await writer.flush()
        let reader = try JournalReader(path: dir.journalPath)
        #expect(try reader.runs().map(\.info.runID) == [ids[1], ids[2], ids[0]])
        #expect(try reader.latestRunID() == ids[1])
        #expect(try reader.latestRunID(excluding: ids[1]) == ids[2])
        #expect(try reader.runs(limit: 1).count == 1)
        try writer.close()
    }

    @Test("run ids are sortable UTC minute stamps with a hex suffix")
    func runIDs() {
        let date = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-30 00:53:20 UTC
        #expect(RunID.make(at: date, suffix: 0xab12) == "20261130-0053-ab12")
        #expect(RunID.make(at: date, suffix: 1) == "20261130-0053-0001")
        #expect(RunID.generate(at: date).hasPrefix("20261130-0053-"))
    }
}
