import Foundation
import Journal

/// `flowmatrix bench journal`: records per second through the journal writer with group commit.
enum JournalBench {
    static let suite = BenchSuite(
        name: "journal",
        overview: "Journal writer: records/s for 100,000 jobs x (attempt start + 3 steps + finish), group commit.",
        run: { quick in try await run(jobs: quick ? 2_000 : 100_000) }
    )

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// CPU seconds used by the process so far (user + system, all threads): robust when the machine is shared.
    private static func processCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func run(jobs jobCount: Int) async throws {
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

        // Results: per job one submit of attempt start + 3 steps + attempt finish + job finish, as the
        // coordinator's loop would hand them over per result.
        let start = clock.now
        let cpuStart = processCPU()
        for (i, id) in ids.enumerated() {
            var records: [JournalRecord] = [
                .attemptStarted(runID: runID, jobID: id, attempt: 1, worker: "worker-\(i % 8)", at: now)
            ]
            for step in 0..<3 {
                records.append(
                    .stepRecorded(
                        runID: runID, jobID: id, attempt: 1,
                        step: StepResult(
                            index: step, key: ["launch", "tap:checkout", "expect:total"][step], outcome: .passed,
                            duration: 0.05)))
            }
            let passed = i % 50 != 0
            records.append(
                .attemptFinished(
                    runID: runID, jobID: id, attempt: 1,
                    result: AttemptResult(
                        outcome: passed ? .passed : .failed, finishedAt: now, duration: 0.15,
                        failureStep: passed ? nil : 2,
                        message: passed ? nil : "expected total 12,50 € but found 12.50 €")))
            records.append(
                .jobFinished(
                    runID: runID, jobID: id,
                    result: JobResult(
                        outcome: passed ? .passed : .failed, attempts: 1, duration: 0.15, finishedAt: now)))
            try writer.submit(records)
        }
        let submitted = seconds(clock.now - start)
        try await writer.flush()
        let elapsed = seconds(clock.now - start)
        let cpu = processCPU() - cpuStart
        let stats = writer.statistics
        try writer.close()

        let records = stats.recordsApplied - afterPlan.recordsApplied
        let transactions = stats.transactionsCommitted - afterPlan.transactionsCommitted
        print(
            String(format: "plan:     %d jobs in %.2f s (%.0f jobs/s)", jobCount, planTime, Double(jobCount) / planTime)
        )
        print(
            String(
                format: "results:  %d records (%d jobs x 6) in %.2f s → %.0f records/s, %.0f jobs/s",
                records, jobCount, elapsed, Double(records) / elapsed, Double(jobCount) / elapsed))
        print(
            String(
                format: "          submit returned after %.2f s; %d transactions, %.0f records per transaction",
                submitted, transactions, Double(records) / Double(max(1, transactions))))
        print(
            String(
                format: "          CPU (submitter + writer): %.2f s = %.1f µs per record → %.0f records per CPU-second",
                cpu, cpu / Double(records) * 1e6, Double(records) / cpu))
        print("          rejected: \(stats.recordsRejected)")

        let reader = try JournalReader(path: path)
        let readStart = clock.now
        let resume = try reader.resumeState(run: runID)
        let resumeTime = seconds(clock.now - readStart)
        let estimateStart = clock.now
        let estimates = try reader.durationEstimates()
        let estimateTime = seconds(clock.now - estimateStart)
        print(
            String(
                format: "reader:   resumeState of %d jobs in %.3f s; durationEstimates of %d jobs in %.3f s",
                resume.done.count + resume.pending.count, resumeTime, estimates.perJob.count, estimateTime))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        print(String(format: "file:     %.1f MB journal after close", (size?.doubleValue ?? 0) / 1e6))
    }
}
