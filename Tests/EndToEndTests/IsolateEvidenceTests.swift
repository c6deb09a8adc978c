@testable import FlowMatrixCLI
import FlowVocabulary
import Foundation
import Isolation
import Journal
import Testing

/// What `flowmatrix isolate` reads from a run's journal: each job's verdict as evidence.
@Suite("isolate's evidence from the journal")
struct IsolateEvidenceTests {
    /// A fresh folder (removed by the caller) and the path of a journal in it.
    static func journal() throws -> (root: URL, path: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iso-evidence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return (root, root.appendingPathComponent("journal.sqlite").path)
    }

    @Test("a pass whose first attempt was taken back to another worker is a pass; a pass after a failure is flaky")
    func passAfterATakenBackAttempt() throws {
        let (root, path) = try Self.journal()
        defer { try? FileManager.default.removeItem(at: root) }
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

    @Test("a run still running, or a follow-up round of an earlier isolate, is no source: the message names why")
    func unfitSources() throws {
        let (root, path) = try Self.journal()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try JournalWriter(path: path)
        let at = Date(timeIntervalSince1970: 1_796_000_000)
        let (live, round, done) = ("20261207-0200-0001", "20261207-0200-0002", "20261207-0200-0003")
        try writer.submit([
            .runStarted(RunInfo(runID: live, matrixName: "m", matrixPath: "/m.json", seed: 1, startedAt: at)),
            .runStarted(RunInfo(runID: round, matrixName: "m", matrixPath: "/m.json", seed: 1, startedAt: at,
                                settingsJSON: #"{"isolates":{"jobs":3,"round":1,"source":"\#(done)"}}"#)),
            .runFinished(runID: round, status: .completed, at: at),
            .runStarted(RunInfo(runID: done, matrixName: "m", matrixPath: "/m.json", seed: 1, startedAt: at)),
            .runFinished(runID: done, status: .interrupted, at: at),
        ])
        try writer.close()
        let reader = try JournalReader(path: path)
        let unfit = { (id: String) in try reader.run(id).flatMap(IsolateSource.unfit) }
        #expect(try unfit(live)?.contains("run \(live) has not finished") == true)
        #expect(try unfit(live)?.contains("flowmatrix run --resume \(live)") == true)
        #expect(try unfit(round) == "run \(round) is a follow-up round of 'flowmatrix isolate' (of run \(done)), not a run of "
            + "its own: isolate \(done)")
        #expect(try unfit(done) == nil, "an interrupted run is isolated from the jobs it finished")
    }
}
