import FlowMatrixCLI
import Foundation
import Journal

/// `flowmatrix bench journal`: records per second through the journal writer with group commit.
enum JournalBench {
    static let suite = BenchSuite(
        name: "journal",
        overview: "Journal writer: 100,000 jobs' results as separate records and as one record per job; group commit.",
        run: { quick in
            try await run(jobs: quick ? 2_000 : 100_000, shape: .separate)
            try await run(jobs: quick ? 2_000 : 100_000, shape: .completed)
        }
    )

    /// How a job's results reach the writer.
    enum Shape {
        /// attempt start + 3 steps + attempt finish + job finish (what the coordinator sends for a long attempt).
        case separate
        /// One `attemptCompleted` with the job's result (what the coordinator sends for a short attempt).
        case completed
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// CPU seconds used by the process so far (user + system, all threads): robust when the machine is shared.
    private static func processCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The records of job `i`: 2 % fail at their last step.
    private static func records(_ shape: Shape, runID: String, id: String, i: Int, at now: Date) -> [JournalRecord] {
        let steps = (0..<3).map {
            StepResult(
                index: $0, key: ["open:home", "tap:checkout", "assert:total"][$0], outcome: .passed, duration: 0.05)
        }
        let passed = i % 50 != 0
        let attempt = AttemptResult(
            outcome: passed ? .passed : .failed, finishedAt: now, duration: 0.15, failureStep: passed ? nil : 2,
            message: passed ? nil : "expected total 12,50 € but found 12.50 €")
        let job = JobResult(outcome: passed ? .passed : .failed, attempts: 1, duration: 0.15, finishedAt: now)
        let worker = "worker-\(i % 8)"
        switch shape {
        case .separate:
            return [.attemptStarted(runID: runID, jobID: id, attempt: 1, worker: worker, at: now)]
                + steps.map { .stepRecorded(runID: runID, jobID: id, attempt: 1, step: $0) }
                + [
                    .attemptFinished(runID: runID, jobID: id, attempt: 1, result: attempt),
                    .jobFinished(runID: runID, jobID: id, result: job),
                ]
        case .completed:
            return [
                .attemptCompleted(
                    CompletedAttempt(
                        runID: runID, jobID: id, attempt: 1, worker: worker, startedAt: now, steps: steps,
                        result: attempt, job: job))
            ]
        }
    }

    static func run(jobs jobCount: Int, shape: Shape) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowmatrix-bench-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: dir) } catch {
                print("note: could not remove \(dir.path): \(error)")
            }
        }
        let path = dir.appendingPathComponent("journal.sqlite").path
        let writer = try JournalWriter(path: path)
        let clock = ContinuousClock()
        let now = Date()
        let runID = RunID.generate(at: now)
        let ids = (0..<jobCount).map { String(format: "%016llx", UInt64($0) &* 0x9E37_79B9_7F4A_7C15) }

        // Plan: batches of 1,000 jobs.
        let planStart = clock.now
        try writer.submit(
            .runStarted(RunInfo(runID: runID, matrixName: "bench", matrixPath: "bench.json", seed: 1, startedAt: now)))
        for batchStart in stride(from: 0, to: jobCount, by: 1_000) {
            let batch = ids[batchStart..<min(batchStart + 1_000, jobCount)].map {
                PlannedJob(
                    jobID: $0, scenarioID: "scenario-\($0.prefix(4))", scenarioTitle: "Checkout in a narrow window",
                    configuration: "locale=ar-SA,network=lte,orientation=portrait,window=narrow-portrait",
                    configurationJSON:
                        #"{"locale":"ar-SA","network":"lte","orientation":"portrait","window":"narrow-portrait"}"#,
                    registry: "catalog")
            }
            try writer.submit(.jobsPlanned(runID: runID, jobs: batch))
        }
        try await writer.flush()
        let planTime = seconds(clock.now - planStart)
        let afterPlan = writer.statistics

        // Results: one submit per job, as the coordinator's loop hands them over per result.
        let start = clock.now
        let cpuStart = processCPU()
        for (i, id) in ids.enumerated() {
            try writer.submit(records(shape, runID: runID, id: id, i: i, at: now))
        }
        let submitted = seconds(clock.now - start)
        try await writer.flush()
        let elapsed = seconds(clock.now - start)
        let cpu = processCPU() - cpuStart
        let stats = writer.statistics
        try writer.close()

        let records = stats.recordsApplied - afterPlan.recordsApplied
        let transactions = stats.transactionsCommitted - afterPlan.transactionsCommitted
        let writerCPU = stats.writerCPUSeconds - afterPlan.writerCPUSeconds
        print(shape == .separate
            ? "-- each job as attempt start + 3 steps + attempt finish + job finish (folded by the writer):"
            : "-- each job as one attemptCompleted record (the coordinator's shape for a short attempt):")
        print(String(format: "  plan:     %d jobs in %.2f s (%.0f jobs/s)", jobCount, planTime, Double(jobCount) / planTime))
        print(String(format: "  results:  %d records in %.2f s → %.0f records/s, %.0f jobs/s; %d transactions",
                     records, elapsed, Double(records) / elapsed, Double(jobCount) / elapsed, transactions))
        print(String(format: "  writer thread: %.2f s CPU = %.1f µs per job; submitter + writer %.1f µs per job (submit returned after %.2f s)",
                     writerCPU, writerCPU * 1e6 / Double(jobCount), cpu * 1e6 / Double(jobCount), submitted))
        print("  rejected: \(stats.recordsRejected)")

        let reader = try JournalReader(path: path)
        let readStart = clock.now
        let resume = try reader.resumeState(run: runID)
        let resumeTime = seconds(clock.now - readStart)
        let estimateStart = clock.now
        let estimates = try reader.durationEstimates()
        let estimateTime = seconds(clock.now - estimateStart)
        print(
            String(
                format: "  reader:   resumeState of %d jobs in %.3f s; durationEstimates of %d jobs in %.3f s",
                resume.done.count + resume.pending.count, resumeTime, estimates.perJob.count, estimateTime))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        print(String(format: "  file:     %.1f MB journal after close", (size?.doubleValue ?? 0) / 1e6))
    }
}
