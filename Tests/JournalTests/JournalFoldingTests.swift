import FlowVocabulary
import Foundation
import MatrixPlan
import Testing

@testable import Journal

/// The writer folds a batch's records per job (one row per attempt, one job update): the result must be exactly
/// what applying the records one transaction at a time gives, bad records and duplicates included.
@Suite("Journal folding")
struct JournalFoldingTests {
    private typealias Random = SplitMix64

    private static let hash = String(repeating: "ab", count: 32)

    /// The records of one job's life: attempts (some completed in one record, some as separate records, some
    /// with duplicates, late steps, artifacts), then its final result; now and then a bad record.
    private static func jobRecords(_ job: String, _ random: inout Random) -> [JournalRecord] {
        var records: [JournalRecord] = []
        let attempts = 1 + random.below(3)
        for n in 1...attempts {
            let last = n == attempts
            let outcome: JobOutcome = last && random.below(4) != 0 ? .passed : .failed
            let steps = (0..<(1 + random.below(4))).map {
                StepResult(
                    index: $0, key: "tap:\"b\\\($0)\"\n", outcome: $0 == 2 ? .failed : .passed,
                    duration: Double(random.below(1000)) / 1000,
                    message: $0 == 2 ? "boom: \u{1}control" : nil, interruptions: random.below(5) == 0 ? "alert" : nil)
            }
            let result = AttemptResult(
                outcome: outcome, finishedAt: Fixture.t0.addingTimeInterval(Double(n)), duration: Double(n),
                failureStep: outcome == .passed ? nil : 2, message: outcome == .passed ? nil : "failed at 2")
            let jobResult =
                last
                ? JobResult(
                    outcome: attempts > 1 && outcome == .passed ? .flaky : outcome, attempts: n, duration: Double(n),
                    finishedAt: Fixture.t0.addingTimeInterval(9)) : nil
            if random.below(2) == 0 {
                records.append(
                    .attemptCompleted(
                        CompletedAttempt(
                            runID: "r1", jobID: job, attempt: n, worker: "w\(n)", startedAt: Fixture.t0, steps: steps,
                            result: result, job: jobResult)))
                if random.below(6) == 0 {  // a duplicate: changes nothing
                    records.append(
                        .attemptCompleted(
                            CompletedAttempt(
                                runID: "r1", jobID: job, attempt: n, worker: "wx", startedAt: Fixture.t0, steps: [],
                                result: AttemptResult(outcome: .failed, finishedAt: Fixture.t0, duration: 99))))
                }
                continue
            }
            records.append(.attemptStarted(runID: "r1", jobID: job, attempt: n, worker: "w\(n)", at: Fixture.t0))
            if random.below(8) == 0 {  // a duplicate start: rejected
                records.append(.attemptStarted(runID: "r1", jobID: job, attempt: n, worker: "w9", at: Fixture.t0))
            }
            for step in steps { records.append(.stepRecorded(runID: "r1", jobID: job, attempt: n, step: step)) }
            if random.below(4) == 0 {
                records.append(
                    .artifactStored(
                        runID: "r1", jobID: job, attempt: n,
                        artifact: ArtifactReference(
                            stepIndex: 0, name: "log", mediaType: "text/plain", sha256: hash, compressedSize: 3,
                            rawSize: 9)))
            }
            records.append(.attemptFinished(runID: "r1", jobID: job, attempt: n, result: result))
            if random.below(6) == 0 {  // a duplicate result: ignored
                records.append(.attemptFinished(runID: "r1", jobID: job, attempt: n, result: result))
            }
            if random.below(6) == 0 {  // a step re-sent after the result: the last one of an index wins
                records.append(.stepRecorded(runID: "r1", jobID: job, attempt: n, step: steps[0]))
            }
            if let jobResult { records.append(.jobFinished(runID: "r1", jobID: job, result: jobResult)) }
        }
        if random.below(10) == 0 {  // steps of an attempt that never started: rejected
            records.append(
                .stepRecorded(
                    runID: "r1", jobID: job, attempt: 7,
                    step: StepResult(index: 0, key: "x", outcome: .passed, duration: 0)))
        }
        return records
    }

    /// Every job's records, interleaved at random (each job's own order kept), with bad records mixed in.
    private static func interleaved(jobs: [String], seed: UInt64) -> [JournalRecord] {
        var random = Random(seed: seed)
        var queues = jobs.map { jobRecords($0, &random) }
        queues.append([
            .attemptCompleted(
                CompletedAttempt(
                    runID: "r1", jobID: "nobody", attempt: 1, worker: "w", startedAt: Fixture.t0, steps: [],
                    result: AttemptResult(outcome: .passed, finishedAt: Fixture.t0, duration: 1))),
            .stepRecorded(
                runID: "r1", jobID: "nobody", attempt: 1,
                step: StepResult(index: 0, key: "x", outcome: .passed, duration: 0)),
            Fixture.finished("r1", "nobody", .passed, duration: 1),
            .attemptStarted(runID: "r1", jobID: "j0", attempt: 0, worker: "w", at: Fixture.t0),
        ])
        var out: [JournalRecord] = []
        while !queues.allSatisfy(\.isEmpty) {
            let q = random.below(queues.count)
            guard !queues[q].isEmpty else { continue }
            out.append(queues[q].removeFirst())
        }
        return out
    }

    /// Everything a reader sees of run r1.
    private struct Snapshot: Equatable {
        var jobs: [JobRow]
        var attempts: [[AttemptRow]]
        var steps: [[[StepResult]]]
        var artifacts: [ArtifactRow]
        var resume: ResumeState
    }

    private static func snapshot(_ path: String) throws -> Snapshot {
        let reader = try JournalReader(path: path)
        let jobs = try reader.jobs(run: "r1")
        let attempts = try jobs.map { try reader.attempts(run: "r1", job: $0.job.jobID) }
        let steps = try zip(jobs, attempts).map { job, attempts in
            try attempts.map { try reader.steps(run: "r1", job: job.job.jobID, attempt: $0.attempt) }
        }
        return Snapshot(
            jobs: jobs, attempts: attempts, steps: steps, artifacts: try reader.artifacts(run: "r1"),
            resume: try reader.resumeState(run: "r1"))
    }

    private static func write(_ records: [JournalRecord], to path: String, oneByOne: Bool) throws
        -> (JournalWriter.Statistics, [JournalWriter.Rejection])
    {
        let writer = try JournalWriter(path: path)
        let jobs = (0..<40).map { Fixture.job("j\($0)") }
        try writer.submit([Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: jobs)])
        try writer.flushSync()
        if oneByOne {
            for record in records {
                try writer.submit(record)
                try writer.flushSync()
            }
        } else {
            // Held back while another connection has the write lock, so everything lands in one batch.
            let blocker = try SQLiteConnection(path: path, readOnly: false)
            try blocker.execute("BEGIN EXCLUSIVE")
            try writer.submit(records)
            try blocker.execute("COMMIT")
            blocker.close()
            try writer.flushSync()
        }
        let stats = writer.statistics
        let rejections = writer.takeRejections()
        try writer.close()
        return (stats, rejections)
    }

    @Test("a batch folded per job gives exactly the rows of the same records applied one at a time", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func foldingMatchesOneByOne(seed: UInt64) throws {
        let records = Self.interleaved(jobs: (0..<40).map { "j\($0)" }, seed: seed)
        let folded = try TemporaryDirectory()
        let single = try TemporaryDirectory()
        let (foldedStats, foldedRejections) = try Self.write(records, to: folded.journalPath, oneByOne: false)
        let (singleStats, singleRejections) = try Self.write(records, to: single.journalPath, oneByOne: true)

        #expect(foldedStats.transactionsCommitted < singleStats.transactionsCommitted)
        #expect(foldedStats.recordsApplied == singleStats.recordsApplied)
        #expect(foldedStats.duplicatesIgnored == singleStats.duplicatesIgnored)
        #expect(foldedStats.recordsRejected == singleStats.recordsRejected)
        #expect(foldedRejections.map(\.kind) == singleRejections.map(\.kind))
        #expect(foldedStats.recordsRejected >= 4)
        let a = try Self.snapshot(folded.journalPath)
        let b = try Self.snapshot(single.journalPath)
        // Compared as booleans: the snapshots are too large to print usefully.
        let (sameJobs, sameAttempts, sameSteps) = (a.jobs == b.jobs, a.attempts == b.attempts, a.steps == b.steps)
        #expect(sameJobs, "jobs differ")
        #expect(sameAttempts, "attempts differ")
        #expect(sameSteps, "steps differ")
        #expect(a.artifacts == b.artifacts)
        #expect(a.resume == b.resume)
        #expect(a.jobs.contains { $0.result?.outcome == .flaky })
    }

    @Test("attemptCompleted after a journaled start completes the row: worker kept, steps appended, job finished")
    func completedAfterStart() throws {
        let dir = try TemporaryDirectory()
        let writer = try JournalWriter(path: dir.journalPath)
        let step = { (i: Int) in StepResult(index: i, key: "s\(i)", outcome: .passed, duration: 0.25) }
        try writer.submit([
            Fixture.run("r1"), .jobsPlanned(runID: "r1", jobs: [Fixture.job("a")]),
            .attemptStarted(runID: "r1", jobID: "a", attempt: 1, worker: "w1", at: Fixture.t0),
            .stepRecorded(runID: "r1", jobID: "a", attempt: 1, step: step(0)),
        ])
        try writer.flushSync()
        try writer.submit(
            .attemptCompleted(
                CompletedAttempt(
                    runID: "r1", jobID: "a", attempt: 1, worker: "other", startedAt: Fixture.t0.addingTimeInterval(5),
                    steps: [step(1), step(2)],
                    result: AttemptResult(outcome: .passed, finishedAt: Fixture.t0, duration: 0.75),
                    job: JobResult(outcome: .passed, attempts: 1, duration: 0.75, finishedAt: Fixture.t0))))
        try writer.flushSync()
        #expect(writer.takeRejections().isEmpty)
        let reader = try JournalReader(path: dir.journalPath)
        let attempt = try #require(try reader.attempts(run: "r1", job: "a").first)
        #expect(attempt.worker == "w1")
        #expect(attempt.startedAt == Fixture.t0)
        #expect(attempt.result?.outcome == .passed)
        #expect(try reader.steps(run: "r1", job: "a", attempt: 1).map(\.key) == ["s0", "s1", "s2"])
        #expect(try reader.steps(run: "r1", job: "a", attempt: 1).map(\.duration) == [0.25, 0.25, 0.25])
        #expect(try reader.jobs(run: "r1").first?.state == .done)
        #expect(try reader.jobs(run: "r1").first?.result?.outcome == .passed)
        try writer.close()
    }
}
