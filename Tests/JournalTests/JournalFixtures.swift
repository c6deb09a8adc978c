import FlowVocabulary
import Foundation
import Journal

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("journal-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        do { try FileManager.default.removeItem(at: url) } catch {
            print("note: could not remove \(url.path): \(error)")
        }
    }

    var journalPath: String { url.appendingPathComponent("journal.sqlite").path }
}

enum Fixture {
    static let t0 = Date(timeIntervalSince1970: 1_796_000_000)

    static func run(_ id: String, at offset: Double = 0) -> JournalRecord {
        .runStarted(
            RunInfo(
                runID: id, matrixName: "smoke", matrixPath: "Matrices/smoke.json", seed: 42,
                startedAt: t0.addingTimeInterval(offset), settingsJSON: #"{"workers":2}"#))
    }

    static func job(_ id: String) -> PlannedJob {
        PlannedJob(
            jobID: id, scenarioID: "scn-\(id)", scenarioTitle: "Scenario \(id)",
            configuration: "locale=ar,orientation=portrait",
            configurationJSON: #"{"locale":"ar","orientation":"portrait"}"#, registry: "catalog")
    }

    /// The records of one attempt: start, `steps` passed steps, finish.
    static func attempt(
        _ run: String, _ job: String, _ n: Int, outcome: JobOutcome = .passed, steps: Int = 3, duration: Double = 1
    ) -> [JournalRecord] {
        var records: [JournalRecord] = [.attemptStarted(runID: run, jobID: job, attempt: n, worker: "w1", at: t0)]
        for i in 0..<steps {
            records.append(
                .stepRecorded(
                    runID: run, jobID: job, attempt: n,
                    step: StepResult(index: i, key: "tap:button\(i)", outcome: .passed, duration: 0.1)))
        }
        records.append(
            .attemptFinished(
                runID: run, jobID: job, attempt: n,
                result: AttemptResult(outcome: outcome, finishedAt: t0.addingTimeInterval(duration), duration: duration)
            ))
        return records
    }

    static func finished(
        _ run: String, _ job: String, _ outcome: JobOutcome, duration: Double, attempts: Int = 1, at offset: Double = 0
    ) -> JournalRecord {
        .jobFinished(
            runID: run, jobID: job,
            result: JobResult(
                outcome: outcome, attempts: attempts, duration: duration,
                finishedAt: t0.addingTimeInterval(offset)))
    }
}
