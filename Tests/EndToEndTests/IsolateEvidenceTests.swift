@testable import FlowMatrixCLI
import FlowVocabulary
import Foundation
import Isolation
import Journal
import Testing

/// What `flowmatrix isolate` reads from a run's journal: each job's verdict as evidence.
@Suite("isolate's evidence from the journal")
struct IsolateEvidenceTests {
    @Test("a pass whose first attempt was taken back to another worker is a pass; a pass after a failure is flaky")
    func passAfterATakenBackAttempt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iso-evidence-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let path = root.appendingPathComponent("journal.sqlite").path
        let writer = try JournalWriter(path: path)
        let run = "20261207-0100-0001", at = Date(timeIntervalSince1970: 1_796_000_000)
        func job(_ id: String, _ locale: String) -> PlannedJob {
            PlannedJob(jobID: id, scenarioID: "s", scenarioTitle: "s", configuration: "locale=\(locale)",
                       configurationJSON: "{\"locale\":\"\(locale)\"}", registry: "test")
        }
        var records: [JournalRecord] = [
            .runStarted(RunInfo(runID: run, matrixName: "m", matrixPath: "/nowhere/m.json", seed: 1, startedAt: at)),
            .jobsPlanned(runID: run, jobs: [job("a000000000000001", "en"), job("a000000000000002", "de"),
                                            job("a000000000000003", "ar")]),
        ]
        // (job, attempts' outcomes, the job's outcome): the rebalanced pass, a retried failure, a failure.
        let jobs: [(String, [(JobOutcome, String?)], JobOutcome)] = [
            ("a000000000000001", [(.notRun, "taken back before it started, to run on a worker with a free slot"), (.passed, nil)], .passed),
            ("a000000000000002", [(.failed, "boom"), (.passed, nil)], .flaky),
            ("a000000000000003", [(.failed, "boom"), (.failed, "boom")], .failed),
        ]
        for (id, attempts, outcome) in jobs {
            for (n, (o, message)) in attempts.enumerated() {
                records.append(.attemptStarted(runID: run, jobID: id, attempt: n + 1, worker: "w\(n)", at: at))
                records.append(.attemptFinished(runID: run, jobID: id, attempt: n + 1,
                                                result: AttemptResult(outcome: o, finishedAt: at, duration: 0.1, message: message)))
            }
            records.append(.jobFinished(runID: run, jobID: id, result: JobResult(
                outcome: outcome, attempts: attempts.count, duration: 0.1, finishedAt: at)))
        }
        records.append(.runFinished(runID: run, status: .completed, at: at))
        try writer.submit(records)
        try writer.close()
        #expect(writer.takeRejections().isEmpty)
        let observed = try IsolateCommand.observations(JournalReader(path: path), runID: run, followUp: false)
        let verdicts = Dictionary(uniqueKeysWithValues: observed.map { ($0.configuration["locale"] ?? "", $0.verdict) })
        #expect(verdicts == ["en": .passed, "de": .flaky, "ar": .failed])
    }
}
